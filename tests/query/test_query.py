"""run_query / explain on real Spark over small tables laid out like dorisql tables."""

from __future__ import annotations

import datetime as dt

import pytest

from dorisql import ast
from dorisql.bucketing.hashing import bucket_of
from dorisql.errors import AnalysisError, NotSupportedError, SqlSyntaxError, UnknownTableError
from dorisql.query import planner as query_module
from dorisql.query.planner import JoinPlan, explain, plan_join, plan_query, run_query
from dorisql.storage.spark_views import drop_views

from .conftest import col, lst, rng, table

D = dt.date


def _day_partition(row):
    d = row[1]
    if d < D(2020, 5, 28):
        return "p0"
    return "p" + d.strftime("%Y%m%d")


@pytest.fixture
def events(lake):
    """db.events: DUPLICATE, RANGE by day (4 partitions, different bucket counts), HASH(k)."""
    t = lake.add(
        table(
            "events",
            [col("k", "INT"), col("d", "DATE"), col("v", "BIGINT"), col("city", "VARCHAR", 20)],
            keys=("k", "d"),
            part_kind="RANGE",
            part_cols=("d",),
            partitions=[
                rng("p0", ["0000-01-01"], ["2020-05-28"], buckets=2),
                rng("p20200528", ["2020-05-28"], ["2020-05-29"], buckets=4),
                rng("p20200529", ["2020-05-29"], ["2020-05-30"], buckets=8),
                rng("p20200530", ["2020-05-30"], ["2020-05-31"], buckets=8),
            ],
        )
    )
    rows = []
    for k in range(40):
        day = [D(2020, 5, 1), D(2020, 5, 28), D(2020, 5, 29), D(2020, 5, 30)][k % 4]
        rows.append((k, day, k * 10, ["Beijing", "Tokyo"][k % 2]))
    lake.load(t, rows, _day_partition)
    return t


@pytest.fixture
def users(lake):
    """db.users: UNIQUE KEY(k), LIST by city, two loads (the second updates some users)."""
    t = lake.add(
        table(
            "users",
            [col("k", "INT"), col("city", "VARCHAR", 20), col("name", "VARCHAR", 20)],
            keys=("k", "city"),
            model="UNIQUE",
            part_kind="LIST",
            part_cols=("city",),
            partitions=[lst("p_cn", [["Beijing"], ["Shanghai"]], buckets=2), lst("p_jp", [["Tokyo"]], buckets=3)],
        )
    )
    part = {"Beijing": "p_cn", "Shanghai": "p_cn", "Tokyo": "p_jp"}
    lake.load(t, [(k, ["Beijing", "Tokyo"][k % 2], f"u{k}") for k in range(10)], lambda r: part[r[1]])
    lake.load(t, [(0, "Beijing", "zero"), (1, "Tokyo", "one")], lambda r: part[r[1]])
    return t


def run(lake, sql, db="db"):
    return run_query(lake.spark, ast.Query(sql=sql), lake.sources(db))


def rows(df):
    return [tuple(r) for r in df.collect()]


def test_select_star_hides_hidden_columns_and_prunes(lake, events):
    df, scans = run(lake, "SELECT * FROM events WHERE d = '2020-05-29' ORDER BY k")
    assert df.columns == ["k", "d", "v", "city"]
    got = rows(df)
    assert [r[0] for r in got] == [k for k in range(40) if k % 4 == 2]
    (s,) = scans
    assert s.table == "db.events"
    assert s.partitions == ("p20200529",) and s.partitions_read == 1 and s.partitions_total == 4
    assert (s.buckets_read, s.buckets_in_partitions, s.buckets_total) == (8, 8, 22)
    assert lake.scans[-1] == ("events", ["p20200529"], None)


def test_point_query_reads_one_tablet(lake, events):
    df, scans = run(lake, "SELECT k, v FROM db.events WHERE k = 6 AND d = '2020-05-29'")
    assert rows(df) == [(6, 60)]
    (s,) = scans
    assert s.partitions == ("p20200529",)
    assert s.buckets == {"p20200529": frozenset({bucket_of([6], ["int"], 8)})}
    assert s.buckets_read == 1
    assert 1 <= len(s.files) < len(run(lake, "SELECT * FROM events")[1][0].files)


def test_bucket_pruning_matches_written_buckets(lake, events):
    # Without the partition predicate: one bucket per partition, each partition's own count.
    df, scans = run(lake, "SELECT k, d FROM events WHERE k IN (5, 6)")
    assert sorted(rows(df)) == [(5, D(2020, 5, 28)), (6, D(2020, 5, 29))]
    assert scans[0].buckets_read <= 8


