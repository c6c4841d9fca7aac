"""The colocate join against Spark's ordinary join, on hand-picked and drawn rows.

Two tables of one group with five bucket columns of mixed types (INT, BIGINT, DATE, VARCHAR,
DECIMAL), NULL keys, a UNIQUE table loaded twice (latest row wins) and an AGGREGATE one (merged),
joined by every join kind with every residual ON condition; each query is run colocated and with
``disable_colocate_join``, and the rows must be the same. EXPLAIN says which ran and why not.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from decimal import Decimal

import pytest

KEYS = ("k_int", "k_big", "k_date", "k_str", "k_dec")
KEY_COLUMNS = "k_int INT NULL, k_big BIGINT NULL, k_date DATE NULL, k_str VARCHAR(8) NULL, k_dec DECIMAL(10, 2) NULL"
DIST = "DISTRIBUTED BY HASH(k_int, k_big, k_date, k_str, k_dec) BUCKETS 3"
ON = " AND ".join(f"l.{k} = r.{k}" for k in KEYS)

_names = itertools.count()


@pytest.fixture(scope="module")
def engine(spark, tmp_path_factory, make_engine):
    eng = make_engine(tmp_path_factory.mktemp("wh"), spark=spark)
    eng.execute_sql("CREATE DATABASE d; USE d")
    yield eng
    eng.close()


def run(engine, sql):
    return engine.execute_sql(sql)[-1]


def literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, (dt.date, str, Decimal)):
        return f"'{value}'"
    return str(value)


def values(rows):
    return ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)


KEY_POOLS = (
    (None, 1, 2, -3),
    (None, 10, 2**40),
    (None, dt.date(2024, 1, 1), dt.date(1999, 12, 31)),
    (None, "a", "xyz"),
    (None, Decimal("1.50"), Decimal("-2.25")),
)
VALUE_POOL = (None, *range(-1000, 1001, 37))


def canonical(result):
    return sorted(tuple((v is None, str(v)) for v in r) for r in result.rows)


JOINS = [
    ("INNER", f"SELECT l.*, r.w FROM {{l}} l JOIN {{r}} r ON {ON}"),
    ("LEFT", f"SELECT l.*, r.w FROM {{l}} l LEFT JOIN {{r}} r ON {ON}"),
    ("RIGHT", f"SELECT l.v, r.* FROM {{l}} l RIGHT OUTER JOIN {{r}} r ON {ON}"),
    ("FULL", f"SELECT * FROM {{l}} l FULL OUTER JOIN {{r}} r ON {ON}"),
    ("LEFT SEMI", f"SELECT * FROM {{l}} l LEFT SEMI JOIN {{r}} r ON {ON}"),
    ("LEFT ANTI", f"SELECT * FROM {{l}} l LEFT ANTI JOIN {{r}} r ON {ON}"),
    # reads no column of the join (only its rows): the join result still carries them
    ("INNER, count(*) only", f"SELECT count(*) AS n FROM {{l}} l JOIN {{r}} r ON {ON}"),
    (
        "INNER + extra, aggregate, ORDER BY, LIMIT",
        f"SELECT l.k_str, count(*) AS n, sum(r.w) AS s FROM {{l}} l JOIN {{r}} r ON {ON} AND l.v < r.w GROUP BY l.k_str ORDER BY l.k_str LIMIT 2",
    ),
]


#: ON conditions besides the bucket columns: an OUTER/SEMI/ANTI join evaluates them within each
#: bucket (NULLs included: a NULL condition does not match).
RESIDUALS = [
    "l.v < r.w",
    "(l.v IS NULL OR r.w > l.v + 100)",
    "l.k_str <> 'a' AND r.w BETWEEN -500 AND 500",
    "(r.w IN (1, 2, 3) OR l.v >= 0)",
    "l.k_dec > 0",
    "NOT (l.v = r.w)",
]
RESIDUAL_JOINS = [
    ("LEFT + other", f"SELECT l.*, r.w FROM {{l}} l LEFT JOIN {{r}} r ON {ON} AND {{extra}}"),
    ("RIGHT + other", f"SELECT l.v, r.* FROM {{l}} l RIGHT JOIN {{r}} r ON {ON} AND {{extra}}"),
    ("FULL + other", f"SELECT * FROM {{l}} l FULL OUTER JOIN {{r}} r ON {ON} AND {{extra}}"),
    ("LEFT SEMI + other", f"SELECT * FROM {{l}} l LEFT SEMI JOIN {{r}} r ON {ON} AND {{extra}}"),
    ("LEFT ANTI + other", f"SELECT * FROM {{l}} l LEFT ANTI JOIN {{r}} r ON {ON} AND {{extra}}"),
    # Spark has no RIGHT SEMI/ANTI: the ordinary join of these is the LEFT one with the sides swapped
    ("RIGHT SEMI + other", f"SELECT * FROM {{l}} l RIGHT SEMI JOIN {{r}} r ON {ON} AND {{extra}}"),
    ("RIGHT ANTI + other", f"SELECT * FROM {{l}} l RIGHT ANTI JOIN {{r}} r ON {ON} AND {{extra}}"),
    (
        "LEFT + other, aggregate",
        f"SELECT l.k_int, count(r.w) AS n FROM {{l}} l LEFT JOIN {{r}} r ON {ON} AND {{extra}} GROUP BY l.k_int",
    ),
]


def ordinary_sql(sql):
    """The same query as Spark's ordinary join can run it."""
    for kind in ("SEMI", "ANTI"):
        if f" RIGHT {kind} JOIN " in sql:  # FROM x l RIGHT SEMI JOIN y r -> FROM y r LEFT SEMI JOIN x l
            head, tail = sql.split(" FROM ", 1)
            lhs, rest = tail.split(f" RIGHT {kind} JOIN ", 1)
            rhs, on = rest.split(" ON ", 1)
            return f"{head} FROM {rhs} LEFT {kind} JOIN {lhs} ON {on}"
    return sql


