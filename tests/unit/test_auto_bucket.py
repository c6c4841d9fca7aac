"""BUCKETS AUTO estimation (seed 000) against Doris's AutoBucketUtils / DynamicPartitionScheduler."""

from __future__ import annotations

import pytest

from dorisql.bucketing.auto_buckets import (
    DEFAULT_ESTIMATE_PARTITION_SIZE,
    GB,
    KB,
    MB,
    PB,
    TB,
    Topology,
    buckets_by_disks,
    buckets_by_size,
    disk_buckets,
    ema,
    estimate_from_properties,
    estimate_next_partition_size,
    initial_buckets,
    parse_data_size,
    subsequent_buckets,
)
from dorisql.errors import AnalysisError

# --------------------------------------------------------------------------- seed 000 cases

SEED_CASES = [
    # (name, data volume, nodes, disks per node, disk size, N, M, final)
    ("case1", 100 * MB, 10, 3, 2 * TB, 1, 1230, 1),
    ("case2", 1 * GB, 3, 2, 500 * GB, 2, 60, 2),
    ("case3", 100 * GB, 3, 2, 500 * GB, 20, 60, 20),
    ("case4", 500 * GB, 3, 1, 1 * TB, 100, 63, 63),
    ("case5", 500 * GB, 10, 3, 2 * TB, 100, 1230, 100),
    ("case6", 1 * TB, 10, 3, 2 * TB, 205, 1230, 128),
    ("case7", 500 * GB, 1, 1, 100 * TB, 100, 2048, 100),
    ("case8", 1 * TB, 200, 7, 4 * TB, 205, 114800, 200),
]


@pytest.mark.parametrize("name,size,nodes,disks,cap,n,m,final", SEED_CASES, ids=[c[0] for c in SEED_CASES])
def test_seed_cases(name, size, nodes, disks, cap, n, m, final):
    d = initial_buckets(size, Topology.uniform(nodes, disks, cap))
    assert (d.n, d.m, d.buckets) == (n, m, final)
    assert d.rule == "auto-initial"
    assert d.estimate_bytes == size
    assert f"N={n}" in d.reason and f"M={m}" in d.reason


def test_seed_m_example_in_text():
    # "3 BEs, each with 4 500GB disks, then M = 3*(500GB / 50GB)*4 = 120"
    assert buckets_by_disks(Topology.uniform(3, 4, 500 * GB)) == 120


def test_reason_reads_like_the_seed():
    d = initial_buckets(100 * GB, Topology.uniform(3, 2, 500 * GB))
    assert "x = min(M=60, N=20, 128) = 20" in d.reason
    d8 = initial_buckets(1 * TB, Topology.uniform(200, 7, 4 * TB))
    assert "x = min(M=114800, N=205, 128) = 128" in d8.reason
    assert "nodes=200" in d8.reason


# --------------------------------------------------------------------------- N and M rules


def test_n_boundaries_exactly_100mb_and_1gb_after_compression():
    # Doris: size/5 <= 100MB -> 1, <= 1GB -> 2, else ceil(size / 1GB).
    assert buckets_by_size(0) == 1
    assert buckets_by_size(500 * MB) == 1  # exactly 100MB after compression
    assert buckets_by_size(500 * MB + 5) == 2  # 100MB + 1 byte
    assert buckets_by_size(500 * MB + 4) == 1  # integer division: still 100MB
    assert buckets_by_size(5 * GB) == 2  # exactly 1GB after compression
    assert buckets_by_size(5 * GB + 5) == 2  # 1GB + 1 byte -> ceil = 2
    assert buckets_by_size(10 * GB) == 2  # exactly 2GB
    assert buckets_by_size(10 * GB + 5) == 3  # 2GB + 1 byte
    assert buckets_by_size(1 * TB) == 205  # 204.8GB -> 205
    assert buckets_by_size(500 * GB) == 100


def test_disk_rounding_is_ceiling_per_disk():
    assert disk_buckets(50 * GB) == 1
    assert disk_buckets(50 * GB + 1) == 2
    assert disk_buckets(1 * TB) == 21  # 20.48 -> 21
    assert disk_buckets(2 * TB) == 41  # 40.96 -> 41
    assert disk_buckets(4 * TB) == 82
    assert disk_buckets(100 * TB) == 2048
    assert disk_buckets(1) == 1
    assert disk_buckets(0) == 1  # Java: (0 - 1) / 50GB + 1 = 0 + 1


