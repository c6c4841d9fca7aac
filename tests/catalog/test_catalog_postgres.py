"""The PostgreSQL catalog's own parts: choosing it (URL, flag), passwords kept out of messages,
`dorisql catalog migrate`, and the commit locks as advisory locks (across mount points, released
when their process is killed). The store itself is tested on both backends by test_catalog_store.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dorisql import ast
from dorisql.catalog import open_catalog
from dorisql.catalog.base import RECYCLED_TABLE, LoadRecord, UserEntry
from dorisql.catalog.migrate import migrate
from dorisql.catalog.model import ViewColumn, ViewMeta
from dorisql.catalog.postgres import PostgresCatalog
from dorisql.catalog.store import SqliteCatalog
from dorisql.catalog.urls import redact
from dorisql.errors import AlreadyExistsError, CatalogError, CommitConflictError, UnknownTableError
from dorisql.storage.locks import LOCK_FILE, table_lock, tablet_lock, use_lock_service

sys.path.insert(0, str(Path(__file__).parent))
import catalog_samples as samples  # noqa: E402

DORISQL = str(Path(sys.executable).with_name("dorisql"))
T0 = dt.datetime(2024, 1, 1, 12, 0, 0)


@pytest.fixture
def cat(open_cat):
    c = open_cat()
    c.create_database("db1")
    return c


def test_users_and_load_labels(cat):
    """The parts of the store the other catalog tests leave to the engine tests, on both backends."""
    assert cat.create_user(UserEntry("jack", "%", password="*ABC"))
    assert not cat.create_user(UserEntry("jack", "%"))  # 'jack'@'%' exists: nothing written
    assert cat.get_user("jack", "%").password == "*ABC"
    changed = cat.update_user("jack", "%", lambda u: dataclasses.replace(u, comment="x"))
    assert changed.comment == "x" and cat.get_user("jack", "%") == changed
    assert [(u.name, u.host) for u in cat.list_users()] == [("admin", "%"), ("jack", "%"), ("root", "%")]
    assert cat.drop_user("jack", "%") and not cat.drop_user("jack", "%")

    t0 = dt.datetime(2024, 1, 1, 12, 0, 0)
    first = LoadRecord("db1", "l1", "t", txn_id=1, state="LOADING", created_at=t0)
    assert cat.claim_load(first) is None
    assert cat.claim_load(dataclasses.replace(first, txn_id=2)) == first  # the label is taken
    cat.update_load(dataclasses.replace(first, state="CANCELLED"))
    again = dataclasses.replace(first, txn_id=3, created_at=t0 + dt.timedelta(seconds=1))
    assert cat.claim_load(again, replace_states=("CANCELLED",)) is None  # a cancelled label is free again
    assert cat.get_load("db1", "l1") == again and cat.list_loads("db1") == [again]


def _view(db: str, name: str, query: str = "SELECT k FROM t") -> ViewMeta:
    return ViewMeta(
        0, db, name, query, (ViewColumn("k", ast.DataType("INT"), False, "key"),), comment="c", created_at=T0
    )


def test_views_intents_and_replace_table(cat, open_cat):
    """Schema 5 and 6 (txn_intents, views) and REPLACE WITH TABLE's catalog transaction, on both backends."""
    t = cat.create_table(samples.table_meta("db1", "t", n_partitions=2))
    v = cat.create_view(_view("db1", "v"))
    assert cat.get_view("db1", "v") == v and v.id > t.id
    with pytest.raises(AlreadyExistsError, match="Table 'v' already exists"):
        cat.create_view(_view("db1", "v"))
    with pytest.raises(AlreadyExistsError, match="Table 't' already exists"):  # one namespace with tables
        cat.create_view(_view("db1", "t"))
    assert cat.create_view(_view("db1", "v", "SELECT 2"), if_not_exists=True) is None
    replaced = cat.create_view(_view("db1", "v", "SELECT k + 1 AS k FROM t"), or_replace=True)
    assert (replaced.id, replaced.created_at, replaced.query) == (v.id, T0, "SELECT k + 1 AS k FROM t")
    cat.create_view(_view("db1", "a"))
    other = open_cat()  # another session sees them, ordered by name
    assert [x.name for x in other.list_views("db1")] == ["a", "v"] == [x.name for x in other.list_views()]
    assert other.get_view("db1", "v") == replaced
    assert cat.drop_view("db1", "a") is not None and cat.drop_view("db1", "a", if_exists=True) is None
    with pytest.raises(UnknownTableError):
        cat.drop_view("db1", "a")
    assert [x.name for x in other.list_views()] == ["v"]

    cat.put_txn_intent("txn-1", '{"tables": [1]}')
    cat.put_txn_intent("txn-2", '{"tables": [2]}')
    assert other.txn_intents() == [("txn-1", '{"tables": [1]}'), ("txn-2", '{"tables": [2]}')]
    assert other.drop_txn_intent("txn-1") and not cat.drop_txn_intent("txn-1")
    assert cat.txn_intents() == [("txn-2", '{"tables": [2]}')]

    # REPLACE WITH TABLE: swap exchanges the names; swap=false drops the replaced one into the bin
    u = cat.create_table(samples.table_meta("db1", "u", n_partitions=1))
    now_t, now_u = cat.replace_table("db1", "t", "u", swap=True, table_ids=(t.id, u.id))
    assert (now_t.id, now_t.name, now_t.definition.table.name, now_u.id, now_u.name) == (u.id, "t", "t", t.id, "u")
    assert other.load_table("db1", "t") == now_t and other.load_table("db1", "u") == now_u
    with pytest.raises(CommitConflictError):  # the ids the caller saw are gone: nothing changes
        cat.replace_table("db1", "t", "u", swap=True, table_ids=(t.id, u.id))
    kept, dropped = cat.replace_table("db1", "t", "u", swap=False, dropped_at=T0)
    assert (kept.id, kept.name, dropped.id) == (t.id, "t", u.id)
    assert not other.table_exists("db1", "u") and other.load_table("db1", "t").id == t.id
    assert [(e.kind, e.id, e.name) for e in other.list_recycle_bin()] == [(RECYCLED_TABLE, u.id, "t")]
    with pytest.raises(UnknownTableError, match="table not found, tableName=u"):
        cat.replace_table("db1", "t", "u", swap=True)


