"""The failure translation layer: what a user sees for each kind of failure, and the log file.

Spark's errors are given as Spark reports them (condition, parameters, SQLSTATE, message);
Delta failures come from real `deltalake` tables with damaged logs. No Spark here: the end-to-end
behaviour through the `dorisql` command is in tests/shell/test_shell_errors.py.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pyarrow as pa
import pytest

from dorisql import logfile
from dorisql.errors import (
    AnalysisError,
    CommitConflictError,
    DorisqlError,
    InternalError,
    InvalidValueError,
    ReadOnlyWarehouseError,
    StorageDamagedError,
    UnknownColumnError,
    UnknownFunctionError,
    UnknownTableError,
)
from dorisql.session import failures
from dorisql.storage.delta import DeltaStore

#: Python exception names and library words a user must never see in a message.
RAW_TEXT = re.compile(r"Error:|Exception|Traceback|py4j|java\.|Kernel error|Json error|SQLSTATE|\[[A-Z_]+\]")


@pytest.fixture
def log(tmp_path) -> Path:
    path = logfile.open_log(tmp_path / "state" / "dorisql.log")
    yield path
    logfile.close_log()


def _shown(err: DorisqlError) -> str:
    assert "\n" not in err.message
    assert not RAW_TEXT.search(err.message), err.message
    return err.message


def _raised(exc: BaseException) -> BaseException:
    """`exc` with a traceback, as the engine catches it."""
    try:
        raise exc
    except BaseException as caught:
        return caught


# --------------------------------------------------------------------------- Spark


def test_unknown_column_is_1054_in_table_list():
    err = failures.spark_error(
        "UNRESOLVED_COLUMN.WITH_SUGGESTION",
        {"objectName": "`nope`", "proposal": "`k`, `v`"},
        "42703",
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `nope` "
        "cannot be resolved. Did you mean one of the following? [`k`, `v`]. SQLSTATE: 42703",
    )
    assert isinstance(err, UnknownColumnError)
    assert (err.code, err.sqlstate) == (1054, "42S22")
    assert _shown(err) == "Unknown column 'nope' in 'table list'"


def test_a_qualified_unknown_column_names_the_column():
    err = failures.spark_error("UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", {"objectName": "`t`.`we``ird`"}, "42703", "")
    assert _shown(err) == "Unknown column 'we`ird' in 'table list'"


def test_unknown_function_uses_doris_words():
    err = failures.spark_error(
        "UNRESOLVED_ROUTINE",
        {"routineName": "`nofunc`", "searchPath": "[...]"},
        "42883",
        "[UNRESOLVED_ROUTINE] Cannot resolve routine `nofunc` on search path",
    )
    assert isinstance(err, UnknownFunctionError)
    assert _shown(err) == "Can not found function 'nofunc'"


def test_unknown_table_puts_the_view_name_back():
    err = failures.spark_error(
        "TABLE_OR_VIEW_NOT_FOUND",
        {"relationName": "`__dorisql_scan_3`"},
        "42P01",
        "",
        views={"__dorisql_scan_3": "d.t"},
    )
    assert isinstance(err, UnknownTableError)
    assert (err.code, _shown(err)) == (1146, "Unknown table 'd.t'")


def test_other_analysis_errors_keep_their_first_sentence_without_spark_advice():
    err = failures.spark_error(
        "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
        {},
        "42K09",
        '[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve "(a + x)" due to data type mismatch: the left '
        'and right operands of the binary operator have incompatible types ("ARRAY<INT>" and "STRING"). '
        "SQLSTATE: 42K09; line 1 pos 7",
    )
    assert isinstance(err, AnalysisError)
    assert _shown(err) == (
        'Cannot resolve "(a + x)" due to data type mismatch: the left and right operands of '
        'the binary operator have incompatible types ("ARRAY<INT>" and "STRING")'
    )


def test_data_errors_drop_the_spark_settings_they_suggest():
    err = failures.spark_error(
        "DIVIDE_BY_ZERO",
        {"config": '"spark.sql.ansi.enabled"'},
        "22012",
        "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL "
        'instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error. SQLSTATE: 22012',
    )
    assert isinstance(err, InvalidValueError)
    assert _shown(err) == "Division by zero"


def test_a_datetime_overflow_in_spark_is_an_invalid_date_value():
    err = failures.spark_error("DATETIME_OVERFLOW", {"operation": "add 100000 years"}, "22008", "")
    assert _shown(err) == "Invalid date value: out of range [0000-01-01, 9999-12-31]"


def test_an_unreadable_data_file_names_its_table(tmp_path):
    wh = tmp_path / "wh"
    err = failures.spark_error(
        "FAILED_READ_FILE.FILE_NOT_EXIST",
        {"path": f"file://{wh}/sales/orders/__partition=p1/part-0.parquet"},
        "KD001",
        "",
        warehouse=wh,
    )
    assert isinstance(err, StorageDamagedError) and err.table == "sales.orders"
    assert _shown(err).startswith("Table 'sales.orders' storage is damaged: see ADMIN CHECK TABLE sales.orders")


def test_spark_failures_that_are_not_sql_errors_are_left_to_the_internal_error():
    assert failures.spark_error("", {}, "XX000", "java.lang.OutOfMemoryError: Java heap space") is None


# --------------------------------------------------------------------------- Python values


@pytest.mark.parametrize(
    "exc, shown",
    [
        (OverflowError("date value out of range"), "Invalid date value: out of range [0000-01-01, 9999-12-31]"),
        (
            ValueError("year -6310 is out of range"),
            "Invalid date value: year -6310 is out of range [0000-01-01, 9999-12-31]",
        ),
        (
            ValueError("year 102024 is out of range"),
            "Invalid date value: year 102024 is out of range [0000-01-01, 9999-12-31]",
        ),
        (ValueError("ordinal must be >= 1"), "Invalid date value: out of range [0000-01-01, 9999-12-31]"),
    ],
)
def test_dates_python_cannot_hold_are_invalid_date_values(log, exc, shown):
    err = failures.translate(_raised(exc), statement="SELECT DATE_ADD(dt, INTERVAL 100000 YEAR) FROM t")
    assert isinstance(err, InvalidValueError)
    assert _shown(err) == shown
    text = log.read_text()
    assert "Traceback" in text and str(exc) in text and "SELECT DATE_ADD(dt, INTERVAL 100000 YEAR) FROM t" in text


def test_anything_else_is_an_internal_error_pointing_at_the_log(log):
    err = failures.translate(_raised(KeyError("__load_seq")), statement="INSERT INTO t VALUES (1)")
    assert isinstance(err, InternalError)
    assert (err.code, err.sqlstate) == (1105, "HY000")
    assert _shown(err) == f"Internal error (see {log})"
    text = log.read_text()
    assert "KeyError: '__load_seq'" in text and "INSERT INTO t VALUES (1)" in text
    assert "ERROR 1105 (HY000): Internal error" in text


def test_a_dorisql_error_passes_through_unlogged(log):
    err = UnknownTableError("Unknown table 'x'")
    assert failures.translate(err) is err
    assert not log.exists() or "Unknown table" not in log.read_text()


def test_a_permission_error_in_a_table_says_the_warehouse_is_read_only(tmp_path, log):
    wh = tmp_path / "wh"
    exc = PermissionError(13, "Permission denied", str(wh / "d" / "t" / "_delta_log" / "00000000000000000003.json"))
    err = failures.translate(_raised(exc), warehouse=wh)
    assert isinstance(err, ReadOnlyWarehouseError) and err.code == 1290
    assert _shown(err) == (
        "The warehouse is read-only (table 'd.t' cannot be written), so it cannot execute this statement"
    )


# --------------------------------------------------------------------------- Delta


def _table(wh: Path) -> DeltaStore:
    schema = pa.schema([("k", pa.int32()), ("__partition", pa.string()), ("__bucket", pa.int32())])
    return DeltaStore.create(wh / "d" / "t", schema, properties={"dorisql.test": "1"})


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # a commit cut short
        lambda text: '{"add": {"path": 5}}\n',  # a commit with a bad action
        lambda text: "not json at all\n",  # a commit overwritten with garbage
    ],
)
def test_a_damaged_delta_log_names_its_table_and_logs_the_library_text(tmp_path, log, damage):
    wh = tmp_path / "wh"
    store = _table(wh)
    commit = Path(store.path) / "_delta_log" / "00000000000000000001.json"
    commit.write_text(damage(commit.read_text()))
    with pytest.raises(Exception) as raised:
        store.version()
    err = failures.translate(raised.value, warehouse=wh, statement="SELECT * FROM d.t")
    assert isinstance(err, StorageDamagedError) and err.table == "d.t"
    assert _shown(err) == f"Table 'd.t' storage is damaged: see ADMIN CHECK TABLE d.t and the log {log}"
    assert str(raised.value).splitlines()[0] in log.read_text()


def test_a_missing_first_commit_is_damage_too(tmp_path, log):
    wh = tmp_path / "wh"
    store = _table(wh)
    (Path(store.path) / "_delta_log" / "00000000000000000000.json").unlink()
    with pytest.raises(Exception) as raised:
        store.version()
    assert isinstance(failures.translate(raised.value, warehouse=wh), StorageDamagedError)


def test_a_delta_commit_conflict_asks_to_run_again(tmp_path, log):
    from deltalake.exceptions import CommitFailedError

    err = failures.translate(_raised(CommitFailedError("Version 3 already exists")))
    assert isinstance(err, CommitConflictError)
    assert _shown(err) == (
        "Another statement changed table at the same time; nothing was committed, run the statement again"
    )


def test_a_rust_schema_error_from_deltalake_is_internal(log):
    import deltalake  # noqa: F401  (loaded, as when the engine runs)

    exc = Exception("External error: Schema error: Duplicate field name (case-insensitive): '__load_seq'")
    err = failures.translate(_raised(exc))
    assert isinstance(err, InternalError)
    assert "Duplicate field name" in log.read_text()


# --------------------------------------------------------------------------- the log file


def test_the_default_log_is_in_the_state_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert logfile.default_log_path() == tmp_path / "state" / "dorisql" / "dorisql.log"


def test_an_unwritable_log_never_prints_on_the_terminal(tmp_path, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    logfile.open_log(blocked / "dorisql.log")
    try:
        err = failures.translate(_raised(RuntimeError("boom")))
        logging.getLogger("py4j.clientserver").error("the JVM went away")
    finally:
        logfile.close_log()
    assert isinstance(err, InternalError)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_a_dead_jvm_is_spark_stopping_not_a_py4j_message(log):
    from py4j.protocol import Py4JNetworkError

    err = failures.translate(_raised(Py4JNetworkError("Answer from Java side is empty")))
    assert _shown(err) == f"Spark stopped unexpectedly (see {log})"
    assert "Py4JNetworkError: Answer from Java side is empty" in log.read_text()