def test_partition_clause(lake, events):
    df, scans = run(lake, "SELECT count(*) FROM events PARTITION (p0, p20200530)")
    assert rows(df) == [(20,)]
    assert scans[0].partitions == ("p0", "p20200530")
    assert scans[0].explicit_partitions == ("p0", "p20200530")
    df, scans = run(lake, "SELECT count(*) FROM events PARTITIONS (p0) e WHERE e.k < 10")
    assert rows(df) == [(3,)]
    df, scans = run(lake, "SELECT count(*) FROM events PARTITION p20200528")
    assert rows(df) == [(10,)]
    with pytest.raises(AnalysisError, match="Unknown partition 'px' in table 'events'"):
        run(lake, "SELECT * FROM events PARTITION (px)")
    with pytest.raises(AnalysisError, match="Unknown partition 'p0' in table 'events'"):
        run(lake, "SELECT * FROM events TEMPORARY PARTITION (p0)")  # p0 is no temporary partition


def test_unique_latest_rows_and_list_pruning(lake, users):
    df, scans = run(lake, "SELECT k, name FROM users WHERE city = 'Tokyo' ORDER BY k")
    assert rows(df) == [(1, "one"), (3, "u3"), (5, "u5"), (7, "u7"), (9, "u9")]
    assert scans[0].partitions == ("p_jp",) and scans[0].key_model == "UNIQUE"
    df, _ = run(lake, "SELECT count(*) FROM users")
    assert rows(df) == [(10,)]


def test_join_two_tables_with_aliases_and_pruning(lake, events, users):
    sql = """
        SELECT u.name, sum(e.v) AS total
        FROM events e JOIN users u ON e.k = u.k AND u.city = "Beijing"
        WHERE e.d >= '2020-05-29'
        GROUP BY u.name ORDER BY total DESC LIMIT 3
    """
    df, scans = run(lake, sql)
    # Beijing users are even k; days 29/30 hold k % 4 in (2, 3): even ones are k % 4 == 2 -> 2, 6
    assert rows(df) == [("u6", 60), ("u2", 20)]
    assert [s.table for s in scans] == ["db.events", "db.users"]
    assert scans[0].partitions == ("p20200529", "p20200530")
    assert scans[1].partitions == ("p_cn",)


def test_join_results(lake, events, users):
    df, _ = run(
        lake,
        """
        SELECT u.name, e.v FROM db.events AS e INNER JOIN users u ON e.k = u.k
        WHERE e.d = '2020-05-29' ORDER BY e.v""",
    )
    assert rows(df) == [("u2", 20), ("u6", 60)]
    df, scans = run(
        lake,
        """
        SELECT e.k, u.name FROM events e LEFT JOIN users u ON e.k = u.k
        WHERE u.k IS NULL AND e.d = '2020-05-28' ORDER BY e.k""",
    )
    # users holds k < 10: events k=1,5,9 on 05-28 have a user, the rest do not
    assert [r[0] for r in rows(df)] == [k for k in range(40) if k % 4 == 1 and k >= 10]
    assert scans[1].partitions == ("p_cn", "p_jp")  # IS NULL on the outer side prunes nothing


def test_right_semi_and_anti_joins(lake, events, users):
    """Doris's RIGHT SEMI/ANTI JOIN (Spark SQL has only LEFT ones): the right table's rows with /
    without a match; after other joins refused plainly, never Spark's syntax error."""
    semi, _ = run(
        lake, "SELECT u.k FROM events e RIGHT SEMI JOIN users u ON e.k = u.k AND e.d = '2020-05-28' ORDER BY u.k"
    )
    anti, _ = run(
        lake, "SELECT u.k FROM events e RIGHT ANTI JOIN users u ON e.k = u.k AND e.d = '2020-05-28' ORDER BY u.k"
    )
    users_k = sorted({r[0] for r in rows(run(lake, "SELECT k FROM users")[0])})
    matched = [k for k in users_k if k % 4 == 1]  # events of 05-28 have k % 4 == 1
    assert [r[0] for r in rows(semi)] == matched
    assert [r[0] for r in rows(anti)] == [k for k in users_k if k not in matched]
    with pytest.raises(NotSupportedError, match="RIGHT SEMI JOIN after other joins"):
        run(lake, "SELECT * FROM events e JOIN users u ON e.k = u.k RIGHT SEMI JOIN users w ON w.k = e.k")


def test_join_seam_sees_both_tables_before_anything_is_read(lake, events, users, monkeypatch):
    seen = []

    def spy(sides, colocation=None):
        seen.append((sides, len(lake.scans)))
        return JoinPlan("spark", "test") if sides.right.meta.name == "users" else None

    monkeypatch.setattr(query_module, "plan_join", spy)
    scans_before = len(lake.scans)
    plan = plan_query(
        lake.spark,
        """SELECT u.name FROM events e JOIN users PARTITION (p_cn) u
                                     ON e.k = u.k AND u.name <> 'x' WHERE e.v > 0""",
        lake.sources("db"),
    )
    try:
        ((sides, scans_then),) = seen
        assert scans_then == scans_before  # decided before any table is read
        assert [r.meta for r in sides.left] == [events] and sides.right.meta is users
        assert sides.left[0].qualifier == "e" and sides.right.selected == ("p_cn",)
        assert sides.on.sql() == "e.k = u.k AND u.name <> 'x'" and sides.kind == "INNER"
        assert plan.joins == [(sides, JoinPlan("spark", "test"))]
        assert [s.table for s in plan.scans] == ["db.events", "db.users"]
    finally:
        drop_views(lake.spark, plan.views)
    # Without colocation information (the engine passes it) every join is Spark's, unreported.
    assert plan_join(sides) is None