def test_per_disk_rounding_differs_from_total_rounding():
    # two 1TB disks: 21 + 21 = 42, not ceil(2048 / 50) = 41
    assert buckets_by_disks(Topology(1, (TB, TB))) == 42


def test_heterogeneous_nodes():
    topo = Topology(2, ((TB,), (500 * GB, 500 * GB)))
    assert buckets_by_disks(topo) == 21 + 10 + 10
    with pytest.raises(ValueError):
        Topology(3, ((TB,), (TB,)))


def test_max_bucket_cap_and_config():
    topo = Topology.uniform(10, 3, 2 * TB)
    assert initial_buckets(1 * TB, topo).buckets == 128
    assert initial_buckets(1 * TB, topo, max_buckets=256).buckets == 205
    assert initial_buckets(1 * TB, topo, max_buckets=10).buckets == 10  # 10 nodes: x == nodes


def test_nodes_win_when_x_below_n_and_nodes():
    # x = min(M, N, 128) = 128 < N=205 and 128 < 200 nodes -> 200
    assert initial_buckets(1 * TB, Topology.uniform(200, 7, 4 * TB)).buckets == 200
    # x limited by small disks: M = 5 (5 nodes x one 10GB disk), N = 20 -> nodes = 5 (not > x)
    assert initial_buckets(100 * GB, Topology.uniform(5, 1, 10 * GB)).buckets == 5
    # 8 nodes with one tiny disk each: M = 8 -> x = 8, not < nodes -> 8
    assert initial_buckets(100 * GB, Topology.uniform(8, 1, 1 * GB)).buckets == 8
    # x < N but x >= nodes -> x stays
    d = initial_buckets(500 * GB, Topology.uniform(3, 1, 1 * TB))
    assert d.buckets == 63


def test_no_disks_gives_node_count():
    d = initial_buckets(100 * GB, Topology(4, ()))
    assert (d.m, d.buckets) == (0, 4)


def test_min_buckets():
    topo = Topology.uniform(10, 3, 2 * TB)
    assert initial_buckets(100 * MB, topo).buckets == 1
    d = initial_buckets(100 * MB, topo, min_buckets=3)
    assert d.buckets == 3 and "autobucket_min_buckets=3" in d.reason


def test_default_estimate():
    assert DEFAULT_ESTIMATE_PARTITION_SIZE == 10 * GB
    assert estimate_from_properties({}) == 10 * GB
    assert estimate_from_properties({"estimate_partition_size": "100G"}) == 100 * GB
    assert initial_buckets(DEFAULT_ESTIMATE_PARTITION_SIZE, Topology.uniform(3, 1, TB)).buckets == 2


# --------------------------------------------------------------------------- parse_data_size


@pytest.mark.parametrize(
    "text,expected",
    [
        ("100G", 100 * GB),
        ("10GB", 10 * GB),
        ("500M", 500 * MB),
        ("500mb", 500 * MB),
        ("1T", TB),
        ("1tb", TB),
        ("2P", 2 * PB),
        ("7K", 7 * KB),
        ("7kb", 7 * KB),
        ("2048", 2048),
        ("2048B", 2048),
        ("1b", 1),
        ("007G", 7 * GB),
    ],
)
def test_parse_data_size(text, expected):
    assert parse_data_size(text) == expected


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("", "invalid data volumn expression"),
        ("G", "invalid data volumn expression"),
        ("1.5G", "invalid data volumn expression"),
        ("-1G", "invalid data volumn expression"),
        (" 10G", "invalid data volumn expression"),
        ("10 G", "invalid unit"),
        ("10X", "invalid unit"),
        ("10GiB", "invalid unit"),
        ("0", "must larger than 0"),
        ("0G", "must larger than 0"),
        ("99999999999999999999", "invalid data volumn"),
        ("9999999999P", "too large"),
    ],
)
def test_parse_data_size_errors(text, fragment):
    with pytest.raises(AnalysisError) as err:
        parse_data_size(text)
    msg = str(err.value)
    assert "estimate_partition_size" in msg and f"'{text}'" in msg and fragment in msg


def test_parse_data_size_names_other_property():
    with pytest.raises(AnalysisError, match="my_prop"):
        parse_data_size("x", "my_prop")