# --------------------------------------------------------------------------- URLs and passwords


def test_redact_takes_the_password_out():
    assert redact("postgresql://u:s3cret@h:5432/db") == "postgresql://u@h:5432/db"
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"


def test_a_password_never_reaches_a_message(postgres_server):
    url = f"postgresql://dorisql:s3cret@127.0.0.1:{postgres_server.port}/no_such_db"
    with pytest.raises(CatalogError) as info:
        PostgresCatalog(url)
    assert "s3cret" not in str(info.value) and "postgresql://dorisql@127.0.0.1" in str(info.value)
    assert 'database "no_such_db" does not exist' in str(info.value)


def test_the_catalog_flag_of_the_command(postgres_server, postgres_url, tmp_path, process_env):
    """`--catalog` (and DORISQL_CATALOG) put the catalog in PostgreSQL: nothing in the warehouse;
    an unreachable one is one clean line without the password."""
    warehouse = tmp_path / "w"
    ok = subprocess.run(
        [DORISQL, "--warehouse", str(warehouse), "--catalog", postgres_url, "-e", "CREATE DATABASE d; SHOW DATABASES"],
        env=process_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "d" in ok.stdout.split() and not (warehouse / "_catalog").exists()
    assert PostgresCatalog(postgres_url).list_databases() == ["d"]

    bad = f"postgresql://dorisql:s3cret@127.0.0.1:{postgres_server.port}/missing"
    failed = subprocess.run(
        [DORISQL, "--warehouse", str(warehouse), "-e", "SHOW DATABASES"],
        env={**process_env, "DORISQL_CATALOG": bad},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode == 1 and "s3cret" not in failed.stderr + failed.stdout
    assert "cannot connect to the catalog postgresql://dorisql@127.0.0.1" in failed.stderr
    assert "Traceback" not in failed.stderr


# --------------------------------------------------------------------------- catalog migrate


def _fill(cat) -> None:
    cat.create_database("db1", properties={"replication_num": "1"})
    t = cat.create_table(samples.table_meta("db1", "t", n_partitions=3))
    cat.create_table(samples.table_meta("db1", "gone", n_partitions=1))
    cat.drop_table("db1", "gone", dropped_at=dt.datetime(2024, 1, 1))
    cat.commit_table(dataclasses.replace(t, partitions=t.partitions[:2]))
    cat.set_config("dynamic_partition_enable", "false")
    cat.create_user(UserEntry("jack", "%", password="*ABC"))
    cat.claim_load(LoadRecord("db1", "l1", "t", 7, "FINISHED", dt.datetime(2024, 1, 2)))
    cat.create_view(_view("db1", "v"))


def test_migrate_copies_everything_into_an_empty_catalog_only(warehouse, postgres_url):
    with SqliteCatalog(warehouse) as source:
        _fill(source)
        last_id = source.next_id()
    path = warehouse / "_catalog" / "catalog.db"

    counts = migrate(f"sqlite:///{path}", postgres_url)
    assert counts == {
        "databases": 1,
        "tables": 1,
        "colocation groups": 0,
        "settings": 1,
        "users": 1,
        "load labels": 1,
        "recycle bin entries": 1,
        "transactions being committed": 0,
        "views": 1,
    }
    with SqliteCatalog(warehouse) as source, PostgresCatalog(postgres_url) as target:
        assert target.list_databases() == source.list_databases()
        assert target.get_database("db1") == source.get_database("db1")
        assert target.list_table_metas() == source.list_table_metas()
        assert target.list_recycle_bin() == source.list_recycle_bin()
        assert [e.kind for e in target.list_recycle_bin()] == [RECYCLED_TABLE]
        assert target.all_config() == source.all_config()
        assert target.list_users() == source.list_users()
        assert target.list_loads() == source.list_loads()
        assert target.list_views() == source.list_views() and target.get_view("db1", "v").query == "SELECT k FROM t"
        assert target.next_id() == last_id + 1  # the id sequence came along: no id is handed out twice

    with pytest.raises(CatalogError, match="is not empty; migrate copies into an empty catalog only"):
        migrate(f"sqlite:///{path}", postgres_url)


def test_migrate_command(warehouse, postgres_server, postgres_url, process_env):
    with SqliteCatalog(warehouse) as source:
        _fill(source)
    source_url = f"sqlite:///{warehouse / '_catalog' / 'catalog.db'}"
    ran = subprocess.run(
        [DORISQL, "catalog", "migrate", "--from", source_url, "--to", postgres_url],
        env=process_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("copied 1 databases, 1 tables,")
    again = subprocess.run(
        [DORISQL, "catalog", "migrate", "--from", source_url, "--to", postgres_url],
        env=process_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 1 and "is not empty" in again.stderr and "Traceback" not in again.stderr
    missing = subprocess.run(
        [DORISQL, "catalog", "migrate", "--from", "sqlite:////nowhere/catalog.db", "--to", postgres_url],
        env=process_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 1 and "no catalog at /nowhere/catalog.db" in missing.stderr


# --------------------------------------------------------------------------- advisory locks

_HOLDER = """
import sys, time
from dorisql.catalog import open_catalog
from dorisql.storage.locks import table_lock
open_catalog(sys.argv[1], sys.argv[2])
with table_lock(sys.argv[3]):
    print("held", flush=True)
    time.sleep(600)  # holds the lock until the test kills it
"""


def test_commit_locks_are_advisory_locks_across_mount_points_and_die_with_their_process(tmp_path, postgres_url):
    """Two mount points (symlinks) of one warehouse take the same lock; a holder killed with
    SIGKILL blocks nobody; no lock file appears in the table folder."""
    real = tmp_path / "shared"
    (real / "db" / "10001").mkdir(parents=True)
    mount_a, mount_b = tmp_path / "a", tmp_path / "b"
    mount_a.symlink_to(real)
    mount_b.symlink_to(real)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(mount_a), postgres_url, str(mount_a / "db" / "10001")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        catalog = open_catalog(mount_b, postgres_url)
        try:
            table = str(mount_b / "db" / "10001")
            with pytest.raises(CommitConflictError, match="is locked by another writer"):
                with table_lock(table, timeout=0.3):
                    pass
            with tablet_lock(table, "p1", 0):  # another lock: free
                pass
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait(timeout=30)
            with table_lock(table, timeout=30):  # the server released the dead holder's lock
                with table_lock(table, timeout=0):  # re-entrant within the thread
                    pass
            assert not (real / "db" / "10001" / LOCK_FILE).exists()
        finally:
            use_lock_service(mount_b, None)
            catalog.close()
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=30)