def test_cte_subquery_and_union(lake, events, users):
    df, scans = run(
        lake,
        """
        WITH hot AS (SELECT k, v FROM events WHERE d = '2020-05-30')
        SELECT k FROM hot WHERE v > (SELECT avg(v) FROM events PARTITION (p0))
        UNION ALL SELECT k FROM users WHERE k = 0
        ORDER BY k LIMIT 4""",
    )
    assert [r[0] for r in rows(df)] == [0, 19, 23, 27]
    assert [(s.table, s.partitions_read) for s in scans] == [("db.events", 1), ("db.events", 1), ("db.users", 2)]


def test_doris_functions_and_no_from(lake, events):
    df, _ = run(lake, "SELECT 1 AS one, ifnull(NULL, 2) AS two, concat('a', 'b') AS ab")
    assert rows(df) == [(1, 2, "ab")]
    df, _ = run(
        lake,
        """SELECT if(k > 1, 'x', 'y'), date_add(d, INTERVAL 1 DAY), cast(k AS varchar(10)),
                                group_concat(city, '|')
                         FROM events WHERE k = 2 GROUP BY k, d LIMIT 0, 5""",
    )
    assert rows(df) == [("x", D(2020, 5, 30), "2", "Beijing")]
    df, _ = run(
        lake,
        """SELECT date_format(d, '%Y-%m') AS m, count(*) AS c FROM events
                         GROUP BY date_format(d, '%Y-%m') ORDER BY m""",
    )
    assert rows(df) == [("2020-05", 40)]


def test_errors(lake, events):
    with pytest.raises(UnknownTableError, match=r"Table \[nope\] does not exist in database \[db\]"):
        run(lake, "SELECT * FROM nope")
    with pytest.raises(AnalysisError, match="No database selected"):
        run(lake, "SELECT * FROM events", db=None)
    with pytest.raises(SqlSyntaxError):
        run(lake, "SELECT * FROM WHERE")
    with pytest.raises(AnalysisError, match="Unknown column 'nosuchcol' in 'table list'"):
        run(lake, "SELECT nosuchcol FROM events")
    with pytest.raises(AnalysisError, match="Can not found function 'no_such_fn'"):
        run(lake, "SELECT no_such_fn(k) FROM events e")
    # no temp view leaks
    assert not [t for t in lake.spark.catalog.listTables() if t.name.startswith("__dorisql")]


def test_explain(lake, events):
    lines = explain(
        lake.spark,
        ast.Explain(query=ast.Query(sql="SELECT * FROM events WHERE d = '2020-05-29' AND k = 6")),
        lake.sources("db"),
    )
    text = "\n".join(lines)
    assert "0:VOlapScanNode" in text
    assert "TABLE: db.events(events), PREAGGREGATION: ON" in text
    assert "partitions=1/4 (p20200529)" in text
    assert "tablets=1/8" in text
    assert f"buckets: p20200529=[{bucket_of([6], ['int'], 8)}]" in text
    assert "Spark physical plan" in text and "Scan parquet" in text
    # dorisql's plan first, then Spark's operator tree only: no column lists, paths or schemas
    spark_part = lines[lines.index("== Spark physical plan ==") + 1 :]
    assert lines.index("     partitions=1/4 (p20200529)") < lines.index("== Spark physical plan ==")
    assert spark_part[0] == "== Physical Plan ==" and spark_part[-1].endswith("Scan parquet  (1)")
    assert max(map(len, spark_part)) < 80 and "ReadSchema" not in text
    # VERBOSE: each operator's details under its number
    verbose = explain(
        lake.spark,
        ast.Explain(query=ast.Query(sql="SELECT * FROM events WHERE d = '2020-05-29' AND k = 6"), verbose=True),
        lake.sources("db"),
    )
    assert (
        verbose[: lines.index("== Spark physical plan ==") + 1] == lines[: lines.index("== Spark physical plan ==") + 1]
    )
    assert "(1) Scan parquet " in verbose and any(line.startswith("ReadSchema: struct<") for line in verbose)
    lines = explain(lake.spark, ast.Query(sql="SELECT count(*) FROM events"), lake.sources("db"))
    assert "     partitions=4/4 (p0,p20200528,p20200529,p20200530)" in lines
    assert "     tablets=22/22" in lines
