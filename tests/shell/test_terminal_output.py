"""``dorisql -f`` on a terminal tells the script's story as ``mysql --comments -t -vvv`` does:
each statement echoed between dashes (with the comments just above it), its result as a MySQL
table (``\\G``: vertical, multi-line values with their real newlines), its status line, a blank
line. In a pipe the output stays mysql -B's TSV, byte for byte; ``-t`` and ``-B`` force either.
Real ``dorisql`` processes on a real pseudo-terminal, catalog-only statements (no Spark)."""

from __future__ import annotations

import re

import pexpect

from shellkit import DORISQL

SCRIPT = """\
-- A database for the story.
CREATE DATABASE story;
USE story;

-- Two partitions by RANGE of `day`,
-- two buckets each.
CREATE TABLE t (day DATE NOT NULL, k INT) DUPLICATE KEY(day)
PARTITION BY RANGE(day) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2024-02-01"))
DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1");
SHOW TABLES; SHOW TABLES LIKE 'none';
CREATE TABLE t (k INT);
SHOW CREATE TABLE t\\G
"""

ELAPSED = r"\((?:\d+ min )?\d+\.\d\d sec\)"


def on_terminal(env, *args: str) -> tuple[str, int]:
    """`dorisql ARGS` with stdin and stdout a pseudo-terminal: (its output, its exit status)."""
    child = pexpect.spawn(DORISQL, list(args), env=env, encoding="utf-8", timeout=60, dimensions=(40, 120))
    output = child.read()
    child.close()
    return output.replace("\r\n", "\n"), child.exitstatus


def test_a_script_on_a_terminal_echoes_each_statement_with_its_table_and_status(shell_env, tmp_path, dorisql):
    script = tmp_path / "story.sql"
    script.write_text(SCRIPT)
    shown, status = on_terminal(shell_env, "--warehouse", str(tmp_path / "a"), "--force", "-f", str(script))
    assert status == 1  # the second CREATE TABLE failed; --force went on
    blocks = shown.split("--------------\n")
    # the statements as written, each with the comments just above it, between dashes
    assert blocks[1] == "-- A database for the story.\nCREATE DATABASE story\n"
    assert re.fullmatch(rf"\nQuery OK, \d+ rows? affected {ELAPSED}\n\n", blocks[2])
    assert blocks[3:5] == ["USE story\n", "\nDatabase changed\n\n"]
    assert blocks[5].startswith("-- Two partitions by RANGE of `day`,\n-- two buckets each.\nCREATE TABLE t (day DATE")
    assert blocks[5].endswith('PROPERTIES ("replication_num" = "1")\n')  # (without its `;`)
    assert re.fullmatch(rf"\nQuery OK, 0 rows affected {ELAPSED}\n\n", blocks[6])
    # a result set as a MySQL table with its row count; no rows: Empty set
    assert blocks[7] == "SHOW TABLES\n"
    table, tail = blocks[8].rsplit("\n", 3)[0], blocks[8].rsplit("\n", 3)[1:]
    assert (
        table
        == "\n+-----------------+\n| Tables_in_story |\n+-----------------+\n| t               |\n+-----------------+"
    )
    assert re.fullmatch(rf"1 row in set {ELAPSED}", tail[0]) and tail[1:] == ["", ""]
    assert blocks[9] == "SHOW TABLES LIKE 'none'\n"
    assert re.fullmatch(rf"\nEmpty set {ELAPSED}\n\n", blocks[10])
    # the failing statement is echoed; its error goes to stderr (the same terminal here)
    assert blocks[11] == "CREATE TABLE t (k INT)\n"
    assert blocks[12].startswith("\nERROR 1050 (42S01) at line 11 in file ")
    assert blocks[12].endswith("Table 't' already exists\n")
    # \G: one field a line, SHOW CREATE TABLE's newlines as newlines
    assert blocks[13] == "SHOW CREATE TABLE t\n"
    assert blocks[14].startswith(
        "\n*************************** 1. row ***************************\n"
        "       Table: t\n"
        "Create Table: CREATE TABLE `t` (\n  `day` date NOT NULL,\n  `k` int NULL\n) ENGINE=OLAP\n"
    )
    assert re.search(rf'\n"group_commit_data_bytes" = "134217728"\n\);\n1 row in set {ELAPSED}\n\n$', blocks[14])
    assert len(blocks) == 15

    # -t in a pipe: the same story (times apart)
    forced = dorisql("--warehouse", str(tmp_path / "b"), "--force", "-t", "-f", str(script), warehouse=False)
    assert forced.returncode == 1 and "Table 't' already exists" in forced.stderr
    same = re.compile(ELAPSED)
    story_only = re.sub(r"ERROR 1050[^\n]*\n", "", shown)  # (stderr, separate in a pipe)
    assert same.sub("(t)", forced.stdout) == same.sub("(t)", story_only)


def test_piped_output_is_unchanged_tsv_and_b_keeps_it_on_a_terminal(shell_env, tmp_path, dorisql):
    script = tmp_path / "story.sql"
    script.write_text(SCRIPT)
    piped = dorisql("--warehouse", str(tmp_path / "a"), "--force", "-f", str(script), warehouse=False)
    assert piped.returncode == 1
    create = piped.stdout.split("Create Table: ", 1)
    # mysql -B: no echo, no status lines, a header and tab-separated rows; \G still vertical
    assert create[0] == (
        "Tables_in_story\nt\nTables_in_story\n"
        "*************************** 1. row ***************************\n"
        "       Table: t\n"
    )
    assert create[1].startswith("CREATE TABLE `t` (\n  `day` date NOT NULL,")
    batch, status = on_terminal(shell_env, "--warehouse", str(tmp_path / "b"), "--force", "-B", "-f", str(script))
    assert status == 1
    assert re.sub(r"ERROR 1050[^\n]*\n", "", batch) == piped.stdout
    # -e on a terminal: a plain table, no echo (the statement is on the command line)
    shown, status = on_terminal(shell_env, "--warehouse", str(tmp_path / "b"), "-D", "story", "-e", "SHOW TABLES")
    assert (status, shown) == (
        0,
        "+-----------------+\n| Tables_in_story |\n+-----------------+\n| t               |\n+-----------------+\n",
    )
