"""What a query may reach, through the real engine: table functions are found in the parsed query
(never in strings or comments), local() reads only under user_files_secure_path, s3()/hdfs()
never read local files, and only allowed functions run (no JVM calls, no environment)."""

from __future__ import annotations

import os
import shutil

import pytest

from dorisql.errors import AnalysisError, DorisqlError

from .conftest import delta_rows, delta_version, rows, run

NOTES = """CREATE TABLE IF NOT EXISTS notes (k INT, s VARCHAR(300))
    DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")"""


@pytest.fixture
def files(engine, tmp_path, monkeypatch):
    """A secure folder holding rows.csv, configured as user_files_secure_path; table `notes`."""
    secure = tmp_path / "secure"
    secure.mkdir()
    (secure / "rows.csv").write_text("1,a\n2,b\n")
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(secure))
    run(engine, NOTES)
    return secure


def _local(path, fmt="csv") -> str:
    return f'local("file_path" = "{path}", "format" = "{fmt}", "column_separator" = ",")'


def _leftover_views(engine) -> list[str]:
    return [t.name for t in engine.spark.catalog.listTables() if t.name.startswith("__")]


# ---------------------------------------------------------------------- found in the tree only


def test_string_literal_naming_a_table_function_is_data(engine, files):
    text = _local(files / "rows.csv")
    assert rows(engine, f"SELECT '{text}'") == [(text,)]
    run(engine, f"INSERT INTO notes SELECT 100, '{text}'")
    run(engine, f"INSERT INTO notes SELECT 101, s FROM notes WHERE s = '{text}'")
    assert sorted(r["s"] for r in delta_rows(engine, "notes") if r["k"] in (100, 101)) == [text, text]
    assert _leftover_views(engine) == []


def test_table_function_in_a_comment_is_ignored(engine, files):
    missing = _local("missing.csv")
    assert rows(engine, f"SELECT count(*) FROM notes /* {missing} */ WHERE k < 0") == [(0,)]
    assert rows(engine, f"SELECT 1 -- {missing}\n") == [(1,)]
    version = delta_version(engine, "notes")
    run(engine, f"INSERT INTO notes /* {missing} */ SELECT c1, c2 FROM {_local('rows.csv')} -- {missing}\n")
    assert delta_version(engine, "notes") == version + 1


def test_table_functions_anywhere_in_the_query(engine, files):
    got = rows(
        engine,
        f"""WITH f AS (SELECT * FROM {_local("rows.csv")})
        SELECT a.c1, b.c2 FROM f a JOIN (SELECT * FROM {_local("rows.csv")}) b ON a.c1 = b.c1
        WHERE a.c1 IN (SELECT c1 FROM {_local("rows.csv")} x) ORDER BY a.c1""",
    )
    assert got == [("1", "a"), ("2", "b")]
    assert _leftover_views(engine) == []
    skipped = 'local("file_path" = "rows.csv", "format" = "csv", "column_separator" = ",", "skip_lines" = "1")'
    assert rows(engine, f"SELECT * FROM {skipped}") == [("2", "b")]  # a DataFrame-only plan (Spark Connect too)
    lines = [r[0] for r in rows(engine, f"EXPLAIN SELECT * FROM {_local('rows.csv')}")]
    assert any("Scan csv" in line or "FileScan" in line for line in lines)
    with pytest.raises(AnalysisError, match="properties must be written"):
        run(engine, "SELECT * FROM local(file_path = 'rows.csv')")
    # Doris's numbers() instead of Spark's range(), which is not reachable.
    assert rows(engine, 'SELECT count(*), max(number) FROM numbers("number" = "5", "backend_num" = "2")') == [(5, 4)]
    with pytest.raises(AnalysisError, match="can not find `number` param"):
        run(engine, 'SELECT * FROM numbers("backend_num" = "2")')
    with pytest.raises(AnalysisError, match="can not parse `number` param to natural number"):
        run(engine, 'SELECT * FROM numbers("number" = "-1")')
    with pytest.raises(AnalysisError, match="Could not find table function range"):
        run(engine, "SELECT * FROM range(3)")


# ---------------------------------------------------------------------- local() confinement


def test_local_reads_only_under_the_secure_path(engine, files, tmp_path):
    assert rows(engine, f"SELECT count(*) FROM {_local('rows.csv')}") == [(2,)]
    assert rows(engine, f"SELECT count(*) FROM {_local(files / 'rows.csv')}") == [(2,)]
    assert rows(engine, f"SELECT count(*) FROM {_local('*.csv')}") == [(2,)]
    with pytest.raises(AnalysisError, match="file path is not allowed: /etc/passwd"):
        run(engine, f"SELECT * FROM {_local('/etc/passwd')}")
    with pytest.raises(AnalysisError, match=r"can not contain '\.\.' in path"):
        run(engine, f"SELECT * FROM {_local('../../etc/hostname')}")
    outside = tmp_path / "outside.csv"
    outside.write_text("secret\n")
    os.symlink(outside, files / "link.csv")
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        run(engine, f"SELECT * FROM {_local('link.csv')}")
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        run(engine, f"SELECT * FROM {_local('l*.csv')}")
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        run(engine, f"INSERT INTO notes SELECT 1, c1 FROM {_local(outside)}")
    assert _leftover_views(engine) == []
    # Like Doris's, the setting is not mutable from SQL.
    with pytest.raises(AnalysisError, match="does not exist or is not mutable"):
        run(engine, 'ADMIN SET FRONTEND CONFIG ("user_files_secure_path" = "/")')


