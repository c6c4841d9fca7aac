"""RANGE/LIST arithmetic: seed 003's worked examples, Doris messages, batch expansion."""

import datetime as dt

import pytest

from dorisql.ast import MAXVALUE, BatchRangePartition, DataType, ListPartition, RangePartition
from dorisql.errors import AnalysisError
from dorisql.partitioning import keys as K

DATE = DataType("DATE")
INT = DataType("INT")
VARCHAR = DataType("VARCHAR", (20,))


def LT(name, *upper):
    return RangePartition(name=name, upper=tuple(upper))


def FIX(name, lower, upper):
    return RangePartition(name=name, upper=tuple(upper), lower=tuple(lower))


def table(defs):
    return {d.name: (d.lower.texts(), d.upper.texts()) for d in defs}


MIN_DATE = ("0000-01-01",)


def test_seed_create_range_table():
    defs = K.build_ranges(
        [
            LT("p201701", "2017-02-01"),
            LT("p201702", "2017-03-01"),
            LT("p201703", "2017-04-01"),
            FIX("p2018", ["2018-01-01"], ["2019-01-01"]),
        ],
        [DATE],
    )
    assert table(defs) == {
        "p201701": (MIN_DATE, ("2017-02-01",)),
        "p201702": (("2017-02-01",), ("2017-03-01",)),
        "p201703": (("2017-03-01",), ("2017-04-01",)),
        "p2018": (("2018-01-01",), ("2019-01-01",)),
    }
    assert defs[0].lower.is_min()


def test_seed_add_drop_sequence():
    live = K.build_ranges(
        [LT("p201701", "2017-02-01"), LT("p201702", "2017-03-01"), LT("p201703", "2017-04-01")], [DATE]
    )
    # ADD p201705 LESS THAN 2017-06-01
    live.append(K.add_range(live, LT("p201705", "2017-06-01"), [DATE]))
    assert table(live) == {
        "p201701": (MIN_DATE, ("2017-02-01",)),
        "p201702": (("2017-02-01",), ("2017-03-01",)),
        "p201703": (("2017-03-01",), ("2017-04-01",)),
        "p201705": (("2017-04-01",), ("2017-06-01",)),
    }
    # DROP p201703: nothing else moves, gap [2017-03-01, 2017-04-01)
    live = [d for d in live if d.name != "p201703"]
    assert table(live)["p201705"] == (("2017-04-01",), ("2017-06-01",))
    assert K.route((dt.date(2017, 3, 15),), live) is None
    # DROP p201702: gap grows to [2017-02-01, 2017-04-01)
    live = [d for d in live if d.name != "p201702"]
    assert table(live) == {"p201701": (MIN_DATE, ("2017-02-01",)), "p201705": (("2017-04-01",), ("2017-06-01",))}
    assert K.route((dt.date(2017, 2, 1),), live) is None
    assert K.route((dt.date(2017, 3, 31),), live) is None
    # ADD p201702new LESS THAN 2017-03-01 -> [2017-02-01, 2017-03-01)
    live.append(K.add_range(live, LT("p201702new", "2017-03-01"), [DATE]))
    assert table(live) == {
        "p201701": (MIN_DATE, ("2017-02-01",)),
        "p201702new": (("2017-02-01",), ("2017-03-01",)),
        "p201705": (("2017-04-01",), ("2017-06-01",)),
    }
    assert K.route((dt.date(2017, 3, 1),), live) is None
    # DROP p201701, ADD p201612 LESS THAN 2017-01-01 -> [MIN, 2017-01-01), gap [2017-01-01, 2017-02-01)
    live = [d for d in live if d.name != "p201701"]
    live.append(K.add_range(live, LT("p201612", "2017-01-01"), [DATE]))
    assert table(live) == {
        "p201612": (MIN_DATE, ("2017-01-01",)),
        "p201702new": (("2017-02-01",), ("2017-03-01",)),
        "p201705": (("2017-04-01",), ("2017-06-01",)),
    }
    assert K.route((dt.date(2017, 1, 15),), live) is None
    assert K.route((dt.date(2016, 12, 31),), live) == "p201612"
    assert K.route((dt.date(2017, 5, 31),), live) == "p201705"
    assert K.route((dt.date(2017, 6, 1),), live) is None