# --------------------------------------------------------------------------- subsequent (EMA)


def test_ema_definition():
    # alpha = 2 / (7 + 1) = 0.25, seeded with the first value, truncated at the end
    assert ema([100]) == 100
    assert ema([100, 200]) == 125  # 0.25*200 + 0.75*100
    assert ema([100, 200, 300]) == 168  # 0.25*300 + 0.75*125 = 168.75 -> 168
    assert ema([10, 20, 30, 40, 50, 60, 70]) == int(_ema_ref([10, 20, 30, 40, 50, 60, 70]))


def _ema_ref(values):
    acc = float(values[0])
    for v in values[1:]:
        acc = 0.25 * v + 0.75 * acc
    return acc


def test_increasing_history_uses_trend():
    h = [10 * GB, 11 * GB, 12 * GB, 13 * GB, 14 * GB, 15 * GB, 16 * GB]
    # six deltas of 1GB -> EMA = 1GB -> 16 + 1 = 17GB
    assert estimate_next_partition_size(h) == 17 * GB
    h2 = [100, 200, 400, 800]
    # deltas 100, 200, 400 -> ema = 0.25*400 + 0.75*(0.25*200 + 0.75*100) = 193.75 -> 193
    assert estimate_next_partition_size(h2) == 800 + 193


def test_flat_history():
    assert estimate_next_partition_size([5 * GB] * 7) == 5 * GB
    assert estimate_next_partition_size([123456789] * 3) == 123456789


def test_non_decreasing_counts_as_ascending():
    # Doris breaks only on s[i] < s[i-1]: [100, 100, 200] is "ascending" -> 200 + ema([0, 100])
    assert estimate_next_partition_size([100, 100, 200]) == 200 + 25


def test_decreasing_history_uses_ema_of_sizes():
    h = [700, 600, 500, 400, 300, 200, 100]
    assert estimate_next_partition_size(h) == int(_ema_ref(h))
    assert estimate_next_partition_size([300, 100]) == 250  # 0.25*100 + 0.75*300


def test_mixed_history():
    h = [100, 300, 200]
    assert estimate_next_partition_size(h) == int(_ema_ref(h))  # 0.25*200 + 0.75*150 = 162.5


@pytest.mark.parametrize("n", range(1, 7))
def test_short_histories(n):
    h = [GB * (i + 1) for i in range(n)]
    if n == 1:
        assert estimate_next_partition_size(h) == GB
    else:
        assert estimate_next_partition_size(h) == h[-1] + GB


def test_only_last_seven_count():
    old = [1, 10**12]  # a spike long ago: outside the window
    recent = [GB * (i + 1) for i in range(7)]
    assert estimate_next_partition_size(old + recent) == estimate_next_partition_size(recent)


def test_empty_history():
    with pytest.raises(ValueError):
        estimate_next_partition_size([])
    assert estimate_next_partition_size([], fallback=10 * GB) == 10 * GB


def test_subsequent_buckets():
    topo = Topology.uniform(3, 2, 500 * GB)  # M = 60
    h = [10 * GB, 11 * GB, 12 * GB, 13 * GB, 14 * GB, 15 * GB, 16 * GB]
    d = subsequent_buckets(h, topo)
    # 17GB stored x 5 = 85GB uncompressed -> /5 = 17GB -> N = 17
    assert (d.rule, d.n, d.m, d.buckets) == ("auto-subsequent", 17, 60, 17)
    assert d.estimate_bytes == 85 * GB
    assert d.history_bytes == tuple(h)
    long = [GB] * 3 + h
    assert subsequent_buckets(long, topo).history_bytes == tuple(h)


def test_subsequent_small_history_and_min():
    topo = Topology.uniform(3, 1, TB)
    assert subsequent_buckets([10 * MB], topo).buckets == 1
    assert subsequent_buckets([10 * MB], topo, min_buckets=3).buckets == 3


def test_subsequent_without_history_falls_back_to_estimate():
    topo = Topology.uniform(3, 2, 500 * GB)
    d = subsequent_buckets([], topo, fallback_estimate_bytes=100 * GB)
    assert d.rule == "auto-initial" and d.buckets == 20 and d.estimate_bytes == 100 * GB
    assert "no earlier partition" in d.reason