def same_as_ordinary(engine, queries, explained):
    """Run each query colocated and as Spark's ordinary join: the same columns and rows. All
    colocated first, then all ordinary: the switch flips twice, not per query. EXPLAIN must say
    `colocate: true` for the `explained` ones (whose ON alone decides whether they colocate)."""
    colocated = []
    for sql in queries:
        if sql in explained:
            plan = "\n".join(r[0] for r in run(engine, "EXPLAIN " + sql).rows)
            assert "colocate: true" in plan, plan
        colocated.append(run(engine, sql))
    run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_colocate_join" = "true")')
    try:
        ordinary = [run(engine, ordinary_sql(sql)) for sql in queries]
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_colocate_join" = "false")')
    for sql, mine, theirs in zip(queries, colocated, ordinary):
        assert mine.columns == theirs.columns, sql
        if "LIMIT" in sql:
            assert [tuple(r) for r in mine.rows] == [tuple(r) for r in theirs.rows], sql
        else:
            assert canonical(mine) == canonical(theirs), sql


# Hand-picked rows that the case starts from: keys found in both tables, a NULL in each
# key column (it matches nothing), duplicate keys in the DUPLICATE table, keys loaded twice into
# the merging tables (UNIQUE: the second load wins, NULL included; AGGREGATE: summed, NULL
# ignored), keys on one side only, and values on both sides of every residual condition.
_D1, _D2 = dt.date(2024, 1, 1), dt.date(1999, 12, 31)
K1 = (1, 10, _D1, "a", Decimal("1.50"))
K2 = (2, 2**40, _D2, "xyz", Decimal("-2.25"))
K3 = (-3, 10, _D1, "xyz", Decimal("1.50"))
LEFT_ONLY = (1, 2**40, _D2, "a", Decimal("-2.25"))
RIGHT_ONLY = (2, 10, _D1, "a", Decimal("-2.25"))
WITH_NULL = [K1[:i] + (None,) + K1[i + 1 :] for i in range(len(KEYS))]
BASE_LEFT = [(K1, 5), (K1, -7), (K2, None), (K3, 600), (LEFT_ONLY, 1), *((k, 3) for k in WITH_NULL)]
BASE_RIGHT1 = [(K1, 2), (K2, 1), (K3, 700), (RIGHT_ONLY, 2), (WITH_NULL[0], 3), (WITH_NULL[4], None)]
BASE_RIGHT2 = [(K1, 9), (K2, 3), (K3, None), (RIGHT_ONLY, -400)]