def test_add_less_than_into_gap_that_overlaps_next():
    live = K.build_ranges([LT("a", "2017-02-01"), FIX("c", ["2017-04-01"], ["2017-06-01"])], [DATE])
    # fills the gap up to exactly the next lower bound
    d = K.add_range(live, LT("b", "2017-04-01"), [DATE])
    assert d.lower.texts() == ("2017-02-01",) and d.upper.texts() == ("2017-04-01",)
    with pytest.raises(AnalysisError) as e:
        K.add_range(live, LT("b", "2017-05-01"), [DATE])
    assert str(e.value) == (
        "Range [types: [DATE]; keys: [2017-02-01]; ..types: [DATE]; keys: [2017-05-01]; ) "
        "is intersected with range: [types: [DATE]; keys: [2017-04-01]; ..types: [DATE]; "
        "keys: [2017-06-01]; )"
    )


def test_less_than_equal_to_existing_upper_is_empty():
    live = K.build_ranges([LT("a", "2017-02-01"), LT("b", "2017-03-01")], [DATE])
    # Doris: the new range takes the previous upper as lower and then collides with the
    # partition whose upper it repeats
    with pytest.raises(AnalysisError) as e:
        K.add_range(live, LT("x", "2017-03-01"), [DATE])
    assert str(e.value) == (
        "Range [types: [DATE]; keys: [2017-02-01]; ..types: [DATE]; keys: [2017-03-01]; ) "
        "is intersected with range: [types: [DATE]; keys: [2017-02-01]; ..types: [DATE]; "
        "keys: [2017-03-01]; )"
    )
    with pytest.raises(AnalysisError, match=r"^Range \[types: \[DATE\]; keys: \[0000-01-01\]; "):
        K.add_range(live, LT("x", "2017-02-01"), [DATE])
    with pytest.raises(AnalysisError, match="is intersected with range"):
        K.add_range(live, LT("x", "2017-02-15"), [DATE])


def test_fixed_ranges():
    with pytest.raises(AnalysisError, match="^The lower values must smaller than upper values$"):
        K.build_ranges([FIX("x", ["2017-02-01"], ["2017-02-01"])], [DATE])
    with pytest.raises(AnalysisError, match="The lower values must smaller"):
        K.build_ranges([FIX("x", ["2017-03-01"], ["2017-02-01"])], [DATE])
    with pytest.raises(AnalysisError) as e:
        K.build_ranges([FIX("a", ["2017-01-01"], ["2017-03-01"]), FIX("b", ["2017-02-01"], ["2017-04-01"])], [DATE])
    assert str(e.value) == (
        "Range [types: [DATE]; keys: [2017-02-01]; ..types: [DATE]; keys: [2017-04-01]; ) is "
        "intersected with range: [types: [DATE]; keys: [2017-01-01]; ..types: [DATE]; keys: "
        "[2017-03-01]; )"
    )
    # adjacent fixed ranges are fine, in any order
    defs = K.build_ranges([FIX("b", ["20"], ["30"]), FIX("a", ["10"], ["20"])], [INT])
    assert [d.name for d in defs] == ["b", "a"]
    # a LESS THAN after fixed ranges takes the greatest upper below it
    d = K.add_range(defs, LT("c", "50"), [INT])
    assert d.lower.texts() == ("30",)
    d = K.add_range(defs, LT("z", "5"), [INT])
    assert d.lower.texts() == ("-2147483648",) and d.lower.is_min()


def test_maxvalue_and_min_bounds():
    defs = K.build_ranges([LT("p10", "10"), LT("p100", "100"), RangePartition("pmax", (MAXVALUE,))], [INT])
    assert defs[2].upper.texts() == ("MAXVALUE",)
    assert defs[2].show_text() == "[types: [INT]; keys: [100]; ..types: [INT]; keys: [MAXVALUE]; )"
    assert defs[0].show_text() == "[types: [INT]; keys: [-2147483648]; ..types: [INT]; keys: [10]; )"
    with pytest.raises(AnalysisError, match="is intersected with range: .*keys: \\[MAXVALUE\\]; \\)$"):
        K.add_range(defs, LT("more", "1000"), [INT])
    with pytest.raises(AnalysisError, match="Partition's upper value should not be MIN VALUE"):
        K.build_ranges([LT("p", "-2147483648")], [INT])
    # MIN text round trip
    k = K.parse_range_key(("-2147483648",), [INT])
    assert k.is_min()
    assert K.parse_range_key(("0000-01-01",), [DATE]).is_min()
    assert K.parse_range_key(("MAXVALUE",), [DATE]).is_max()


