"""Scalar subqueries run, and what Spark refuses comes back in Doris's words (issue 27, item 10):
each of Spark's common error conditions as a Doris-style message naming the problem, with no
path, no Python or Java exception text, and the tables unchanged. SET_VAR hints (item 11): the
variables hold for the one statement and are restored after it."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError, DorisqlError, ExecutionError, InvalidValueError, NotSupportedError
from dorisql.session import failures

from .conftest import rows, run, scalar

LEAKS = ("Internal error", "Traceback", "Exception", "SQLSTATE", "/tmp", "/root", "__dorisql", "spark.sql", "try_")


@pytest.fixture(scope="module")
def tables(engine):
    run(
        engine,
        "CREATE TABLE orders (order_id INT, order_date DATE, s VARCHAR(10)) DUPLICATE KEY(order_id)"
        " DISTRIBUTED BY HASH(order_id) BUCKETS 2;"
        "CREATE TABLE customers (id INT, order_date DATE, name VARCHAR(20)) DUPLICATE KEY(id)"
        " DISTRIBUTED BY HASH(id) BUCKETS 1;"
        "CREATE TABLE nodates (id INT, name VARCHAR(20)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1;"
        "INSERT INTO orders VALUES (1, '2024-01-01', 'a'), (2, '2024-02-01', 'b'), (3, '2024-03-01', '7')",
    )
    return engine


def test_scalar_subqueries_run_over_an_empty_table_and_a_filled_one(tables):
    engine = tables
    uncorrelated = "SELECT order_id FROM orders WHERE order_date >= (SELECT max(order_date) FROM customers)"
    assert rows(engine, uncorrelated) == []  # max() of no rows is NULL: no order matches
    run(engine, "INSERT INTO customers VALUES (1, '2024-01-15', 'x'), (3, '2024-03-01', 'z')")
    assert rows(engine, uncorrelated + " ORDER BY order_id") == [(3,)]
    assert rows(engine, "SELECT order_id, (SELECT count(*) FROM customers) n FROM orders ORDER BY 1") == [
        (1, 2),
        (2, 2),
        (3, 2),
    ]
    correlated = (
        "SELECT order_id FROM orders o WHERE order_date <= "
        "(SELECT max(c.order_date) FROM customers c WHERE c.id = o.order_id) ORDER BY 1"
    )
    assert rows(engine, correlated) == [(1,), (3,)]
    assert rows(engine, "SELECT order_id FROM orders WHERE order_id IN (SELECT id FROM customers) ORDER BY 1") == [
        (1,),
        (3,),
    ]
    assert rows(
        engine, "SELECT o.order_id, (SELECT c.name FROM customers c WHERE c.id = o.order_id) FROM orders o ORDER BY 1"
    ) == [(1, "x"), (2, None), (3, "z")]


# (statement, error type, Doris's code, the message)
REFUSED = [
    ("SELECT nope FROM orders", AnalysisError, 1054, "Unknown column 'nope' in 'table list'"),
    ("SELECT * FROM nosuch", DorisqlError, 1146, "Unknown table 'nosuch'"),
    ("SELECT nofunc(1)", AnalysisError, 1105, "Can not found function 'nofunc'"),
    ("SELECT order_id, s, count(*) FROM orders GROUP BY order_id", AnalysisError, 1105, "s not in aggregate's output"),
    (
        "SELECT order_id, count(*) FROM orders",
        AnalysisError,
        1105,
        "a select list column not in aggregate's output: the query has aggregate functions and no GROUP BY",
    ),
    (
        "SELECT order_id FROM orders a JOIN orders b ON a.order_id = b.order_id",
        AnalysisError,
        1105,
        "order_id is ambiguous: a.order_id, b.order_id.",
    ),
    (
        "SELECT sum(order_date) FROM orders",
        AnalysisError,
        1105,
        'Cannot resolve "sum(order_date)" due to data type mismatch: The first parameter requires the "NUMERIC" or '
        '"ANSI INTERVAL" type, however "order_date" has the type "DATE"',
    ),
    (
        # the column is the outer query's: the subquery's table has none of that name
        "SELECT order_id FROM orders WHERE order_date >= (SELECT max(order_date) FROM nodates)",
        NotSupportedError,
        1235,
        "not supported: Unsupported correlated subquery: Expressions referencing the outer query are not supported "
        'outside of WHERE/HAVING clauses: "max(order_date) AS `max(outer(orders.order_date))`"',
    ),
    (
        "SELECT order_id FROM orders WHERE order_id = (SELECT id, name FROM customers)",
        AnalysisError,
        1105,
        "Invalid subquery: Scalar subquery must return only one column, but got 2",
    ),
    (
        "SELECT (SELECT id FROM customers) FROM orders",
        InvalidValueError,
        1105,
        "Expected LE 1 to be returned by expression: a scalar subquery returned more than one row",
    ),
    (
        "SELECT order_id + s FROM orders WHERE order_id = 1",
        InvalidValueError,
        1105,
        "Invalid value 'a': cannot cast STRING to BIGINT",
    ),
    (
        "SELECT order_id FROM orders ORDER BY 5",
        AnalysisError,
        1105,
        "ORDER BY position 5 is not in select list (valid range is [1, 1])",
    ),
]


def test_what_spark_refuses_is_worded_as_doris_words_it(tables):
    engine = tables
    before = sorted(rows(engine, "SELECT * FROM orders"))
    for sql, kind, code, message in REFUSED:
        with pytest.raises(DorisqlError) as caught:
            run(engine, sql)
        err = caught.value
        assert (type(err).__name__, err.code, str(err)) == (type(err).__name__, code, message), sql
        assert isinstance(err, kind), (sql, err)
        for leak in LEAKS:
            assert leak not in str(err), (sql, str(err))
    assert sorted(rows(engine, "SELECT * FROM orders")) == before  # nothing changed, Spark still works


def test_a_condition_without_doris_words_is_named_in_plain_words():
    err = failures.spark_error(
        "SOME_NEW_CONDITION.SUB_CASE",
        {},
        "XX123",
        "[SOME_NEW_CONDITION.SUB_CASE] Spark cannot do this with file:/srv/wh/d/12/part-0.parquet. SQLSTATE: XX123",
    )
    assert isinstance(err, ExecutionError)
    assert str(err) == (
        "Spark refused the statement (some new condition: sub case): Spark cannot do this with <path>; "
        "it changed nothing"
    )
    # Spark's own internal errors stay internal errors (the log has them), worded by `translate`
    assert failures.spark_error("INTERNAL_ERROR", {}, "XX000", "[INTERNAL_ERROR] boom") is None


def test_a_remote_client_sees_the_server_log_named_not_its_path():
    log = failures.logfile.log_path()
    shown = failures.for_remote_client(f"Internal error (see {log})")
    assert shown == "Internal error (see the server's log file dorisql.log)"
    assert str(log.parent) not in failures.for_remote_client(
        f"Spark failed to start (see {log.with_name('spark.log')})"
    )


def test_set_var_hints_hold_for_one_statement(tables):
    engine = tables
    assert scalar(engine, "SELECT /*+ SET_VAR(query_timeout = 7) */ @@query_timeout") == 7
    assert scalar(engine, "SELECT @@query_timeout") == 900  # restored after the statement
    hinted = "SELECT /*+ SET_VAR(time_zone = 'Asia/Tokyo', batch_size = 10) LEADING(o c) */ @@time_zone, @@batch_size"
    assert rows(engine, hinted) == [("Asia/Tokyo", 10)]
    assert rows(engine, "SELECT /*+ SET_VAR(query_timeout=3) */ count(*) FROM orders WHERE order_id > 1") == [(2,)]

    run(engine, "CREATE TABLE strict_t (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(DorisqlError):  # strict by default: the bad row fails the INSERT
        run(engine, "INSERT INTO strict_t SELECT s FROM orders")
    done = run(engine, "INSERT INTO strict_t SELECT /*+ SET_VAR(enable_insert_strict = false) */ s FROM orders")
    assert done.affected_rows == 1 and "2 rows filtered" in done.warnings[0]
    assert rows(engine, "SELECT k FROM strict_t") == [(7,)]
    with pytest.raises(DorisqlError):  # and strict again afterwards
        run(engine, "INSERT INTO strict_t SELECT s FROM orders")
    assert rows(engine, "SELECT k FROM strict_t") == [(7,)]

    for sql, shown in (
        ("SELECT /*+ SET_VAR(no_such_variable = 1) */ 1", "Can not set session variable 'no_such_variable' = '1'"),
        (
            "INSERT INTO strict_t SELECT /*+ SET_VAR(enable_insert_strict = 'maybe') */ s FROM orders",
            "Can not set session variable 'enable_insert_strict' = 'maybe'",
        ),
    ):
        with pytest.raises(AnalysisError) as caught:
            run(engine, sql)
        assert str(caught.value) == shown
    assert rows(engine, "SELECT k FROM strict_t") == [(7,)]
    assert scalar(engine, "SELECT @@enable_insert_strict") == 1
