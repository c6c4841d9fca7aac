"""Cutting scripts into commands: the work is linear in the script's length."""

from __future__ import annotations

from dorisql.shell.script import iter_script
from dorisql.syntax import split


def test_a_statement_of_many_lines_is_scanned_in_linear_work(monkeypatch):
    """Each line is scanned once, not the whole statement again at every line (8,000 rows one
    per line took 99 s when each line rescanned the statement so far)."""
    scanned = []
    scan = split.scan_delimiters

    def counting_scan(text, delimiter, pos=0):
        scanned.append(len(text) - pos)
        return scan(text, delimiter, pos)

    monkeypatch.setattr(split, "scan_delimiters", counting_scan)
    rows = ",\n".join(f"({i}, 'a;b {i}', /* c;\n */ \"x\")" for i in range(5000))
    script = f"INSERT INTO t VALUES\n{rows};\nSELECT 1;\n"
    commands = list(iter_script(script))
    assert [c.text[:20] for c in commands] == ["INSERT INTO t VALUES", "SELECT 1"]
    assert commands[0].text == f"INSERT INTO t VALUES\n{rows}"
    assert sum(scanned) <= 3 * len(script)