def test_value_count_errors():
    with pytest.raises(
        AnalysisError, match=r"^Partition values number is more than partition column number: \('1', '2'\)$"
    ):
        K.build_ranges([LT("p", "1", "2")], [INT])
    with pytest.raises(AnalysisError, match="Not support MAXVALUE in multi partition range values."):
        K.build_ranges([LT("p", "1", MAXVALUE)], [INT, INT])
    with pytest.raises(AnalysisError, match="^Duplicated named partition: P1$"):
        K.build_ranges([LT("p1", "1"), LT("P1", "2")], [INT])
    with pytest.raises(AnalysisError, match="Number out of range\\[300\\]. type: TINYINT"):
        K.build_ranges([LT("p1", "300")], [DataType("TINYINT")])
    with pytest.raises(AnalysisError, match="Invalid number format: abc"):
        K.build_ranges([LT("p1", "abc")], [INT])
    with pytest.raises(AnalysisError, match="date literal \\[2017-13-01\\] is invalid"):
        K.build_ranges([LT("p1", "2017-13-01")], [DATE])
    with pytest.raises(AnalysisError, match="NULL"):
        K.build_ranges([LT("p1", None)], [INT])


def test_seed_multi_column_range():
    defs = K.build_ranges(
        [
            LT("p201701_1000", "2017-02-01", "1000"),
            LT("p201702_2000", "2017-03-01", "2000"),
            LT("p201703_all", "2017-04-01"),
        ],
        [DATE, INT],
    )
    assert table(defs) == {
        "p201701_1000": (("0000-01-01", "-2147483648"), ("2017-02-01", "1000")),
        "p201702_2000": (("2017-02-01", "1000"), ("2017-03-01", "2000")),
        "p201703_all": (("2017-03-01", "2000"), ("2017-04-01", "-2147483648")),
    }
    assert defs[2].upper.values[1] is K.MIN
    assert defs[2].show_text() == (
        "[types: [DATE, INT]; keys: [2017-03-01, 2000]; ..types: [DATE, INT]; keys: [2017-04-01, -2147483648]; )"
    )


def test_catalog_text_round_trip():
    defs = K.build_ranges(
        [LT("a", "2017-02-01", "1000"), LT("b", "2017-04-01"), RangePartition("m", (MAXVALUE,))], [DATE, INT]
    )
    for d in defs:
        f = d.meta_fields()
        back = K.range_from_texts(d.name, f["lower"], f["upper"], [DATE, INT])
        assert back == d
    assert defs[2].meta_fields()["upper"] == ("MAXVALUE", "MAXVALUE")
    lists = K.build_lists([ListPartition("p", (("1", "Beijing"), (None, "x")))], [INT, VARCHAR])
    f = lists[0].meta_fields()
    assert f == {"values": (("1", "Beijing"), (None, "x"))}
    assert K.list_from_texts("p", f["values"], [INT, VARCHAR]) == lists[0]


def test_largeint_min_prints_and_parses():
    L = DataType("LARGEINT")
    d = K.build_ranges([LT("p", "100")], [L])[0]
    assert d.lower.texts() == ("-170141183460469231731687303715884105728",)
    assert K.range_from_texts("p", d.lower.texts(), d.upper.texts(), [L]) == d


def test_ordering_of_keys():
    ks = [K.range_key((v,), [INT]) for v in (5, None, K.MAX, K.MIN, -3)]
    assert [k.values[0] for k in sorted(ks)] == [None, K.MIN, -3, 5, K.MAX]
    a = K.range_key((dt.date(2017, 2, 1), 1000), [DATE, INT])
    b = K.range_key((dt.date(2017, 2, 1),), [DATE, INT])
    assert b < a and b.values[1] is K.MIN
    assert K.range_key((-2147483648,), [INT]).is_min()


# --------------------------------------------------------------------------- LIST


