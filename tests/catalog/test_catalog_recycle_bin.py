"""The catalog's recycle bin (schema version 2) and how a version-1 catalog gets it, on both backends."""

from __future__ import annotations

import dataclasses
import datetime as dt
import sys
from pathlib import Path

import pytest

from dorisql.catalog import store
from dorisql.catalog.base import (
    RECYCLED_DATABASE,
    RECYCLED_PARTITION,
    RECYCLED_TABLE,
    RecycleBinEntry,
    RecycledFile,
)
from dorisql.catalog.store import SCHEMA_VERSION
from dorisql.errors import AlreadyExistsError, CatalogError, UnknownDatabaseError

sys.path.insert(0, str(Path(__file__).parent))
import catalog_samples as samples  # noqa: E402

T1 = dt.datetime(2024, 3, 1, 12, 0, 0)


@pytest.fixture
def cat(open_cat):
    c = open_cat()
    c.create_database("db1")
    return c


def _kinds(cat) -> list[tuple[str, str]]:
    return [(e.kind, e.name) for e in cat.list_recycle_bin()]


# --------------------------------------------------------------------------- schema migration


def _downgrade_to_v1(raw_db) -> None:
    """What a dorisql 0.1 catalog looks like: version 1, no recycle bin (nor users, load labels,
    transaction intents, views)."""
    raw_db.execute(
        "DROP TABLE recycle_bin",
        "DROP TABLE users",
        "DROP TABLE load_labels",
        "DROP TABLE txn_intents",
        "DROP TABLE views",
    )
    raw_db.set_schema_version(1)


def test_a_version_1_catalog_is_migrated_once_keeping_its_data(open_cat, raw_db):
    with open_cat() as c:
        c.create_database("db1")
        t = c.create_table(samples.table_meta("db1", "t"))
    _downgrade_to_v1(raw_db)
    assert "recycle_bin" not in raw_db.tables()

    with open_cat() as c:
        assert c.load_table("db1", "t") == t
        c.drop_table("db1", "t", dropped_at=T1)
        assert _kinds(c) == [(RECYCLED_TABLE, "t")]
    # Opening it again applies nothing twice: the bin and its entry are still there.
    with open_cat() as c:
        assert _kinds(c) == [(RECYCLED_TABLE, "t")]
    assert raw_db.schema_version() == SCHEMA_VERSION
    assert {"recycle_bin", "users", "load_labels", "txn_intents", "views"} <= set(raw_db.tables())


def test_a_failed_migration_changes_nothing(open_cat, raw_db, monkeypatch):
    open_cat().close()
    _downgrade_to_v1(raw_db)
    broken = store._MIGRATIONS[2] + ";\nCREATE TABLE recycle_bin (x INTEGER)"  # fails after the first CREATE
    monkeypatch.setitem(store._MIGRATIONS, 2, broken)
    with pytest.raises(CatalogError, match="left unchanged at version 1"):
        open_cat()
    assert "recycle_bin" not in raw_db.tables()
    assert raw_db.schema_version() == 1
    monkeypatch.undo()
    with open_cat() as c:
        assert c.list_recycle_bin() == []


# --------------------------------------------------------------------------- tables