def drawn_rows(seed: int, count: int = 24) -> list:
    """`count` rows drawn from the key and value pools above (NULLs, duplicates, collisions),
    the same every run."""
    rng = random.Random(seed)
    return [(tuple(rng.choice(pool) for pool in KEY_POOLS), rng.choice(VALUE_POOL)) for _ in range(count)]


# Each case is expensive: three tables, five loads and 24 queries run twice (~60 Spark
# statements); what costs is the statements, not the rows. So one case: the hand-picked rows
# plus 24 drawn ones per load. It covers every join kind against both merging key models, and
# every residual condition.
def test_colocated_joins_match_the_ordinary_join(engine):
    left, right1, right2 = BASE_LEFT + drawn_rows(1), BASE_RIGHT1 + drawn_rows(2), BASE_RIGHT2 + drawn_rows(3)
    n = next(_names)
    l_name, u_name, g_name = f"dup{n}", f"uniq{n}", f"agg{n}"
    group = f'PROPERTIES ("colocate_with" = "g{n}")'
    run(engine, f"CREATE TABLE {l_name} ({KEY_COLUMNS}, v INT NULL) DUPLICATE KEY(k_int) {DIST} {group}")
    run(engine, f"CREATE TABLE {u_name} ({KEY_COLUMNS}, w INT NULL) UNIQUE KEY({', '.join(KEYS)}) {DIST} {group}")
    run(
        engine,
        f"CREATE TABLE {g_name} ({KEY_COLUMNS}, w BIGINT SUM NULL) AGGREGATE KEY({', '.join(KEYS)}) {DIST} {group}",
    )
    for table, loads in ((l_name, [left]), (u_name, [right1, right2]), (g_name, [right1, right2])):
        for load in loads:
            run(engine, f"INSERT INTO {table} VALUES {values([(*k, v) for k, v in load])}")
    try:
        queries = [template.format(l=l_name, r=right) for right in (u_name, g_name) for _kind, template in JOINS]
        # every residual condition, with the join kinds in turn and both merging tables
        residual = [
            template.format(l=l_name, r=(u_name, g_name)[j % 2], extra=RESIDUALS[j % len(RESIDUALS)])
            for j, (_kind, template) in enumerate(RESIDUAL_JOINS)
        ]
        same_as_ordinary(engine, queries + residual, explained={queries[0], *residual})
    finally:
        run(engine, f"DROP TABLE {l_name} FORCE; DROP TABLE {u_name} FORCE; DROP TABLE {g_name} FORCE")


def test_colocated_joins_with_an_empty_table(engine):
    """A table with no rows at all (no data file in any bucket) on either side."""
    group = 'PROPERTIES ("colocate_with" = "empty_g")'
    run(engine, f"CREATE TABLE full_t ({KEY_COLUMNS}, v INT NULL) DUPLICATE KEY(k_int) {DIST} {group}")
    run(engine, f"CREATE TABLE empty_t ({KEY_COLUMNS}, w INT NULL) UNIQUE KEY({', '.join(KEYS)}) {DIST} {group}")
    run(engine, f"INSERT INTO full_t VALUES {values([(*k, v) for k, v in BASE_LEFT])}")
    queries = [
        f"SELECT * FROM full_t l FULL OUTER JOIN empty_t r ON {ON}",
        f"SELECT * FROM full_t l LEFT ANTI JOIN empty_t r ON {ON} AND l.v < r.w",
        f"SELECT l.w, r.* FROM empty_t l RIGHT JOIN full_t r ON {ON}",
        f"SELECT count(*) AS n FROM empty_t l JOIN full_t r ON {ON}",
    ]
    same_as_ordinary(engine, queries, explained=set(queries))
    assert len(run(engine, queries[0]).rows) == len(BASE_LEFT)