def test_seed_list_partitions():
    defs = K.build_lists(
        [
            ListPartition("p_cn", (("Beijing",), ("Shanghai",), ("Hong Kong",))),
            ListPartition("p_usa", (("New York",), ("San Francisco",))),
            ListPartition("p_jp", (("Tokyo",),)),
        ],
        [VARCHAR],
    )
    defs.append(K.add_list(defs, ListPartition("p_uk", (("London",),)), [VARCHAR]))
    assert [d.name for d in defs] == ["p_cn", "p_usa", "p_jp", "p_uk"]
    defs = [d for d in defs if d.name != "p_jp"]
    assert K.route(("Tokyo",), defs) is None
    assert K.route(("London",), defs) == "p_uk"
    assert defs[0].show_text() == (
        "[types: [VARCHAR]; keys: [Beijing]; , types: [VARCHAR]; keys: [Shanghai]; , "
        "types: [VARCHAR]; keys: [Hong Kong]; ]"
    )


def test_list_conflicts_and_errors():
    defs = K.build_lists([ListPartition("p_cn", (("Beijing",), ("Shanghai",)))], [VARCHAR])
    with pytest.raises(AnalysisError) as e:
        K.add_list(defs, ListPartition("p2", (("Tianjin",), ("Beijing",))), [VARCHAR])
    assert str(e.value) == (
        "Invalid list value format: The partition key[(\"Beijing\")] in partition item[('Tianjin','Beijing')] is conflict "
        'with current partitionKeys[(("Beijing"),("Shanghai"))]'
    )
    with pytest.raises(AnalysisError, match=r"has duplicate item \[\(\"a\"\)\]"):
        K.build_lists([ListPartition("p", (("a",), ("a",)))], [VARCHAR])
    with pytest.raises(
        AnalysisError, match=r"partition key desc list size\[2\] is not equal to partition column size\[1\]"
    ):
        K.build_lists([ListPartition("p", (("1", "2"),))], [INT])
    with pytest.raises(AnalysisError, match="MAXVALUE is not allowed in LIST partition \\[p\\]"):
        K.build_lists([ListPartition("p", ((MAXVALUE,),))], [INT])
    with pytest.raises(AnalysisError, match="is NOT NULL"):
        K.build_lists([ListPartition("p", ((None,),))], [INT], columns=["k"], nullable=[False])
    with pytest.raises(AnalysisError, match="Duplicated named partition: p"):
        K.build_lists([ListPartition("p", (("1",),)), ListPartition("p", (("2",),))], [INT])
    with pytest.raises(AnalysisError, match="Number out of range"):
        K.build_lists([ListPartition("p", (("300",),))], [DataType("TINYINT")])
    # a string "MAXVALUE" is an ordinary VARCHAR value
    assert K.build_lists([ListPartition("p", (("MAXVALUE",),))], [VARCHAR])[0].keys[0].values == ("MAXVALUE",)


def test_multi_column_list_conflict():
    defs = K.build_lists([ListPartition("p1_city", (("1", "Beijing"), ("1", "Shanghai")))], [INT, VARCHAR])
    with pytest.raises(AnalysisError, match="is conflict"):
        K.add_list(defs, ListPartition("p", (("1", "Beijing"),)), [INT, VARCHAR])
    K.add_list(defs, ListPartition("p", (("2", "Beijing"),)), [INT, VARCHAR])


# --------------------------------------------------------------------------- batch


def names_ranges(items):
    return [(i.name, i.lower[0], i.upper[0]) for i in items]


def test_seed_batch_day():
    items = K.expand_batch(BatchRangePartition(("2022-01-03",), ("2022-01-06",), 1, "DAY"), DATE)
    assert names_ranges(items) == [
        ("p20220103", "2022-01-03", "2022-01-04"),
        ("p20220104", "2022-01-04", "2022-01-05"),
        ("p20220105", "2022-01-05", "2022-01-06"),
    ]
    defs = K.build_ranges([BatchRangePartition(("2022-01-03",), ("2022-01-06",), 1, "DAY")], [DATE])
    assert [d.show_text() for d in defs][0] == (
        "[types: [DATE]; keys: [2022-01-03]; ..types: [DATE]; keys: [2022-01-04]; )"
    )


