"""Apache Doris's own regression suites, translated by hand, run as ``dorisql -f`` runs them.

Each suite runs once (on first use) in its own warehouse, through the batch runner of
``dorisql -f FILE --force --format jsonl`` (`dorisql.shell.batch.run_batch`, the same statement
splitting, execution and JSON records), in this process on the shared Spark session: a
``dorisql`` process per suite would start a JVM per suite (the command line itself is tested in
tests/shell). One test per check of the suite (each ``qt_`` tag, row count, expected error ...)
plus one per suite for its plain statements, which must all succeed. See suite_runner.py and
docs/doris_suites.md.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from suite_runner import (
    SUITES,
    Suite,
    check_failure,
    load_suite,
    match_records,
    read_records,
    suite_names,
    unexpected_errors,
)


def _cases() -> list[Any]:
    cases = []
    for name in suite_names():
        suite = load_suite(name)
        cases.append(pytest.param(name, None, id=f"{name}:statements"))
        for index, (statement, check) in enumerate(suite.checks()):
            cases.append(pytest.param(name, index, id=f"{name}:{check.name}@{statement.line}"))
    return cases


@pytest.fixture(scope="session")
def suite_run(tmp_path_factory, spark, make_engine):
    """``suite_run(name)``: the suite and its records, from one ``dorisql -f`` run per suite."""
    runs: dict[str, tuple[Suite, list[dict[str, Any]]] | AssertionError] = {}

    def run(name: str) -> tuple[Suite, list[dict[str, Any]]]:
        if name not in runs:
            try:
                runs[name] = _run_suite(name, tmp_path_factory, spark, make_engine)
            except AssertionError as exc:  # every check of the suite reports it; none reruns it
                runs[name] = exc
        outcome = runs[name]
        if isinstance(outcome, AssertionError):
            raise outcome
        return outcome

    return run


def _run_suite(name: str, tmp_path_factory, spark, make_engine) -> tuple[Suite, list[dict[str, Any]]]:
    """Run the suite's script in its own warehouse; its records, checked to be one per statement."""
    from dorisql.shell.batch import run_batch
    from dorisql.shell.script import read_script

    root = tmp_path_factory.mktemp(name)
    script = SUITES / f"{name}.sql"
    engine = make_engine(root / "wh", spark=spark)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run_batch(
            engine, read_script(str(script)), filename=str(script), fmt="jsonl", force=True, out=out, err=err
        )
    finally:
        engine.close()
    suite = load_suite(name)
    records = read_records(out.getvalue())
    if len(records) != len(suite.statements):
        raise AssertionError(
            f"{name}: dorisql ran {len(records)} of {len(suite.statements)} statements "
            f"(exit {code}); stderr:\n{err.getvalue()[-3000:]}"
        )
    match_records(suite, records)
    return suite, records


@pytest.mark.parametrize(("name", "index"), _cases())
def test_doris_suite(suite_run, name: str, index: int | None) -> None:
    suite, records = suite_run(name)
    if index is None:
        failures = unexpected_errors(suite, records)
    else:
        statement, check = suite.checks()[index]
        record = records[suite.statements.index(statement)]
        failure = check_failure(suite, statement, check, record)
        failures = [failure] if failure else []
    assert not failures, f"{name} ({Path(SUITES / name).with_suffix('.sql').name}):\n\n" + "\n\n".join(failures)