def test_explain_names_why_a_join_is_not_colocated(engine):
    run(
        engine,
        f'CREATE TABLE ea ({KEY_COLUMNS}, v INT) DUPLICATE KEY(k_int) {DIST} PROPERTIES ("colocate_with" = "eg")',
    )
    run(
        engine,
        f'CREATE TABLE eb ({KEY_COLUMNS}, v INT) DUPLICATE KEY(k_int) {DIST} PROPERTIES ("colocate_with" = "eg")',
    )
    run(
        engine,
        f'CREATE TABLE ec ({KEY_COLUMNS}, v INT) DUPLICATE KEY(k_int) {DIST} PROPERTIES ("colocate_with" = "other")',
    )

    def reason(sql):
        plan = [r[0].strip() for r in run(engine, "EXPLAIN " + sql).rows]
        return next(line for line in plan if line.startswith("colocate:"))

    on = ON.replace("l.", "ea.").replace("r.", "eb.")
    assert reason(f"SELECT * FROM ea JOIN eb ON {on}") == "colocate: true, group: d.eg"
    assert (
        reason("SELECT * FROM ea JOIN eb ON ea.k_int = eb.k_int")
        == "colocate: false, reason: Inconsistent distribution of table and queries"
    )
    swapped = on.replace("ea.k_int = eb.k_int", "ea.k_int = eb.k_big").replace(
        "ea.k_big = eb.k_big", "ea.k_big = eb.k_int"
    )
    assert reason(f"SELECT * FROM ea JOIN eb ON {swapped}").endswith("Inconsistent distribution of table and queries")
    assert (
        reason(f"SELECT * FROM ea JOIN ec ON {on.replace('eb.', 'ec.')}")
        == "colocate: false, reason: Tables are not in the same group"
    )
    # other ON conditions of an OUTER join: evaluated within a bucket when pyarrow can, else named
    assert reason(f"SELECT * FROM ea LEFT JOIN eb ON {on} AND ea.v > eb.v") == "colocate: true, group: d.eg"
    assert reason(f"SELECT * FROM ea LEFT JOIN eb ON {on} AND abs(ea.v) > eb.v") == (
        "colocate: false, reason: Inconsistent distribution of table and queries "
        "(other join conditions of a LEFT JOIN: ABS(ea.v) > eb.v: abs is not evaluated within a bucket)"
    )
    # a chain: its first join colocated, the third table (another group) joined by Spark after it
    plan = [
        r[0].strip()
        for r in run(engine, f"EXPLAIN SELECT * FROM ea JOIN eb ON {on} JOIN ec ON ea.k_int = ec.k_int").rows
    ]
    assert [line for line in plan if line.startswith("colocate:")] == [
        "colocate: true, group: d.eg",
        "colocate: false, reason: Tables are not in the same group",
    ]
    run(engine, "ADMIN SET COLOCATION GROUP eg UNSTABLE")
    assert reason(f"SELECT * FROM ea JOIN eb ON {on}") == "colocate: false, reason: Colocate group is not stable"
    run(engine, "ADMIN SET COLOCATION GROUP eg STABLE")
    run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_colocate_join" = "true")')
    try:
        assert (
            reason(f"SELECT * FROM ea JOIN eb ON {on}")
            == "colocate: false, reason: Session disabled (disable_colocate_join)"
        )
    finally:
        run(engine, 'ADMIN SET FRONTEND CONFIG ("disable_colocate_join" = "false")')