def test_batch_units():
    assert names_ranges(K.expand_batch(BatchRangePartition(("2022-01-01",), ("2022-01-04",), 2, "DAY"), DATE)) == [
        ("p20220101", "2022-01-01", "2022-01-03"),
        ("p20220103", "2022-01-03", "2022-01-05"),
    ]  # Doris: DAY not clipped
    assert names_ranges(K.expand_batch(BatchRangePartition(("2022-01-15",), ("2022-04-01",), 1, "MONTH"), DATE)) == [
        ("p202201", "2022-01-15", "2022-02-01"),
        ("p202202", "2022-02-01", "2022-03-01"),
        ("p202203", "2022-03-01", "2022-04-01"),
    ]
    assert names_ranges(K.expand_batch(BatchRangePartition(("2020-06-01",), ("2022-03-01",), 1, "YEAR"), DATE)) == [
        ("p2020", "2020-06-01", "2021-01-01"),
        ("p2021", "2021-01-01", "2022-01-01"),
        ("p2022", "2022-01-01", "2022-03-01"),
    ]
    # 2022-01-05 is a Wednesday; week 1 of 2022 holds Jan 1st (a Saturday)
    assert names_ranges(K.expand_batch(BatchRangePartition(("2022-01-05",), ("2022-01-20",), 1, "WEEK"), DATE)) == [
        ("p2022_02", "2022-01-05", "2022-01-10"),
        ("p2022_03", "2022-01-10", "2022-01-17"),
        ("p2022_04", "2022-01-17", "2022-01-20"),
    ]
    dtm = DataType("DATETIME")
    assert names_ranges(
        K.expand_batch(BatchRangePartition(("2022-01-01 00:00:00",), ("2022-01-01 03:00:00",), 2, "HOUR"), dtm)
    ) == [
        ("p2022010100", "2022-01-01 00:00:00", "2022-01-01 02:00:00"),
        ("p2022010102", "2022-01-01 02:00:00", "2022-01-01 03:00:00"),
    ]
    assert names_ranges(K.expand_batch(BatchRangePartition(("1",), ("10",), 4), INT)) == [
        ("p1_5", "1", "5"),
        ("p5_9", "5", "9"),
        ("p9_10", "9", "10"),
    ]
    assert K.expand_batch(BatchRangePartition(("1",), ("3",), 1), INT, prefix="p_")[0].name == "p_1_2"


def test_batch_errors():
    with pytest.raises(AnalysisError, match="Multi partition time interval must be larger than zero."):
        K.expand_batch(BatchRangePartition(("1",), ("3",), 0), INT)
    with pytest.raises(AnalysisError, match="start number should less than end number"):
        K.expand_batch(BatchRangePartition(("3",), ("3",), 1), INT)
    with pytest.raises(AnalysisError, match="start time should less than end time"):
        K.expand_batch(BatchRangePartition(("2022-01-03",), ("2022-01-01",), 1, "DAY"), DATE)
    with pytest.raises(AnalysisError, match="INTERVAL is number type"):
        K.expand_batch(BatchRangePartition(("2022-01-03",), ("2022-01-05",), 1), DATE)
    with pytest.raises(AnalysisError, match="time style is illegal"):
        K.expand_batch(BatchRangePartition(("2022/01/03",), ("2022-01-05",), 1, "DAY"), DATE)
    with pytest.raises(AnalysisError, match="does not support time interval type: MINUTE"):
        K.expand_batch(BatchRangePartition(("2022-01-03",), ("2022-01-05",), 1, "MINUTE"), DATE)
    with pytest.raises(AnalysisError, match="should not exceed:4096"):
        K.expand_batch(BatchRangePartition(("0",), ("5000",), 1), INT)
    with pytest.raises(AnalysisError, match="must be one"):
        K.expand_batch(BatchRangePartition(("1", "2"), ("3",), 1), INT)
    with pytest.raises(AnalysisError, match="is intersected"):
        K.build_ranges([LT("a", "2022-01-04"), BatchRangePartition(("2022-01-03",), ("2022-01-06",), 1, "DAY")], [DATE])


