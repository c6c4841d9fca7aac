"""SHOW PROC: Doris's FE proc tree (common/proc/ProcService), the part dorisql has.

    /                      the directories below (column ``name``)
    /dbs                   DbsProcDir: one row per database
    /dbs/<DbId>            TablesProcDir: one row per table of that database
    /statistic             StatisticProcNode: partitions, indexes, tablets, replicas per database
    /colocation_group[/<GroupId>]   dorisql.statements.ddl.colocation_groups
    /compactions           dorisql.statements.admin.compact

Paths are read as ProcService.open reads them: they start with '/', repeated slashes count as
one, a trailing slash names the directory itself. Errors carry Doris's wording (an unknown entry:
``Proc path '<path>' doesn't exist``, ERR_WRONG_PROC_PATH). The same rows answer the HTTP API's
``GET /api/show_proc?path=...`` (dorisql.server.http).
"""

from __future__ import annotations

from collections.abc import Callable

from dorisql.catalog.model import TableMeta
from dorisql.errors import AnalysisError
from dorisql.result import Result, size_text
from dorisql.session.session import Session
from dorisql.statements.admin.compact import show_compactions
from dorisql.statements.ddl import colocation_groups
from dorisql.tablets.partition_sizes import table_stats

#: FeConstants.null_string: what a proc row shows for "no value".

NULL_STRING = "\\N"
#: Database.dataQuotaBytes / replicaQuotaSize defaults (Long.MAX_VALUE bytes prints as 1024 TB in
#: SHOW DATA; the proc row prints the quota the same way) and Config.max_running_txn_num_per_db.
DATA_QUOTA = "1024.000 TB"
REPLICA_QUOTA = 1073741824
TRANSACTION_QUOTA = 1000

DBS_COLUMNS = [
    "DbId",
    "DbName",
    "TableNum",
    "Size",
    "Quota",
    "LastConsistencyCheckTime",
    "ReplicaCount",
    "ReplicaQuota",
    "RunningTransactionNum",
    "TransactionQuota",
    "LastUpdateTime",
]
TABLES_COLUMNS = [
    "TableId",
    "TableName",
    "IndexNum",
    "PartitionColumnName",
    "PartitionNum",
    "State",
    "Type",
    "LastConsistencyCheckTime",
    "ReplicaCount",
]
STATISTIC_COLUMNS = ["DbId", "DbName", "TableNum", "PartitionNum", "IndexNum", "TabletNum", "ReplicaNum"]


def wrong_path(path: str) -> AnalysisError:
    err = AnalysisError(f"Proc path '{path}' doesn't exist")
    err.code = 5001  # ERR_WRONG_PROC_PATH
    return err


def split_path(path: str) -> list[str]:
    """The entries of a proc path (ProcService.open: it must start with '/')."""
    text = path.strip()
    if not text.startswith("/"):
        raise AnalysisError(f"Path({path}) does not start with '/'")
    return [part for part in text.split("/") if part]


def _index_num(meta: TableMeta) -> int:
    return 1 + len(meta.definition.rollups)  # the base index and its rollups


def _replicas(meta: TableMeta) -> int:
    return sum(p.buckets * p.replication_num for p in meta.partitions) * _index_num(meta)


def _size(session: Session, meta: TableMeta) -> int:
    return sum(s.data_size for s in table_stats(session, meta).values())


def root(session: Session) -> Result:
    return Result.table(["name"], [(name,) for name in DIRECTORIES])


def dbs(session: Session) -> Result:
    rows = []
    for name in session.catalog.list_databases():
        database = session.catalog.get_database(name)
        metas = session.catalog.list_table_metas(name)
        used = sum(_size(session, m) for m in metas)
        rows.append(
            (
                str(database.id),
                name,
                str(len(metas)),
                size_text(used),
                DATA_QUOTA,
                NULL_STRING,
                str(sum(_replicas(m) for m in metas)),
                str(REPLICA_QUOTA),
                "0",
                str(TRANSACTION_QUOTA),
                database.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            )
        )
    rows.sort(key=lambda row: int(row[0]))  # Doris: order by DbId
    return Result.table(DBS_COLUMNS, rows)


def _database_by_id(session: Session, text: str) -> str:
    try:
        wanted = int(text)
    except ValueError:
        raise AnalysisError(f"Invalid db id format: {text}") from None
    for name in session.catalog.list_databases():
        if session.catalog.get_database(name).id == wanted:
            return name
    raise AnalysisError(f"Database {wanted} does not exist")


def tables(session: Session, db_id: str) -> Result:
    db = _database_by_id(session, db_id)
    rows = []
    for meta in session.catalog.list_table_metas(db):
        partition = meta.definition.partition
        columns = ", ".join(partition.columns or partition.expressions) if partition is not None else ""
        rows.append(
            (
                str(meta.id),
                meta.name,
                str(_index_num(meta)),
                columns or NULL_STRING,
                str(len(meta.partitions)),
                "NORMAL",
                "OLAP",
                NULL_STRING,
                str(_replicas(meta)),
            )
        )
    rows.sort(key=lambda row: int(row[0]))  # Doris: order by TableId
    return Result.table(TABLES_COLUMNS, rows)


def statistic(session: Session) -> Result:
    rows = []
    totals = [0, 0, 0, 0, 0, 0]  # databases, tables, partitions, indexes, tablets, replicas
    for name in sorted(session.catalog.list_databases()):  # Doris: sorted by database name
        metas = session.catalog.list_table_metas(name)
        partitions = sum(len(m.partitions) for m in metas)
        indexes = sum(len(m.partitions) * _index_num(m) for m in metas)
        tablets = sum(sum(p.buckets for p in m.partitions) * _index_num(m) for m in metas)
        replicas = sum(_replicas(m) for m in metas)
        counts = (1, len(metas), partitions, indexes, tablets, replicas)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        rows.append((str(session.catalog.get_database(name).id), name, *(str(c) for c in counts[1:])))
    rows.append(("Total", *(str(c) for c in totals)))
    return Result.table(STATISTIC_COLUMNS, rows)


def _colocation(session: Session, path: str) -> Result:
    return colocation_groups.show_proc(session, path)


def _compactions(session: Session, path: str) -> Result:
    return show_compactions(session)


#: The root's entries, in ProcService's registration order (those dorisql has).
DIRECTORIES = ("dbs", "statistic", "colocation_group", "compactions")


def show_proc(session: Session, path: str) -> Result:
    """The rows of one proc path; AnalysisError for a path Doris would refuse."""
    parts = split_path(path)
    if not parts:
        return root(session)
    head, rest = parts[0], parts[1:]
    handlers: dict[str, Callable[[], Result]] = {
        "dbs": lambda: dbs(session) if not rest else tables(session, rest[0]) if len(rest) == 1 else _deeper(path),
        "statistic": lambda: statistic(session) if not rest else _not_a_directory(path, "/statistic"),
        "colocation_group": lambda: _colocation(session, path),
        "compactions": lambda: _compactions(session, path) if not rest else _not_a_directory(path, "/compactions"),
    }
    handler = handlers.get(head)
    if handler is None:
        raise wrong_path(path)
    return handler()


def _not_a_directory(path: str, node: str) -> Result:
    raise AnalysisError(f"{node} is not a directory")  # ProcService.open


def _deeper(path: str) -> Result:
    # /dbs/<id>/<table id>/... (indexes, partitions, tablets): not in dorisql's proc tree yet
    raise wrong_path(path)
