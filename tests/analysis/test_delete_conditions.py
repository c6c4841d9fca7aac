"""DELETE's condition rules and messages per key model (Doris's Nereids DeleteFromCommand and
DeleteHandler), the predicate text a delete version records, and the statement's parsing."""

from __future__ import annotations

import pyarrow as pa
import pytest

from dorisql import ast
from dorisql.analysis.checks import normalize_create_table
from dorisql.errors import AnalysisError, SqlSyntaxError, UnknownColumnError
from dorisql.syntax import parse
from dorisql.syntax.dialect import parse_query
from dorisql.tablets import deletes as D

COLUMNS = "(k INT, d DATE, s VARCHAR(4), f DOUBLE, a ARRAY<INT>, v BIGINT {agg})"


def table(model: str, props: str = "") -> ast.CreateTable:
    agg = "SUM" if model == "AGGREGATE" else ""
    keys = "(k, d, s)" if model != "DUPLICATE" else "(k)"
    cols = COLUMNS.format(agg=agg)
    if model != "DUPLICATE":  # complex and float columns cannot be keys: make them values
        cols = cols.replace("f DOUBLE", f"f DOUBLE {agg or ''}").replace(
            "a ARRAY<INT>", f"a ARRAY<INT> {agg and 'REPLACE'}"
        )
    sql = f"CREATE TABLE t {cols} {model} KEY{keys} DISTRIBUTED BY HASH(k) BUCKETS 1 {props}"
    (stmt,) = parse(sql)
    return normalize_create_table(stmt)


def where(text: str):
    return parse_query(f"SELECT 1 FROM t WHERE {text}").args["where"].this


def conditions(model: str, text: str, props: str = ""):
    return D.analyze_conditions(table(model, props), where(text))


@pytest.mark.parametrize("model", ["DUPLICATE", "UNIQUE", "AGGREGATE"])
def test_key_conditions_every_model(model):
    got = conditions(model, "k = 1 AND d >= '2024-1-2' AND s IN ('a', 'b') AND k IS NOT NULL AND NOT (k < 0)")
    assert got == (
        D.Condition("k", "=", ("1",)),
        D.Condition("d", ">=", ("2024-01-02",)),
        D.Condition("s", "IN", ("a", "b")),
        D.Condition("k", "IS NOT NULL"),
        D.Condition("k", ">=", ("0",)),
    )
    sql = D.predicate_sql(got, table(model))
    assert sql == "`k` = 1 AND `d` >= '2024-01-02' AND `s` IN ('a', 'b') AND `k` IS NOT NULL AND `k` >= 0"
    assert D.parse_predicate(sql) == got
    assert D.shown_conditions(got, table(model)) == (
        """k EQ "1", d GE "2024-01-02", s IN ('a', 'b'), k IS NOT NULL, k GE "0\""""
    )


def test_literal_on_the_left_is_normalised():
    assert conditions("DUPLICATE", "3 > k AND NOT k IN (1, 2)") == (
        D.Condition("k", "<", ("3",)),
        D.Condition("k", "NOT IN", ("1", "2")),
    )


def test_value_columns_per_model():
    assert conditions("DUPLICATE", "v = 5") == (D.Condition("v", "=", ("5",)),)
    with pytest.raises(AnalysisError) as e:
        conditions("AGGREGATE", "v = 5")
    assert str(e.value) == (
        "delete predicate on value column only supports Unique table with merge-on-write enabled and "
        "Duplicate table, but Table[t] is an Aggregate table."
    )
    with pytest.raises(AnalysisError, match=r"but Table\[t\] is an unique table without merge-on-write\.$"):
        conditions("UNIQUE", "v = 5", 'PROPERTIES ("enable_unique_key_merge_on_write" = "false")')
    # merge-on-write: no delete predicate; the DELETE becomes a key delete (Doris's delete-sign load)
    with pytest.raises(D.PredicateShapeError):
        conditions("UNIQUE", "v = 5")