def test_list_values_longer_than_the_column():
    # Doris's suite test_list_partition_datatype: CREATE TABLE keeps VALUES IN ("ddd") on a
    # CHAR(1) column as written (no row can match it); ADD PARTITION refuses it, counting
    # characters (LiteralExprUtils.normalizePartitionValueString).
    char1 = DataType("CHAR", (1,))
    assert K.build_lists([ListPartition("p", (("c",), ("ddd",)))], [char1])[0].keys[1].values == ("ddd",)
    v6 = DataType("VARCHAR", (6,))
    K.check_list_value_lengths(ListPartition("p", (("北京市",),)), [v6])  # 3 characters, 9 bytes
    with pytest.raises(AnalysisError, match=r"^Partition value aaa's length exceeds type length: 3 > 1 for CHAR\(1\)$"):
        K.check_list_value_lengths(ListPartition("p", (("aaa",), ("b",))), [char1])


# --------------------------------------------------------------------------- RangeIndex


def _int_range(lo, hi):
    return K.Range(
        K.min_key([INT]) if lo is None else K.range_key((lo,), [INT]),
        K.max_key([INT]) if hi is None else K.range_key((hi,), [INT]),
    )


def _scan_first(entries, hit):
    return next(((r, p) for r, p in entries if hit(r)), None)


@pytest.mark.parametrize("seed", range(6))
def test_range_index_answers_as_a_scan_does(seed):
    """Bisection gives the answers of a scan in insertion order, for disjoint ranges (the
    normal case) and for overlapping ones (the index notices and scans)."""
    import random

    rnd = random.Random(seed)
    entries = []
    if seed % 2 == 0:  # disjoint, inserted in random order, some with gaps, MIN and MAXVALUE ends
        cuts = sorted(rnd.sample(range(-1000, 1000), 40))
        spans = [(None if i == 0 else cuts[i], None if i == 38 else cuts[i + 1]) for i in range(39)]
        spans = [s for s in spans if rnd.random() < 0.8]
    else:  # overlapping
        spans = [(lo, lo + rnd.randint(1, 300)) for lo in (rnd.randint(-1000, 1000) for _ in range(30))]
    rnd.shuffle(spans)
    index = K.RangeIndex()
    for i, (lo, hi) in enumerate(spans):
        r = _int_range(lo, hi)
        entries.append((r, i))
        index.add(r, i)
    for _ in range(300):
        lo = rnd.randint(-1200, 1200)
        probe = _int_range(lo, lo + rnd.randint(1, 200))
        assert index.first_intersecting(probe) == _scan_first(entries, probe.intersects)
        key = K.range_key((rnd.choice([None, rnd.randint(-1200, 1200)]),), [INT])
        assert index.containing(key) == _scan_first(entries, lambda r, key=key: r.contains(key))
        upper = K.range_key((rnd.randint(-1200, 1200),), [INT])
        ordered = sorted(entries, key=lambda e: (e[0].lower, e[0].upper, e[1]))
        found = next((i for i, (r, _) in enumerate(ordered) if r.upper >= upper), None)
        expected = (
            (ordered[-1][0], ordered[-1][0])
            if found is None
            else (ordered[found - 1][0] if found > 0 else None, ordered[found][0])
        )
        assert index.neighbours(upper) == expected


def test_router_bisects_to_the_same_partitions_as_route():
    defs = K.build_ranges(
        [LT("p_first", "-500")]
        + [FIX(f"p{i}", [str(i)], [str(i + 7)]) for i in range(0, 700, 7)]
        + [RangePartition("p_max", (MAXVALUE,), ("1000",))],
        [INT],
    )
    router = K.Router(defs)
    for v in [None, -2147483648, -501, -500, -1, 0, 6, 7, 350, 699, 700, 999, 1000, 2147483647]:
        assert router((v,)) == K.route((v,), defs), v
    assert router((None,)) == "p_first" and router((700,)) is None and router((5000,)) == "p_max"


def test_add_months_clamps_to_the_month_end():
    assert K.add_months(dt.date(2020, 1, 31), 1) == dt.date(2020, 2, 29)
    assert K.add_months(dt.date(2021, 1, 31), 1) == dt.date(2021, 2, 28)
    assert K.add_months(dt.date(2020, 11, 30), 3) == dt.date(2021, 2, 28)
    assert K.add_months(dt.datetime(2020, 3, 31, 5), -1) == dt.datetime(2020, 2, 29, 5)
    assert K.add_months(dt.date(2020, 5, 15), -17) == dt.date(2018, 12, 15)
