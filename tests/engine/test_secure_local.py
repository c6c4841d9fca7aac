"""local() cannot be raced out of user_files_secure_path (issue 25, item 13).

A real process swaps ``race.csv`` inside the secure folder between a regular file and a symbolic
link to a file outside (every millisecond or so) while local() reads it: what is read is always
the regular file's rows or an error, never a row of the outside file. The walk that opens the
files (dorisql.storage.local_files) is also checked directly: links inside the folder are
followed by it, links leaving it are refused, FIFOs never block, and the private copies Spark
reads are removed when the statement ends (and after a killed process, by the next read).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dorisql.errors import AnalysisError
from dorisql.query.table_functions import local_paths
from dorisql.storage import local_files
from dorisql.storage.local_files import LocalFiles

from .conftest import rows, run
from waiting import wait_until

SECRET = "root:x:0:0:the secret row\n"
INSIDE = "1,inside\n2,inside\n"

_RACER = textwrap.dedent(
    """
    import os, sys, time
    folder, secret, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    target, tmp = os.path.join(folder, "race.csv"), os.path.join(folder, ".swap")
    n = 0
    while not os.path.exists(stop):
        n += 1
        if n % 2:
            with open(tmp, "w") as f:
                f.write("1,inside\\n2,inside\\n")
        else:
            os.symlink(secret, tmp)
        os.replace(tmp, target)  # atomic: race.csv is always either a file or a link
        time.sleep(0.001)  # the race's pace (a swap every ~1 ms), not a wait
    print(n)
    """
)


@pytest.fixture
def racing(tmp_path):
    """A secure folder whose race.csv a separate process swaps between a file and a link to a
    secret outside it, every ~1 ms. Yields (secure folder, secret path); the racer's swap count
    is checked to be high, so the race really ran."""
    secure, outside = tmp_path / "secure", tmp_path / "outside"
    secure.mkdir()
    outside.mkdir()
    secret = outside / "secret.csv"
    secret.write_text(SECRET)
    (secure / "race.csv").write_text(INSIDE)
    stop = tmp_path / "stop"
    first = os.lstat(secure / "race.csv").st_ino
    racer = subprocess.Popen(
        [sys.executable, "-c", _RACER, str(secure), str(secret), str(stop)], stdout=subprocess.PIPE, text=True
    )
    # racing once it has replaced race.csv (os.replace: another inode)
    wait_until(lambda: os.lstat(secure / "race.csv").st_ino != first, 30, "the racer's first swap")
    try:
        yield secure, secret
    finally:
        stop.touch()
        out, _ = racer.communicate(timeout=30)
    assert racer.returncode == 0
    assert int(out) > 20, "the racer hardly swapped: the test did not race anything"


def test_staging_under_a_racing_swap_never_reads_the_outside_file(racing, tmp_path):
    """Thousands of opens and copies while the file is swapped: each copy holds the regular
    file's bytes, or the open refused the link; both outcomes happen, a leak never does."""
    secure, _secret = racing
    staging = LocalFiles(tmp_path / "wh")
    outcomes = {"read": 0, "refused": 0, "missing": 0}
    for _ in range(3000):
        try:
            (copy,) = staging.stage(secure / "race.csv", [secure.resolve()], "race.csv")
            text = copy.read_text()
            assert text == INSIDE, f"read {text!r}"
            outcomes["read"] += 1
        except AnalysisError as err:
            if "file not found" in str(err):
                outcomes["missing"] += 1
            else:
                assert str(err).startswith("file path is not allowed: "), err
                assert "race.csv" not in str(err)  # names where the link leads
                outcomes["refused"] += 1
        finally:
            staging.release()
    assert outcomes["read"] > 100 and outcomes["refused"] > 100, outcomes
    assert os.listdir(tmp_path / "wh" / "_staging" / "local") == []