def test_what_makes_a_unique_delete_a_key_delete():
    """The refusals of Doris's checkColumn/checkPredicate are PredicateShapeError (a UNIQUE table
    then deletes by key); an unknown column or a value that does not fit the type are not."""
    for text in ("length(s) = 2", "k = 1 OR k = 2", "f = 1", "v = 5", "k IN (SELECT 1)"):
        with pytest.raises(D.PredicateShapeError):
            conditions("UNIQUE", text)
    with pytest.raises(UnknownColumnError):
        conditions("UNIQUE", "length(nope) = 2")
    with pytest.raises(AnalysisError) as e:
        conditions("UNIQUE", "k = 'x'")
    assert not isinstance(e.value, D.PredicateShapeError)


def test_null_safe_equal_is_equal_or_is_null():
    """Nereids rewrites `<=>` in a filter (NullSafeEqualToEqual): k <=> v is k = v, k <=> NULL
    is k IS NULL; NOT k <=> NULL is IS NOT NULL. NOT k <=> v keeps the NULLs, which no delete
    predicate says (on a NOT NULL column it is k != v)."""
    assert conditions("DUPLICATE", "k <=> 1 AND NULL <=> s") == (
        D.Condition("k", "=", ("1",)),
        D.Condition("s", "IS NULL"),
    )
    assert conditions("DUPLICATE", "NOT (k <=> NULL)") == (D.Condition("k", "IS NOT NULL"),)
    with pytest.raises(D.PredicateShapeError, match="But we meet"):
        conditions("DUPLICATE", "NOT (k <=> 1)")
    not_null = normalize_create_table(
        parse("CREATE TABLE t (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")[0]
    )
    assert D.analyze_conditions(not_null, where("NOT (k <=> 1)")) == (D.Condition("k", "!=", ("1",)),)


def test_key_delete_masks_keys_null_safely():
    """A key delete version hides the rows of its keys, a NULL key part matching NULL (a
    delete-sign row's key), in the pyarrow filter the colocate join and compaction use; its
    JSON keeps the keys."""
    d = D.DeleteVersion(5, None, "length(s) = 2", key_columns=("k", "s"), key_rows=(("1", "a"), ("2", None)))
    assert D.DeleteVersion.from_json(5, d.to_json()) == d
    assert d.columns() == ("k", "s")
    t = pa.table({"k": pa.array([1, 1, 2, 2, None], pa.int32()), "s": ["a", "b", None, "a", "a"]})
    assert D.arrow_keep_mask(t, [d]).to_pylist() == [False, True, False, True, True]
    one = D.DeleteVersion(6, None, "x", key_columns=("k",), key_rows=(("2",), (None,)))
    assert D.arrow_keep_mask(t, [one]).to_pylist() == [True, True, False, False, False]


@pytest.mark.parametrize(
    "text, message",
    [
        ("f = 1", "Column[f] type is float or double."),
        ("a IS NULL", "Can not apply delete condition to column type: ARRAY<INT>"),
        (
            "k = 1 OR k = 2",
            "Where clause only supports compound predicate, binary predicate, is_null predicate or in "
            "predicate. But we meet k = 1 OR k = 2",
        ),
        (
            "s LIKE 'a%'",
            "Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate. But we meet s LIKE 'a%'",
        ),
        (
            "k + 1 = 2",
            "Left expr of binary predicate should be column name, predicate: k + 1 = 2, left expr type:expression",
        ),
        ("k = v", "Right expr of binary predicate should be value, predicate: k = v, right expr type:bigint"),
        ("k IN (1, v)", "Child of in predicate should be value, but get v"),
        (
            "abs(k) IN (1)",
            "Left expr of in predicate should be column name, predicate: ABS(k) IN (1), left expr type:expression",
        ),
        (
            "k IN (SELECT 1)",
            "Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate.",
        ),
        ("k = 'x'", "Invalid column value[x] for column k"),
        ("d = '2024-13-01'", "Invalid column value[2024-13-01] for column d"),
    ],
)
def test_refused_conditions(text, message):
    with pytest.raises(AnalysisError) as e:
        conditions("DUPLICATE", text)
    assert str(e.value) == message


