"""The real ``dorisql`` command in batch mode: -e, -f, stdin, --force, formats, exit codes.

Statements that need no Spark (parse errors, CREATE/SHOW DATABASES, USE) keep these fast.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def test_version(dorisql):
    out = dorisql("-V", warehouse=False)
    assert (out.returncode, out.stdout.strip()) == (0, "dorisql 0.1.0")


def test_help_lists_the_flags(dorisql):
    out = dorisql("--help", warehouse=False)
    assert out.returncode == 0
    for flag in (
        "-e",
        "-f",
        "--force",
        "--verbose",
        "--table",
        "--batch",
        "--format",
        "--warehouse",
        "--master",
        "--conf",
        "--database",
        "--version",
        "scheduler",
    ):
        assert flag in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--format", "xml", "-e", "SHOW DATABASES"],
        ["-e", "SHOW DATABASES", "-f", "x.sql"],
        ["--no-such-flag"],
        ["--conf", "novalue", "-e", "SHOW DATABASES"],
        ["-t", "-B", "-e", "SHOW DATABASES"],  # one output shape at a time
        ["--table", "--format", "tsv", "-e", "SHOW DATABASES"],
    ],
)
def test_usage_errors_exit_2(dorisql, args):
    out = dorisql(*args)
    assert out.returncode == 2, out.stderr
    assert out.stderr


def test_missing_script_file_exits_2(dorisql):
    out = dorisql("-f", "nope.sql")
    assert out.returncode == 2
    assert "cannot open file 'nope.sql'" in out.stderr


def test_batch_mode_imports_neither_prompt_toolkit_nor_the_shell(tmp_path, shell_env):
    code = (
        "import sys; from dorisql.shell.cli import main; "
        "rc = main(['--warehouse', sys.argv[1], '-e', '']); "
        "print(rc, 'prompt_toolkit' in sys.modules, 'dorisql.shell.repl' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "w")], capture_output=True, text=True, env=shell_env, input=""
    )
    assert out.stdout.split() == ["0", "False", "False"], out.stderr


def test_shell_modules_do_not_import_pyspark(shell_env):
    code = "import sys, dorisql.shell.cli, dorisql.shell.repl, dorisql.shell.batch; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=shell_env)
    assert out.stdout.strip() == "False", out.stderr


# ---------------------------------------------------------------------------- end to end


def test_e_runs_statements_and_prints_tsv_with_a_header(dorisql, wh):
    out = dorisql("-e", "CREATE DATABASE d1; SHOW DATABASES; USE d1; SHOW TABLES")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "Database" and "d1" in lines[1:]
    assert lines[-1] == "Tables_in_d1"  # an empty set still prints its header
    assert out.stderr == ""
    assert (wh / "d1").is_dir()


def test_script_on_stdin(dorisql):
    out = dorisql(input="CREATE DATABASE s1;\n-- a comment\nSHOW DATABASES LIKE 's%';\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Database", "s1"]


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("tsv", "Database\nf1\n"),
        ("csv", "Database\nf1\n"),
        ("table", "+----------+\n| Database |\n+----------+\n| f1       |\n+----------+\n"),
    ],
)
def test_formats(dorisql, fmt, expected):
    out = dorisql("--format", fmt, "-e", "CREATE DATABASE f1; SHOW DATABASES LIKE 'f1'")
    assert (out.returncode, out.stdout) == (0, expected), out.stderr


def test_json_format(dorisql):
    out = dorisql("--format", "json", "-e", "CREATE DATABASE j1; SHOW DATABASES LIKE 'j%'")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"Database": "j1"}]


def test_jsonl_format_has_one_record_per_statement_errors_included(dorisql, tmp_path):
    (tmp_path / "script.sql").write_text(
        "CREATE DATABASE l1;\n-- a comment\nSHOW DATABASES LIKE 'l%';\nSHOW\n  DATABASSES;\nUSE l1;\n"
    )
    out = dorisql("--format", "jsonl", "--force", "-f", "script.sql")
    assert out.returncode == 1
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert records[0] == {"line": 1, "statement": "CREATE DATABASE l1", "affected_rows": 1}
    assert records[1] == {
        "line": 3,
        "statement": "SHOW DATABASES LIKE 'l%'",
        "columns": ["Database"],
        "kinds": ["str"],
        "rows": [["l1"]],
    }
    # an error names the statement's first line (its message has the exact place) and its code
    assert records[2]["line"] == 4 and records[2]["statement"] == "SHOW\n  DATABASSES"
    assert (records[2]["error"]["code"], records[2]["error"]["sqlstate"]) == (1064, "42000")
    assert "DATABASSES" in records[2]["error"]["message"]
    assert records[3] == {"line": 6, "statement": "USE l1", "affected_rows": 0}
    assert "ERROR 1064 (42000) at line 5 in file script.sql" in out.stderr


SCRIPT = """\
CREATE DATABASE ok1;
-- the next statement is misspelt
SHOW DATABASSES;
CREATE DATABASE after1;
"""


def test_a_script_stops_at_the_first_error_with_file_and_line(dorisql, tmp_path):
    (tmp_path / "script.sql").write_text(SCRIPT)
    out = dorisql("-f", "script.sql")
    assert out.returncode == 1
    first, *context = out.stderr.splitlines()
    assert first.startswith("ERROR 1064 (42000) at line 3 in file script.sql: "), out.stderr
    assert "SHOW DATABASSES;" in context[0] or "SHOW DATABASSES" in "\n".join(context)
    assert any(line.strip() == "^" or line.rstrip().endswith("^") for line in context)
    listed = dorisql("-e", "SHOW DATABASES").stdout.split()
    assert "ok1" in listed and "after1" not in listed


def test_force_goes_on_and_still_exits_1(dorisql, tmp_path):
    (tmp_path / "script.sql").write_text(SCRIPT)
    out = dorisql("--force", "-f", "script.sql")
    assert out.returncode == 1
    assert out.stderr.count("ERROR 1064 (42000) at line 3 in file script.sql") == 1
    assert "after1" in dorisql("-e", "SHOW DATABASES").stdout.split()


def test_error_line_inside_a_multi_line_statement(dorisql):
    out = dorisql(input="SHOW DATABASES;\n\nSHOW\n  DATABASSES;\n")
    assert out.returncode == 1
    assert out.stderr.startswith("ERROR 1064 (42000) at line 4: "), out.stderr


def test_engine_errors_carry_their_mysql_code(dorisql):
    out = dorisql("-e", "SHOW DATABASES;\nUSE no_such_db")
    assert out.returncode == 1
    assert out.stderr.startswith("ERROR 1049 (42000) at line 2: "), out.stderr
    assert "no_such_db" in out.stderr


def test_delimiter_and_source(dorisql, tmp_path):
    (tmp_path / "inner.sql").write_text("CREATE DATABASE src1;\nSHOW DATABASES LIKE 'src%';\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner2.sql").write_text("CREATE DATABASE src2 $$\n")
    (tmp_path / "main.sql").write_text(
        "source inner.sql\n"
        "DELIMITER //\n"
        "CREATE DATABASE semi_db//\n"
        "SHOW DATABASES LIKE 'semi;%'//\n"  # the ';' inside the string is just a character
        "SHOW DATABASES\n  LIKE 'semi_db'//\n"
        "DELIMITER ;\n"
        "\\. sub/inner2.sql\n"
    )
    out = dorisql("-f", "main.sql")
    # inner2.sql has no DELIMITER $$: its statement is unfinished and runs at the end of file,
    # where '$$' is an error reported in *that* file.
    assert out.returncode == 1
    assert " at line 1 in file sub/inner2.sql: " in out.stderr, out.stderr
    assert out.stdout.splitlines() == ["Database", "src1", "Database", "Database", "semi_db"]


def test_source_errors_report_the_sourced_file(dorisql, tmp_path):
    (tmp_path / "bad.sql").write_text("SHOW DATABASES;\nCREATE DATABAS x;\n")
    out = dorisql("-e", "source bad.sql")
    assert out.returncode == 1
    assert out.stderr.startswith("ERROR 1064 (42000) at line 2 in file bad.sql: "), out.stderr
    missing = dorisql("-e", "source nope.sql")
    assert missing.returncode == 1 and "Failed to open file 'nope.sql'" in missing.stderr


def test_exit_ends_a_script(dorisql):
    out = dorisql(input="CREATE DATABASE e1;\nexit\nCREATE DATABASE e2;\n")
    assert out.returncode == 0
    listed = dorisql("-e", "SHOW DATABASES").stdout.split()
    assert "e1" in listed and "e2" not in listed


def test_database_flag(dorisql):
    assert dorisql("-e", "CREATE DATABASE dd").returncode == 0
    out = dorisql("-D", "dd", "-e", "SHOW TABLES")
    assert (out.returncode, out.stdout) == (0, "Tables_in_dd\n"), out.stderr
    bad = dorisql("--database", "nope", "-e", "SHOW TABLES")
    assert bad.returncode == 1 and "ERROR 1049" in bad.stderr


def test_warehouse_precedence_file_env_flag(dorisql, shell_env, tmp_path):
    config = tmp_path / "home" / ".config" / "dorisql" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'warehouse = "{tmp_path / "from_file"}"\n')
    assert dorisql("-e", "CREATE DATABASE a1", warehouse=False).returncode == 0
    assert (tmp_path / "from_file" / "a1").is_dir()
    shell_env["DORISQL_WAREHOUSE"] = str(tmp_path / "from_env")
    assert dorisql("-e", "CREATE DATABASE a2", warehouse=False).returncode == 0
    assert (tmp_path / "from_env" / "a2").is_dir()
    out = dorisql("-e", "CREATE DATABASE a3")  # --warehouse wins over both
    assert out.returncode == 0, out.stderr


def test_bad_config_file_is_a_usage_error(dorisql, tmp_path):
    config = tmp_path / "home" / ".config" / "dorisql" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("warehous = 1\n")
    out = dorisql("-e", "SHOW DATABASES")
    assert out.returncode == 2
    assert "unknown setting(s): warehous" in out.stderr
