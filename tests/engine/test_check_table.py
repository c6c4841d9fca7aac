"""ADMIN CHECK TABLE and the storage checks statements make: a log that went backwards, a log
with a gap, files missing or left over, a catalog entry without its folder (issue 10, items 3 and 5)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from dorisql import parse
from dorisql.errors import TableStorageError
from dorisql.statements.admin.check_table import ERROR, LEFTOVER, WARNING, log_gap_findings
from dorisql.syntax.generator import to_sql

from .conftest import delta_version, partition_names, rows, run, table_path

TABLE = """CREATE TABLE {name} (k INT NOT NULL, v VARCHAR(16)) DUPLICATE KEY(k)
    PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (10), PARTITION p2 VALUES LESS THAN (20))
    DISTRIBUTED BY HASH(k) BUCKETS 2"""


def check(engine, table: str) -> list[tuple]:
    """ADMIN CHECK TABLE's rows as (Partition, Problem, Severity, Detail)."""
    result = run(engine, f"ADMIN CHECK TABLE {table}")
    assert result.columns == ["Table", "Partition", "Problem", "Severity", "Detail"]
    assert all(r[0] == f"d.{table}" for r in result.rows)
    return [tuple(r[1:]) for r in result.rows]


def problems(engine, table: str) -> list[tuple[str, str, str]]:
    return [(partition, problem, severity) for partition, problem, severity, _detail in check(engine, table)]


def commit_file(path: str, version: int) -> Path:
    return Path(path) / "_delta_log" / f"{version:020d}.json"


def make_old(path: Path, seconds: float = 7200) -> None:
    """Date a file, or a folder and everything in it, `seconds` back."""
    stamp = time.time() - seconds
    targets = [str(path)] + [os.path.join(root, name) for root, dirs, files in os.walk(path) for name in dirs + files]
    for target in targets:
        os.utime(target, (stamp, stamp))


def loaded(engine, name: str) -> str:
    run(engine, TABLE.format(name=name))
    run(engine, f"INSERT INTO {name} VALUES (1, 'a'), (11, 'b')")
    run(engine, f"INSERT INTO {name} VALUES (2, 'c')")
    return table_path(engine, name)


# ---------------------------------------------------------------------- statement


def test_statement_parses_and_prints_back():
    stmt = parse("admin check table d.t")[0]
    assert to_sql(stmt) == "ADMIN CHECK TABLE `d`.`t`"
    assert parse(to_sql(stmt))[0] == stmt


def test_healthy_table_after_drops_and_truncates_reports_nothing(engine):
    loaded(engine, "healthy")
    run(engine, "ALTER TABLE healthy DROP PARTITION p2")
    run(engine, "INSERT INTO healthy VALUES (3, 'd')")
    run(engine, "TRUNCATE TABLE healthy PARTITION (p1)")
    run(engine, "INSERT INTO healthy VALUES (4, 'e')")
    # Files removed by the drop and the truncate stay on disk, awaiting cleanup: not a problem.
    make_old(Path(table_path(engine, "healthy")))
    assert check(engine, "healthy") == []
    assert rows(engine, "SELECT k FROM healthy") == [(4,)]


# ---------------------------------------------------------------------- a log that went backwards


def test_deleted_latest_commit_is_refused_not_served_short(engine):
    path = loaded(engine, "behind")
    version = delta_version(engine, "behind")
    assert engine.catalog.load_table("d", "behind").known_delta_version == version
    lost = commit_file(path, version)
    saved = lost.read_bytes()
    lost.unlink()  # the second load's commit: before the fix, SELECT silently lost row 2

    expected = (
        f"Table 'd.behind' storage is behind its catalog: Delta log at version {version - 1}, "
        f"catalog expects >= {version}; run ADMIN CHECK TABLE d.behind"
    )
    for statement in (
        "SELECT k FROM behind",
        "INSERT INTO behind VALUES (5, 'x')",
        "TRUNCATE TABLE behind",
        "ALTER TABLE behind DROP PARTITION p2",
        'ALTER TABLE behind SET ("replication_num" = "1")',
        "SHOW PARTITIONS FROM behind",
    ):
        with pytest.raises(TableStorageError) as err:
            run(engine, statement)
        assert str(err.value) == expected, statement
    # Nothing was committed in the lost commit's place, and the catalog is unchanged.
    assert not lost.exists()
    assert [p.name for p in engine.catalog.load_table("d", "behind").partitions] == ["p1", "p2"]

    found = check(engine, "behind")
    assert [(p, problem, severity) for p, problem, severity, _ in found] == [("", "LOG_BEHIND_CATALOG", ERROR)]
    assert f"catalog expects >= {version}" in found[0][3]
    assert "1 data file(s)" in found[0][3]  # the lost load's file is still on disk

    lost.write_bytes(saved)  # restoring the commit file brings everything back
    assert sorted(rows(engine, "SELECT k, v FROM behind")) == [(1, "a"), (2, "c"), (11, "b")]
    assert check(engine, "behind") == []


