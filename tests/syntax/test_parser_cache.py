"""The grammar's LALR analysis cached between processes (dorisql.syntax.parser_cache): used
when it is there, private to the user, never trusted from a folder others can write, and a
damaged file costs a rebuild, not a wrong parser."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from dorisql.syntax.parser import grammar_text
from dorisql.syntax.parser_cache import cached_lark
from dorisql.syntax.transform import ToAst

OPTIONS = dict(parser="lalr", lexer="basic", start=["statement"], maybe_placeholders=True)


def cache_files(folder):
    return sorted(p.name for p in (folder / "dorisql").glob("*"))


def test_the_second_build_reads_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = cached_lark(grammar_text(), transformer=ToAst(), **OPTIONS)
    assert first.source_path != "<deserialized>"  # analysed here
    (name,) = [n for n in cache_files(tmp_path) if not n.endswith(".lock")]
    folder = tmp_path / "dorisql"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
    second = cached_lark(grammar_text(), transformer=ToAst(), **OPTIONS)
    assert second.source_path == "<deserialized>"  # read from the file, no LALR analysis
    assert [(t.name, t.pattern.value) for t in second.terminals] == [(t.name, t.pattern.value) for t in first.terminals]
    # A changed grammar gets its own file, never the old tables.
    cached_lark(grammar_text() + "\n// changed\n", transformer=ToAst(), **OPTIONS)
    assert len([n for n in cache_files(tmp_path) if not n.endswith(".lock")]) == 2


def test_a_folder_others_can_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "dorisql").mkdir(mode=0o700)
    os.chmod(tmp_path / "dorisql", 0o777)
    parser = cached_lark(grammar_text(), transformer=ToAst(), **OPTIONS)
    assert parser.source_path != "<deserialized>" and cache_files(tmp_path) == []


def test_a_damaged_cache_file_is_rebuilt_and_the_command_works(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    parse = [
        sys.executable,
        "-c",
        "from dorisql.syntax import parse_one; print(type(parse_one('SHOW DATABASES')).__name__)",
    ]
    assert subprocess.run(parse, env=env, capture_output=True, text=True, check=True).stdout == "ShowDatabases\n"
    (name,) = [n for n in cache_files(tmp_path) if not n.endswith(".lock")]
    (tmp_path / "dorisql" / name).write_bytes(b"not a parser")
    again = subprocess.run(parse, env=env, capture_output=True, text=True, check=True)
    assert again.stdout == "ShowDatabases\n" and again.stderr == ""
    assert (tmp_path / "dorisql" / name).read_bytes() != b"not a parser"  # rewritten whole