def test_largeint_beyond_storage_names_the_limit():
    """A LARGEINT Doris takes but DECIMAL(38,0) cannot hold: refused naming the limit, as loads
    refuse it (docs/storage.md, 'LARGEINT'); one beyond LARGEINT is Doris's plain message."""
    (stmt,) = parse("CREATE TABLE t (c LARGEINT, v INT) DUPLICATE KEY(c) DISTRIBUTED BY HASH(c) BUCKETS 1")
    definition = normalize_create_table(stmt)
    top = str(10**38 - 1)
    assert D.analyze_conditions(definition, where(f"c = {top} AND c > -{top}")) == (
        D.Condition("c", "=", (top,)),
        D.Condition("c", ">", (f"-{top}",)),
    )
    for text in (str(10**38), str(2**127 - 1), f"-{10**38}"):
        with pytest.raises(AnalysisError) as e:
            D.analyze_conditions(definition, where(f"c IN (1, {text})"))
        assert str(e.value) == (
            f"Invalid column value[{text}] for column c: LARGEINT value [{text}] is outside the range dorisql "
            f"can store: LARGEINT is kept as DECIMAL(38,0), which holds [-{top}, {top}]"
        )
    with pytest.raises(AnalysisError) as e:
        D.analyze_conditions(definition, where(f"c = {2**127}"))
    assert str(e.value) == f"Invalid column value[{2**127}] for column c"


def test_unknown_column_and_in_list_limit():
    with pytest.raises(UnknownColumnError, match="Unknown column 'x' in 'table list'"):
        conditions("DUPLICATE", "x = 1")
    many = ", ".join(str(i) for i in range(D.MAX_IN_ELEMENTS + 1))
    with pytest.raises(AnalysisError, match="Element num of in predicate should not be more than 1024"):
        conditions("DUPLICATE", f"k IN ({many})")


def test_null_literals_match_nothing():
    assert conditions("DUPLICATE", "k = NULL") is None
    assert conditions("DUPLICATE", "k IN (NULL)") is None
    assert conditions("DUPLICATE", "k NOT IN (1, NULL)") is None
    assert conditions("DUPLICATE", "k IN (1, NULL)") == (D.Condition("k", "IN", ("1",)),)


def test_delete_versions_from_properties():
    d = D.DeleteVersion(7, frozenset({"10", "11"}), "`k` = 1", "p1, p2", "2026-01-01 00:00:00")
    props = {f"{D.PROPERTY_PREFIX}7": d.to_json(), f"{D.PROPERTY_PREFIX}3": "", "dorisql.ddl": "x"}
    assert D.delete_versions(props) == (d,)
    assert D.applicable([d], "10", 6) == (d,)
    assert D.applicable([d], "10", 7) == ()  # a load committed as the delete's version or later
    assert D.applicable([d], "12", 1) == ()


def test_arrow_keep_mask_null_semantics():
    t = pa.table({"k": pa.array([1, 2, None, 4], pa.int32()), "s": pa.array(["a", None, "a", "b"])})
    d = D.DeleteVersion(5, None, "`k` != 2 AND `s` IN ('a')")
    assert D.arrow_keep_mask(t, [d]).to_pylist() == [False, True, True, True]
    d2 = D.DeleteVersion(6, None, "`s` IS NULL")
    assert D.arrow_keep_mask(t, [d, d2]).to_pylist() == [False, False, True, True]


def test_parse_delete_statements():
    (stmt,) = parse("DELETE FROM db.t PARTITIONS (p1, p2) WHERE k = 1 AND s IN ('a', \"b\")")
    assert stmt == ast.Delete(ast.TableName("t", "db"), ("p1", "p2"), "k = 1 AND s IN ('a', \"b\")")
    (stmt,) = parse("delete from t partition p1 where k is null")
    assert stmt.partitions == ("p1",) and stmt.where == "k is null"
    assert parse("SHOW DELETE FROM db") == [ast.ShowDelete("db")]
    with pytest.raises(SqlSyntaxError):
        parse("DELETE FROM t")
    # sqlglot reads the condition at parse time; its errors point into the DELETE statement
    with pytest.raises(SqlSyntaxError) as e:
        parse("DELETE FROM k WHERE k = = 1")
    assert (e.value.line, e.value.column) == (1, 24) and "expressions" not in str(e.value)