def test_colocated_chains_of_three_and_five_tables(engine):
    """A chain of INNER joins of one group's tables, each on all the bucket columns with an
    earlier table, is colocated join by join (EXPLAIN: `colocate: true` per join); its rows are
    the ordinary join's. A join that breaks the chain (not on the bucket columns) and every join
    after it run in Spark on top of the colocated prefix; an OUTER join is not chained."""
    group = 'PROPERTIES ("colocate_with" = "chain_g")'
    models = [
        ("c1", "v INT NULL", "DUPLICATE KEY(k_int)"),
        ("c2", "v INT NULL", f"UNIQUE KEY({', '.join(KEYS)})"),
        ("c3", "v BIGINT SUM NULL", f"AGGREGATE KEY({', '.join(KEYS)})"),
        ("c4", "v INT NULL", "DUPLICATE KEY(k_int)"),
        ("c5", "v INT NULL", f"UNIQUE KEY({', '.join(KEYS)})"),
    ]
    for j, (name, value, keys) in enumerate(models):
        run(engine, f"CREATE TABLE {name} ({KEY_COLUMNS}, {value}) {keys} {DIST} {group}")
        for seed in (10 + j, 20 + j):
            rows = BASE_RIGHT1 + drawn_rows(seed, 16) if seed < 20 else BASE_RIGHT2 + drawn_rows(seed, 16)
            run(engine, f"INSERT INTO {name} VALUES {values([(*k, v) for k, v in rows])}")

    def on(a, b):
        return " AND ".join(f"{a}.{k} = {b}.{k}" for k in KEYS)

    three = (
        f"SELECT c1.k_int, c1.v, c2.v AS v2, c3.v AS v3 FROM c1 JOIN c2 ON {on('c1', 'c2')} JOIN c3 ON {on('c2', 'c3')}"
    )
    five = (
        f"SELECT * FROM c1 JOIN c2 ON {on('c1', 'c2')} JOIN c3 ON {on('c1', 'c3')} AND c3.v > c1.v "
        f"JOIN c4 ON {on('c4', 'c2')} INNER JOIN c5 ON {on('c3', 'c5')}"
    )
    counted = (
        f"SELECT c1.k_str, count(*) AS n, sum(c4.v) AS s FROM c1 JOIN c2 ON {on('c1', 'c2')} "
        f"JOIN c4 ON {on('c2', 'c4')} GROUP BY c1.k_str"
    )
    broken = (
        f"SELECT c1.k_int, c2.v, c3.v AS v3, c4.v AS v4 FROM c1 JOIN c2 ON {on('c1', 'c2')} "
        f"JOIN c3 ON c3.k_int = c2.k_int JOIN c4 ON {on('c1', 'c4')}"
    )
    outer = f"SELECT * FROM c1 LEFT JOIN c2 ON {on('c1', 'c2')} JOIN c3 ON {on('c1', 'c3')}"

    def lines(sql):
        return [r[0].strip() for r in run(engine, "EXPLAIN " + sql).rows if r[0].strip().startswith("colocate:")]

    assert lines(three) == ["colocate: true, group: d.chain_g"] * 2
    assert lines(five) == ["colocate: true, group: d.chain_g"] * 4
    assert lines(broken) == [
        "colocate: true, group: d.chain_g",
        "colocate: false, reason: Inconsistent distribution of table and queries",
        "colocate: false, reason: a join before it in this FROM is not colocated",
    ]
    assert lines(outer)[0] == "colocate: false, reason: LEFT JOIN in a FROM of more than two inputs"
    same_as_ordinary(engine, [three, five, counted, broken, outer], explained={three, five, counted})
    assert run(engine, five).rows  # the chain finds rows: the comparison is not of two empty results


def test_colocated_join_of_a_merge_on_read_table_with_a_sequence_column(engine):
    """Per key the row of the larger sequence value, whatever the load order (tablets.merge)."""
    group = 'PROPERTIES ("colocate_with" = "seq_g")'
    sequenced = (
        'PROPERTIES ("colocate_with" = "seq_g", "function_column.sequence_col" = "s", '
        '"enable_unique_key_merge_on_write" = "false")'
    )
    run(engine, f"CREATE TABLE seq_l ({KEY_COLUMNS}, v INT NULL) DUPLICATE KEY(k_int) {DIST} {group}")
    run(
        engine,
        f"CREATE TABLE seq_r ({KEY_COLUMNS}, w INT NULL, s INT NULL) UNIQUE KEY({', '.join(KEYS)}) {DIST} {sequenced}",
    )
    run(engine, f"INSERT INTO seq_l VALUES {values([(*k, v) for k, v in BASE_LEFT])}")
    run(engine, f"INSERT INTO seq_r VALUES {values([(*K1, 1, 20), (*K2, 2, 5), (*K3, 3, None)])}")
    run(engine, f"INSERT INTO seq_r VALUES {values([(*K1, 10, 10), (*K2, 20, 5), (*K3, 30, 1)])}")
    try:
        sql = f"SELECT l.v, r.w, r.s FROM seq_l l JOIN seq_r r ON {ON}"
        same_as_ordinary(engine, [sql], explained={sql})
        assert sorted(tuple(r) for r in run(engine, sql + " WHERE l.v IS NOT NULL").rows) == [
            (-7, 1, 20),
            (5, 1, 20),
            (600, 30, 1),
        ]
    finally:
        run(engine, "DROP TABLE seq_l FORCE; DROP TABLE seq_r FORCE")