def test_gap_in_the_log(engine):
    path = loaded(engine, "gappy")
    middle = commit_file(path, delta_version(engine, "gappy") - 1)
    saved = middle.read_bytes()
    middle.unlink()
    with pytest.raises(
        TableStorageError,
        match=r"^Table 'd.gappy' storage is damaged: its Delta log cannot be read "
        r"\(a commit file is missing from _delta_log\); run ADMIN CHECK TABLE d.gappy$",
    ):
        run(engine, "SELECT * FROM gappy")
    assert problems(engine, "gappy") == [("", "LOG_GAP", ERROR), ("", "LOG_UNREADABLE", ERROR)]
    middle.write_bytes(saved)
    assert check(engine, "gappy") == []


def test_gap_below_a_checkpoint_only_warns(engine):
    from deltalake import DeltaTable

    path = loaded(engine, "oldgap")
    DeltaTable(path).create_checkpoint()
    commit_file(path, 2).unlink()
    assert sorted(rows(engine, "SELECT k FROM oldgap")) == [(1,), (2,), (11,)]
    found = check(engine, "oldgap")
    assert [(p, problem, severity) for p, problem, severity, _ in found] == [("", "LOG_GAP", WARNING)]
    # Cleaned-up history from version 0 up is the log's normal cleanup: not reported.
    for version in (0, 1):
        commit_file(path, version).unlink()
    assert check(engine, "oldgap") == []


def test_log_gap_rules():
    def shown(commits, checkpoints):
        return [(f.severity, f.detail.split(" missing")[0]) for f in log_gap_findings(set(commits), set(checkpoints))]

    assert shown(range(6), ()) == []
    assert shown([0, 1, 3, 4], ()) == [(ERROR, "commit file 00000000000000000002.json is")]
    assert shown([4, 5, 6], [4]) == []  # cleaned up below the checkpoint
    assert shown([0, 3, 4, 5], [4]) == [
        (WARNING, "commit files 00000000000000000001.json .. 00000000000000000002.json are")
    ]
    assert shown([0, 1, 2, 5], [2]) == [
        (ERROR, "commit files 00000000000000000003.json .. 00000000000000000004.json are")
    ]
    assert shown([3, 4], ()) == [(ERROR, "commit files 00000000000000000000.json .. 00000000000000000002.json are")]
    assert shown([], ()) == [(ERROR, "_delta_log holds no commit and no checkpoint")]


# ---------------------------------------------------------------------- files


def test_missing_data_file(engine):
    path = loaded(engine, "nofile")
    victim = next(Path(path).glob("__partition=*/__bucket=*/*.parquet"))
    partition = partition_names(engine, "nofile")[victim.parent.parent.name.split("=", 1)[1]]
    victim.unlink()
    found = check(engine, "nofile")
    assert [(p, problem, severity) for p, problem, severity, _ in found] == [(partition, "FILE_MISSING", ERROR)]
    assert victim.name in found[0][3]


