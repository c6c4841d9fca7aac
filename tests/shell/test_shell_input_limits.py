"""The real ``dorisql`` command on hostile input: deep nesting, huge statements, invalid UTF-8.
Each is one ERROR line (with its caret context) and exit code 1, never a Python traceback."""

from __future__ import annotations

import subprocess

import pytest

from shellkit import DORISQL

DEEP = {
    "parentheses": "SELECT " + "(" * 2000 + "1" + ")" * 2000,
    "NOTs": "SELECT " + "NOT " * 3000 + "TRUE",
    "ARRAY<>": "CREATE TABLE t (a " + "ARRAY<" * 1000 + "INT" + ">" * 1000 + ") DISTRIBUTED BY HASH(a) BUCKETS 1",
    "subqueries": "SELECT * FROM " + "(SELECT * FROM " * 300 + "t" + ") x" * 300,
    "VALUES": "INSERT INTO t VALUES (" + "(" * 3000 + "1" + ")" * 3000 + ")",
}


def one_error(out, head: str) -> list[str]:
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "Error:" not in out.stderr.replace("ERROR", ""), out.stderr
    lines = out.stderr.splitlines()
    assert lines[0].startswith(head), out.stderr[:500]
    assert len(lines) <= 3, out.stderr[:500]  # the message, then the caret context (line and caret)
    return lines


@pytest.mark.parametrize("shape", DEEP)
def test_deep_input_is_a_one_line_syntax_error(dorisql, shape):
    out = dorisql("-e", "SHOW DATABASES;\n" + DEEP[shape])
    [head, *_] = one_error(out, "ERROR 1064 (42000) at line 2: Syntax error at line 1, column ")
    assert head.endswith("the statement is nested too deeply (more than 100 levels)")
    assert out.stdout.splitlines()[0] == "Database"  # the statement before it ran


@pytest.mark.spark
def test_deep_input_within_the_limit_runs(dorisql):
    out = dorisql(
        "-e",
        ";\n".join(
            [
                "SELECT " + "(" * 40 + "1" + ")" * 40 + " AS x",
                "SELECT " + "NOT " * 100 + "TRUE AS x",
                "SELECT * FROM " + "(SELECT * FROM " * 30 + "(SELECT 3 AS x) t" + ") t" * 30,
                "SELECT " + "abs(" * 99 + "-4" + ")" * 99 + " AS x",
            ]
        ),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["x", "1", "x", "1", "x", "3", "x", "4"]  # (TRUE prints as 1, as in MySQL)


def test_a_statement_over_16_mib_is_refused(dorisql, tmp_path):
    script = tmp_path / "big.sql"
    script.write_text("SHOW DATABASES;\nINSERT INTO t VALUES (1, '" + "x" * (16 * 2**20) + "');\n")
    out = dorisql("-f", "big.sql")
    [head, *_] = one_error(out, "ERROR 1153 (08S01) at line 2 in file big.sql: statement too large: ")
    assert head.endswith("dorisql reads statements of up to 16777216 bytes (16 MiB, Doris's max_allowed_packet)")


BAD_UTF8 = b"SHOW DATABASES;\nSELECT 'caf\xc3\xa9 \xff';\n"
BAD_AT = "invalid UTF-8 byte 0xFF at line 2, column 14 (byte offset 30)"


def test_invalid_utf8_in_a_script_file(dorisql, tmp_path):
    (tmp_path / "bad.sql").write_bytes(BAD_UTF8)
    out = dorisql("-f", "bad.sql")
    one_error(out, f"ERROR 1105 (HY000): cannot read file 'bad.sql': {BAD_AT}")
    assert out.stdout == ""  # nothing ran


def test_invalid_utf8_on_standard_input(shell_env, wh, tmp_path):
    out = subprocess.run(
        [DORISQL, "--warehouse", str(wh)], input=BAD_UTF8, capture_output=True, env=shell_env, cwd=tmp_path, timeout=120
    )
    out.stdout, out.stderr = out.stdout.decode(), out.stderr.decode()
    one_error(out, f"ERROR 1105 (HY000): cannot read standard input: {BAD_AT}")


def test_invalid_utf8_in_a_sourced_file(dorisql, tmp_path):
    (tmp_path / "bad.sql").write_bytes(BAD_UTF8)
    (tmp_path / "outer.sql").write_text("SHOW DATABASES;\nsource bad.sql\nSHOW DATABASES;\n")
    out = dorisql("-f", "outer.sql")
    one_error(out, f"ERROR 1105 (HY000) at line 2 in file outer.sql: cannot read file 'bad.sql': {BAD_AT}")
    assert out.stdout.count("Database") == 1  # the first statement ran, the one after the error did not