@pytest.mark.parametrize("how", ["select", "insert"])
def test_local_under_a_racing_swap_never_returns_outside_rows(engine, racing, monkeypatch, how):
    """The issue's probe: SELECT (and INSERT ... SELECT) from local('race.csv') while it is swapped."""
    secure, _secret = racing
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(secure))
    run(
        engine,
        "CREATE TABLE IF NOT EXISTS raced (k VARCHAR(60), v VARCHAR(60)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    source = 'local("file_path" = "race.csv", "format" = "csv", "column_separator" = ",")'
    seen, refused = set(), 0
    for _ in range(40):
        try:
            if how == "select":
                seen.update(rows(engine, f"SELECT * FROM {source}"))
            else:
                run(engine, f"INSERT INTO raced SELECT c1, c2 FROM {source}")
        except AnalysisError as err:
            assert "file path is not allowed" in str(err) or "file not found" in str(err), err
            refused += 1
    if how == "insert":
        seen = set(rows(engine, "SELECT k, v FROM raced"))
        run(engine, "DROP TABLE raced FORCE")
    assert seen == {("1", "inside"), ("2", "inside")}, seen
    assert 0 < refused < 40  # both outcomes happened: the race was real
    assert os.listdir(engine.warehouse / "_staging" / "local") == []  # every copy removed


def test_local_reads_a_copy_removed_after_the_statement(engine, tmp_path, monkeypatch):
    secure = tmp_path / "secure"
    (secure / "sub").mkdir(parents=True)
    (secure / "sub" / "a.csv").write_text("1,a\n")
    (secure / "sub" / "b.csv").write_text("2,b\n")
    monkeypatch.setitem(engine.config.frontend, "user_files_secure_path", str(secure))
    source = 'local("file_path" = "{}", "format" = "csv", "column_separator" = ",")'
    assert sorted(rows(engine, f"SELECT * FROM {source.format('sub/*.csv')}")) == [("1", "a"), ("2", "b")]
    assert sorted(rows(engine, f"SELECT * FROM {source.format('sub')}")) == [("1", "a"), ("2", "b")]
    assert os.listdir(engine.warehouse / "_staging" / "local") == []
    with pytest.raises(AnalysisError, match="file not found: sub/none.csv"):
        run(engine, f"SELECT * FROM {source.format('sub/none.csv')}")
    assert os.listdir(engine.warehouse / "_staging" / "local") == []


# ---------------------------------------------------------------------- the walk itself


@pytest.fixture
def tree(tmp_path):
    secure, outside = tmp_path / "secure", tmp_path / "outside"
    (secure / "d" / "e").mkdir(parents=True)
    outside.mkdir()
    (secure / "a.csv").write_text("a\n")
    (secure / "d" / "e" / "deep.csv").write_text("deep\n")
    (outside / "secret.csv").write_text(SECRET)
    return tmp_path


def test_links_inside_the_secure_folder_are_followed_by_the_walk(tree):
    secure = tree / "secure"
    os.symlink("../a.csv", secure / "d" / "up.csv")  # relative, with '..' inside the folder
    os.symlink(secure / "d" / "e", secure / "abs")  # absolute, to a folder inside
    os.symlink("d/up.csv", secure / "chain.csv")  # a link to a link
    assert local_paths("d/up.csv", None, str(secure)) == [secure / "a.csv"]
    assert local_paths("abs/deep.csv", None, str(secure)) == [secure / "d" / "e" / "deep.csv"]
    assert local_paths("chain.csv", None, str(secure)) == [secure / "a.csv"]


def test_links_leaving_the_secure_folder_are_refused_wherever_they_are(tree):
    secure, outside = tree / "secure", tree / "outside"
    os.symlink("../../outside/secret.csv", secure / "d" / "out.csv")
    os.symlink(outside, secure / "d" / "e" / "far")
    os.symlink("/etc", secure / "etc")
    for path, shown in [
        ("d/out.csv", outside / "secret.csv"),
        ("d/e/far/secret.csv", outside / "secret.csv"),
        ("etc/passwd", Path("/etc/passwd")),
        ("d", outside),  # a folder read whole: its link is refused too
    ]:
        with pytest.raises(AnalysisError, match=f"^file path is not allowed: {shown}$"):
            local_paths(path, None, str(secure))


def test_link_loops_and_fifos_are_errors_not_hangs(tree):
    secure = tree / "secure"
    os.symlink("loop2", secure / "loop1")
    os.symlink("loop1", secure / "loop2")
    with pytest.raises(AnalysisError, match="too many levels of symbolic links"):
        local_paths("loop1", None, str(secure))
    os.mkfifo(secure / "pipe.csv")  # an open without O_NONBLOCK would wait for a writer for ever
    with pytest.raises(AnalysisError, match="not a regular file: .*pipe.csv"):
        local_paths("pipe.csv", None, str(secure))
    os.symlink("..", secure / "d" / "e" / "parent")  # a folder that contains itself
    with pytest.raises(AnalysisError, match="symbolic link loop"):
        local_paths("d", None, str(secure))


def test_copies_hold_what_was_opened_and_go_with_the_statement(tree):
    secure, warehouse = tree / "secure", tree / "wh"
    staging = LocalFiles(warehouse)
    (copy,) = staging.stage(secure / "a.csv", [secure], "a.csv")
    assert copy.read_text() == "a\n"
    assert os.stat(copy).st_ino == os.stat(secure / "a.csv").st_ino  # one file system: a hard link
    assert copy.is_relative_to(warehouse / "_staging" / "local")
    (secure / "a.csv").unlink()
    os.symlink(tree / "outside" / "secret.csv", secure / "a.csv")  # a swap after the open
    assert copy.read_text() == "a\n"
    staging.release()
    assert os.listdir(warehouse / "_staging" / "local") == []
    staging.release()  # twice: harmless


def test_a_killed_process_copies_are_removed_by_the_next_read(tree):
    """A process dies holding its statement's copies: the next local() read of any process
    removes them; a live statement's copies are never touched."""
    secure, warehouse = tree / "secure", tree / "wh"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from dorisql.storage.local_files import LocalFiles;"
            f"LocalFiles(Path({str(warehouse)!r})).stage(Path({str(secure / 'a.csv')!r}), [Path({str(secure)!r})], 'a');"
            "print('staged', flush=True); time.sleep(600)",  # holds its copies until it is killed
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline() == "staged\n"
    base = warehouse / "_staging" / "local"
    live = LocalFiles(warehouse)
    live.stage(secure / "a.csv", [secure], "a")
    (dead,) = [n for n in os.listdir(base) if n.endswith(".lock") and (base / n).stem != live._folder.name]
    assert local_files.sweep(base) == []  # both held
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert local_files.sweep(base) == [dead[: -len(".lock")]]
    assert sorted(os.listdir(base)) == sorted([live._folder.name, live._folder.name + ".lock"])
    live.release()
    assert os.listdir(base) == []


def test_a_copy_when_the_warehouse_is_on_another_file_system(tree):
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tree).st_dev:
        pytest.skip("no second file system (/dev/shm) to put the secure folder on")
    import tempfile

    with tempfile.TemporaryDirectory(dir=shm) as other:
        secure = Path(other)
        (secure / "a.csv").write_text("a\n")
        staging = LocalFiles(tree / "wh")
        (copy,) = staging.stage(secure / "a.csv", [secure], "a.csv")
        assert copy.read_text() == "a\n" and os.stat(copy).st_dev != os.stat(secure / "a.csv").st_dev
        staging.release()


def test_a_read_only_warehouse_still_reads_local_files(tree):
    """Where the warehouse cannot be written (a read-only bind mount, which stops root too), the
    copies go to a private temporary folder, removed after the statement."""
    import shlex
    import shutil

    secure, warehouse = tree / "secure", tree / "wh"
    warehouse.mkdir()
    script = (
        "from pathlib import Path; from dorisql.storage.local_files import LocalFiles;"
        f"s = LocalFiles(Path({str(warehouse)!r})); (c,) = s.stage(Path({str(secure / 'a.csv')!r}), "
        f"[Path({str(secure)!r})], 'a'); print(c, repr(c.read_text())); s.release(); print(c.exists())"
    )
    folder = shlex.quote(str(warehouse))
    mount = f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} {folder}"
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "sh", "-c", mount]).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("CI runs as root with unshare: a read-only bind mount must be possible")
        pytest.skip("this machine cannot make a private read-only bind mount (needs root and unshare)")
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"{mount} && exec {shlex.quote(sys.executable)} -c {shlex.quote(script)}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    copy, text, exists = done.stdout.split()
    assert text == repr("a\n") and not Path(copy).is_relative_to(warehouse) and exists == "False"