def test_leftovers_of_statements_that_never_committed(engine):
    path = Path(loaded(engine, "leftovers"))
    key = engine.catalog.load_table("d", "leftovers").partition_keys(["p1"])["p1"]
    tablet = path / f"__partition={key}" / "__bucket=0"
    tablet.mkdir(parents=True, exist_ok=True)
    sample = next(path.glob("__partition=*/__bucket=*/*.parquet"))
    shutil.copy(sample, tablet / "part-00000-crashed.c000.snappy.parquet")  # moved, never stamped
    shutil.copy(sample, tablet / "part-00001-crashed.c000.snappy.v99.parquet")  # stamped, never committed
    staging = path / "_staging" / "0123abcd" / f"__partition={key}" / "__bucket=1"
    staging.mkdir(parents=True)
    shutil.copy(sample, staging / "part-00002-x.parquet")
    # Young: perhaps a statement still running, so not judged.
    assert check(engine, "leftovers") == []
    make_old(path / "_staging")
    for f in tablet.glob("*crashed*"):
        make_old(f)
    assert problems(engine, "leftovers") == [("", "STAGING_LEFTOVER", LEFTOVER), ("p1", "UNCOMMITTED_FILES", LEFTOVER)]
    assert "2 data file(s)" in check(engine, "leftovers")[1][3]
    # They are harmless: the table reads as before.
    assert sorted(rows(engine, "SELECT k FROM leftovers")) == [(1,), (2,), (11,)]


# ---------------------------------------------------------------------- catalog vs log


def test_rows_in_a_partition_the_catalog_does_not_have(engine):
    import dataclasses

    loaded(engine, "stray")
    key = engine.catalog.load_table("d", "stray").partition_keys(["p2"])["p2"]
    # The partition left the catalog but its removal never reached the log (a lost commit).
    engine.catalog.update_table(
        "d", "stray", lambda m: dataclasses.replace(m, partitions=tuple(p for p in m.partitions if p.name != "p2"))
    )
    found = check(engine, "stray")
    assert [(p, problem, severity) for p, problem, severity, _ in found] == [(key, "UNKNOWN_PARTITION", ERROR)]
    assert "1 file(s) (1 rows" in found[0][3]
    assert sorted(rows(engine, "SELECT k FROM stray")) == [(1,), (2,)]  # queries never read them


def test_interrupted_drop_is_pending_then_finished_by_its_retry(engine):
    import dataclasses

    from dorisql.statements.ddl import partitions

    loaded(engine, "halfdrop")
    path = Path(table_path(engine, "halfdrop"))
    key = engine.catalog.load_table("d", "halfdrop").partition_keys(["p2"])["p2"]
    # DROP PARTITION killed between its catalog commit and its Delta commit.
    partitions._write_pending_drops(path, [key])
    engine.catalog.update_table(
        "d", "halfdrop", lambda m: dataclasses.replace(m, partitions=tuple(p for p in m.partitions if p.name != "p2"))
    )
    assert problems(engine, "halfdrop") == [(key, "DROP_PENDING", WARNING)]
    run(engine, "ALTER TABLE halfdrop DROP PARTITION IF EXISTS p2")
    make_old(path)
    assert check(engine, "halfdrop") == []


def test_bucket_outside_the_partition(engine):
    import dataclasses

    loaded(engine, "buckets")
    engine.catalog.update_table(
        "d",
        "buckets",
        lambda m: dataclasses.replace(m, partitions=tuple(dataclasses.replace(p, buckets=1) for p in m.partitions)),
    )
    found = problems(engine, "buckets")
    assert found and all(problem == "BUCKET_OUT_OF_RANGE" and severity == ERROR for _, problem, severity in found)


# ---------------------------------------------------------------------- a catalog entry without its folder


def test_catalog_entry_without_its_folder(engine):
    path = loaded(engine, "gone")
    shutil.rmtree(path)
    message = (
        f"Table 'd.gone' has no storage: its Delta table {Path(path).relative_to(engine.warehouse)} is missing; run ADMIN CHECK TABLE d.gone, "
        "or DROP TABLE d.gone to remove its catalog entry"
    )
    for statement in (
        "SELECT * FROM gone",
        "INSERT INTO gone VALUES (1, 'x')",
        "SHOW DATA FROM gone",
        "SHOW PARTITIONS FROM gone",
        "CREATE TABLE IF NOT EXISTS gone (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
    ):
        with pytest.raises(TableStorageError) as err:
            run(engine, statement)
        assert str(err.value) == message, statement
    assert not os.path.exists(path)  # the refused INSERT wrote nothing, not even a folder
    assert problems(engine, "gone") == [("", "STORAGE_MISSING", ERROR)]
    run(engine, "DROP TABLE gone")
    assert "gone" not in engine.catalog.list_tables("d")
    run(engine, TABLE.format(name="gone"))
    run(engine, "INSERT INTO gone VALUES (7, 'new')")
    assert rows(engine, "SELECT k FROM gone") == [(7,)]