def test_local_default_is_the_warehouse_user_files_and_the_script_folder(engine, tmp_path, monkeypatch):
    """Unset, user_files_secure_path is <warehouse>/_user_files (made by the first local() read),
    a folder that holds nothing else: never the current directory (issue 25, item 15)."""
    run(engine, NOTES)
    here, script_dir = tmp_path / "here", tmp_path / "scripts"
    for folder in (here, script_dir):
        folder.mkdir()
        (folder / "rows.csv").write_text("1,a\n")
    monkeypatch.chdir(here)
    monkeypatch.delitem(engine.config.frontend, "user_files_secure_path", raising=False)
    user_files = engine.warehouse / "_user_files"
    shutil.rmtree(user_files, ignore_errors=True)
    with pytest.raises(AnalysisError, match="file not found: rows.csv"):
        run(engine, f"SELECT c2 FROM {_local('rows.csv')}")  # not the current directory's
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        run(engine, f"SELECT c2 FROM {_local(here / 'rows.csv')}")
    assert user_files.is_dir() and os.listdir(user_files) == []
    (user_files / "rows.csv").write_text("2,b\n")
    assert rows(engine, f"SELECT c2 FROM {_local('rows.csv')}") == [("b",)]
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        run(engine, f"SELECT * FROM {_local(script_dir / 'rows.csv')}")
    # While a script runs, its own folder is readable too and relative paths start there.
    monkeypatch.setattr(engine, "base_dir", script_dir)
    assert rows(engine, f"SELECT c2 FROM {_local('rows.csv')}") == [("a",)]
    assert rows(engine, f"SELECT count(*) FROM {_local(user_files / 'rows.csv')}") == [(1,)]


def test_s3_and_hdfs_never_read_local_files(engine, files):
    with pytest.raises(AnalysisError, match="Invalid scheme: file:///etc/passwd"):
        run(engine, 'SELECT * FROM s3("uri" = "file:///etc/passwd", "format" = "csv")')
    with pytest.raises(AnalysisError, match="Invalid s3.endpoint"):
        run(engine, 'SELECT * FROM s3("uri" = "s3://b/k.csv", "s3.endpoint" = "file:///etc", "format" = "csv")')
    with pytest.raises(AnalysisError, match="please use valid 'HDFS://' or 'viewfs://' path"):
        run(engine, 'SELECT * FROM hdfs("uri" = "file:///etc/passwd", "format" = "csv")')
    with pytest.raises(AnalysisError, match="there is no schema of URI found"):
        run(engine, 'SELECT * FROM hdfs("uri" = "/etc/passwd", "format" = "csv")')
    with pytest.raises(AnalysisError, match="please use valid 'HDFS://'"):
        run(engine, 'SELECT * FROM hdfs("uri" = "hdfs://nn/x", "fs.defaultFS" = "file:///", "format" = "csv")')


# ---------------------------------------------------------------------- function allow-list


def test_jvm_and_environment_functions_are_refused(engine, files):
    for sql, name in [
        ("SELECT java_method('java.lang.System', 'getProperty', 'user.name')", "java_method"),
        ("SELECT k FROM notes WHERE k = length(reflect('java.lang.System', 'getenv', 'PATH'))", "reflect"),
        ("SELECT input_file_name() FROM notes", "input_file_name"),
        ("WITH c AS (SELECT try_reflect('java.lang.System', 'getenv', 'HOME') AS v) SELECT * FROM c", "try_reflect"),
    ]:
        with pytest.raises(AnalysisError, match=f"Can not found function '{name}'"):
            run(engine, sql)
    with pytest.raises(AnalysisError, match="Can not found function 'builtin.java_method'"):
        run(engine, "SELECT builtin.java_method('java.lang.System', 'getProperty', 'user.home')")
    # Spark's current_user() / user() would name the OS account: they answer the session's account
    assert rows(engine, "SELECT current_user(), user(), k FROM (SELECT 1 AS k) s") == [("'root'@'%'", "'root'@'%'", 1)]


def test_refused_functions_change_nothing_in_loads(engine, files):
    version = delta_version(engine, "notes")
    with pytest.raises(AnalysisError, match="Can not found function 'java_method'"):
        run(engine, "INSERT INTO notes VALUES (7, java_method('java.lang.System', 'getProperty', 'user.home'))")
    with pytest.raises(AnalysisError, match="Can not found function 'reflect'"):
        run(engine, "INSERT INTO notes SELECT 7, reflect('java.lang.System', 'getenv', 'HOME')")
    with pytest.raises(AnalysisError, match="Can not found function 'reflect'"):
        run(engine, "EXPLAIN SELECT reflect('java.lang.System', 'getenv', 'HOME')")
    with pytest.raises(DorisqlError, match="a query or table in a value"):
        run(engine, "INSERT INTO notes VALUES (7, (SELECT max(s) FROM notes))")
    assert delta_version(engine, "notes") == version
    # Allowed functions keep working, in VALUES too.
    run(engine, "INSERT INTO notes VALUES (8, concat('a', upper('b'), ifnull(NULL, 'c')))")
    assert rows(engine, "SELECT s FROM notes WHERE k = 8") == [("aBc",)]


def test_reflect_exit_does_not_stop_spark(engine):
    with pytest.raises(AnalysisError, match="Can not found function 'reflect'"):
        run(engine, "SELECT reflect('java.lang.System', 'exit', 3)")
    assert rows(engine, "SELECT 1 + 1") == [(2,)]