def test_drop_table_puts_it_in_the_bin_and_recover_brings_it_back(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    cat.drop_table("db1", "t", dropped_at=T1)
    assert not cat.table_exists("db1", "t")
    [entry] = cat.list_recycle_bin()
    db_id = cat.get_database("db1").id
    assert (entry.kind, entry.id, entry.name, entry.db_id, entry.db_name, entry.table_id, entry.dropped_at) == (
        RECYCLED_TABLE,
        t.id,
        "t",
        db_id,
        "db1",
        t.id,
        T1,
    )
    assert entry.table == t

    # The name is free: a new table takes it; recovering the old one then needs another name.
    cat.create_table(samples.table_meta("db1", "t"))
    with pytest.raises(AlreadyExistsError, match="Table 't' already exists"):
        cat.recover_table(entry.id)
    back = cat.recover_table(entry.id, new_name="t_old")
    assert (back.id, back.name, back.definition.table.name) == (t.id, "t_old", "t_old")
    assert back.partitions == t.partitions and back.version == t.version + 1
    assert cat.load_table("db1", "t_old") == back
    assert cat.list_recycle_bin() == []


def test_drop_table_force_skips_the_bin_and_forgets_its_partitions(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    p = t.partitions[0]
    entry = RecycleBinEntry(
        kind=RECYCLED_PARTITION,
        id=p.id,
        name=p.name,
        db_id=1,
        db_name="db1",
        table_id=t.id,
        dropped_at=T1,
        partition=p,
        storage_key=str(p.id),
        files=(RecycledFile("__partition=1/__bucket=0/a.parquet", 0, 10, 2),),
    )
    cat.update_table(
        "db1",
        "t",
        lambda m: dataclasses.replace(m, partitions=m.partitions[1:]),
        recycled=lambda before, after: [entry],
    )
    assert cat.list_recycle_bin() == [entry]
    cat.drop_table("db1", "t", force=True)
    assert cat.list_recycle_bin() == []


# --------------------------------------------------------------------------- partitions


def test_partitions_go_in_and_out_of_the_bin_with_the_table_change(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    p = t.partitions[0]

    def entry_for(before, after):
        gone = [q for q in before.partitions if q not in after.partitions]
        return [
            RecycleBinEntry(
                kind=RECYCLED_PARTITION,
                id=q.id,
                name=q.name,
                db_id=1,
                db_name="db1",
                table_id=before.id,
                dropped_at=T1,
                partition=q,
                storage_key=str(q.id),
            )
            for q in gone
        ]

    dropped = cat.update_table(
        "db1", "t", lambda m: dataclasses.replace(m, partitions=m.partitions[1:]), recycled=entry_for
    )
    assert [(e.kind, e.id) for e in cat.list_recycle_bin(table_id=t.id)] == [(RECYCLED_PARTITION, p.id)]
    # A change that fails commits neither the table nor the bin.
    with pytest.raises(CatalogError, match="no longer in the recycle bin"):
        cat.update_table(
            "db1", "t", lambda m: dataclasses.replace(m, partitions=(p,) + m.partitions), restore=p.id + 1000
        )
    assert cat.load_table("db1", "t") == dropped and len(cat.list_recycle_bin()) == 1
    back = cat.update_table("db1", "t", lambda m: dataclasses.replace(m, partitions=(p,) + m.partitions), restore=p.id)
    assert back.partition(p.name) == p
    assert cat.list_recycle_bin() == []


# --------------------------------------------------------------------------- databases


def test_drop_database_recycles_it_with_its_tables(cat):
    t1 = cat.create_table(samples.table_meta("db1", "t1"))
    t2 = cat.create_table(samples.table_meta("db1", "t2"))
    db = cat.get_database("db1")
    cat.drop_database("db1", dropped_at=T1)
    assert cat.list_databases() == []
    assert _kinds(cat) == [(RECYCLED_DATABASE, "db1"), (RECYCLED_TABLE, "t1"), (RECYCLED_TABLE, "t2")]
    [entry] = cat.list_recycle_bin(kind=RECYCLED_DATABASE)
    assert entry.table_ids == (t1.id, t2.id) and entry.database == db

    cat.create_database("db1")
    with pytest.raises(CatalogError, match=r"^Database\[db1\] already exist\.$"):
        cat.recover_database(entry.id)
    database, tables = cat.recover_database(entry.id, new_name="db_old")
    assert (database.id, database.name) == (db.id, "db_old")
    assert [(m.id, m.db, m.name, m.definition.table.db) for m in tables] == [
        (t1.id, "db_old", "t1", "db_old"),
        (t2.id, "db_old", "t2", "db_old"),
    ]
    assert cat.list_tables("db_old") == ["t1", "t2"] and cat.list_tables("db1") == []
    assert cat.list_recycle_bin() == []
    with pytest.raises(UnknownDatabaseError, match="recovered or expired"):
        cat.recover_database(entry.id)


def test_drop_database_force_skips_the_bin(cat):
    cat.create_table(samples.table_meta("db1", "t1"))
    cat.drop_database("db1", force=True)
    assert cat.list_recycle_bin() == []


def test_erase_takes_a_database_with_its_tables_and_their_partitions(cat):
    t = cat.create_table(samples.table_meta("db1", "t"))
    p = t.partitions[0]
    cat.update_table(
        "db1",
        "t",
        lambda m: dataclasses.replace(m, partitions=m.partitions[1:]),
        recycled=lambda before, after: [
            RecycleBinEntry(
                kind=RECYCLED_PARTITION,
                id=p.id,
                name=p.name,
                db_id=1,
                db_name="db1",
                table_id=t.id,
                dropped_at=T1,
                partition=p,
                storage_key=str(p.id),
            )
        ],
    )
    cat.drop_database("db1", dropped_at=T1)
    [db_entry] = cat.list_recycle_bin(kind=RECYCLED_DATABASE)
    erased = cat.erase_recycled([db_entry.id])
    assert sorted((e.kind, e.id) for e in erased) == sorted(
        [(RECYCLED_DATABASE, db_entry.id), (RECYCLED_TABLE, t.id), (RECYCLED_PARTITION, p.id)]
    )
    assert cat.list_recycle_bin() == []
    assert cat.erase_recycled([db_entry.id]) == []  # already gone: nothing for the caller to delete
