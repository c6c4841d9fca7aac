"""The typed statement model: what the parser produces and everything downstream consumes.

Every node is a frozen dataclass, so statements compare by value (`parse(to_sql(s)) == s`) and
can be used as dict keys. Nothing outside `dorisql.syntax` ever sees a Lark tree.

Conventions:
- Identifiers are kept as written, without backquotes. Keywords and type names are upper case.
- Literal partition values and property values are kept as text (quotes removed): typing them
  needs the table schema, which is the analyser's job (`dorisql.partitioning.keys`).
- Ordered key/value lists (properties) are tuples of pairs; `props(stmt.properties)` gives a dict.
- `pos` fields (line, column of the statement in its script) are excluded from equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

# --------------------------------------------------------------------------- values


class _MaxValue:
    """The MAXVALUE bound of a RANGE partition (a singleton)."""

    _instance: _MaxValue | None = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MAXVALUE"

    def __reduce__(self):
        return (_MaxValue, ())


MAXVALUE = _MaxValue()

#: One partition value as written: text (quotes stripped), None for NULL, or MAXVALUE.
PartitionValue = str | None | _MaxValue

Properties = tuple[tuple[str, str], ...]


def props(properties: Properties) -> dict[str, str]:
    """The properties as a dict (later keys win, as in Doris)."""
    return dict(properties)


@dataclass(frozen=True)
class Pos:
    """Where a statement starts in its script (1-based)."""

    line: int
    column: int = 1


@dataclass(frozen=True)
class TableName:
    name: str
    db: str | None = None

    def __str__(self) -> str:
        return f"{self.db}.{self.name}" if self.db else self.name


@dataclass(frozen=True)
class Literal:
    """A literal in a column DEFAULT or similar position.

    kind: "string" | "number" | "null" | "bool" | "function" (CURRENT_TIMESTAMP, CURRENT_DATE, NOW...)
    | "expr" (any other expression in INSERT ... VALUES, kept as its source text).
    For "function", `value` is the canonical call text, e.g. "CURRENT_TIMESTAMP" or "CURRENT_TIMESTAMP(3)".
    """

    value: str | None
    kind: str = "string"


# --------------------------------------------------------------------------- columns


@dataclass(frozen=True)
class DataType:
    """A Doris column type.

    name: canonical upper-case name (INT, BIGINT, LARGEINT, DECIMAL, VARCHAR, CHAR, STRING, DATE,
    DATETIME, BOOLEAN, FLOAT, DOUBLE, JSON, HLL, BITMAP, QUANTILE_STATE, ARRAY, MAP, STRUCT, ...).
    params: numeric parameters, e.g. VARCHAR(20) -> (20,), DECIMAL(27, 9) -> (27, 9), DATETIME(3) -> (3,).
    args: element types, e.g. ARRAY<INT> -> (INT,), MAP<STRING, INT> -> (STRING, INT).
    fields: STRUCT fields.
    """

    name: str
    params: tuple[int, ...] = ()
    args: tuple[DataType, ...] = ()
    fields: tuple[StructField, ...] = ()


@dataclass(frozen=True)
class StructField:
    name: str
    type: DataType
    comment: str | None = None


@dataclass(frozen=True)
class ColumnDef:
    name: str
    type: DataType
    #: SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL, HLL_UNION, BITMAP_UNION, QUANTILE_UNION, GENERIC
    agg_type: str | None = None
    #: True for NULL, False for NOT NULL, None when not written (Doris then defaults by model).
    nullable: bool | None = None
    default: Literal | None = None
    #: AUTO_INCREMENT; auto_increment_start holds AUTO_INCREMENT(n).
    auto_increment: bool = False
    auto_increment_start: int | None = None
    #: ON UPDATE CURRENT_TIMESTAMP[(n)] as canonical text.
    on_update: str | None = None
    comment: str | None = None
    #: A generated column: the expression of `[GENERATED ALWAYS] AS (expr)` as written (its rules:
    #: dorisql.syntax.generated; computed at load: dorisql.statements.load.insert).
    generated: str | None = None
    #: The KEY option was written (ALTER TABLE ADD/MODIFY COLUMN: a key column). In CREATE TABLE
    #: the key clause decides, so it takes no part in equality.
    key: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class IndexDef:
    """INDEX name (cols) [USING INVERTED|BITMAP|NGRAM_BF] [PROPERTIES(...)] [COMMENT '...']."""

    name: str
    columns: tuple[str, ...]
    using: str | None = None
    properties: Properties = ()
    comment: str | None = None


@dataclass(frozen=True)
class KeysDesc:
    """AGGREGATE KEY / UNIQUE KEY / DUPLICATE KEY (cols)."""

    type: str  # "AGGREGATE" | "UNIQUE" | "DUPLICATE"
    columns: tuple[str, ...]


# --------------------------------------------------------------------------- partitions


@dataclass(frozen=True)
class RangePartition:
    """PARTITION name VALUES LESS THAN (upper) | VALUES [(lower), (upper)).

    `lower` is None for LESS THAN (its lower bound comes from the previous partition).
    `upper == (MAXVALUE,)` for LESS THAN MAXVALUE.
    """

    name: str
    upper: tuple[PartitionValue, ...]
    lower: tuple[PartitionValue, ...] | None = None
    if_not_exists: bool = False
    properties: Properties = ()


@dataclass(frozen=True)
class ListPartition:
    """PARTITION name VALUES IN (...). Each entry of `values` is one tuple of partition-column values."""

    name: str
    values: tuple[tuple[PartitionValue, ...], ...]
    if_not_exists: bool = False
    properties: Properties = ()


@dataclass(frozen=True)
class BatchRangePartition:
    """FROM (start) TO (end) INTERVAL n [unit] — expands to many range partitions.

    unit is None for numeric columns, else YEAR | MONTH | WEEK | DAY | HOUR.
    """

    start: tuple[PartitionValue, ...]
    end: tuple[PartitionValue, ...]
    interval: int
    unit: str | None = None


PartitionItem = RangePartition | ListPartition | BatchRangePartition


@dataclass(frozen=True)
class PartitionBy:
    """PARTITION BY RANGE|LIST (cols) (items). `items` is empty for `()` (dynamic partitions).

    `auto_partition` is AUTO PARTITION BY ... (not supported: dorisql.analysis.checks refuses it).
    `expressions` is set when an entry of the partition-by list is not a plain column
    (`date_trunc(k, 'month')`): every entry as canonical text, and `columns` is then empty.
    """

    kind: str  # "RANGE" | "LIST"
    columns: tuple[str, ...]
    items: tuple[PartitionItem, ...] = ()
    auto_partition: bool = False
    expressions: tuple[str, ...] = ()


@dataclass(frozen=True)
class DistributedBy:
    """DISTRIBUTED BY HASH(cols) | RANDOM [BUCKETS n | AUTO].

    buckets is None when BUCKETS is absent or AUTO; `auto` is True only for BUCKETS AUTO.
    """

    kind: str  # "HASH" | "RANDOM"
    columns: tuple[str, ...] = ()
    buckets: int | None = None
    auto: bool = False


@dataclass(frozen=True)
class RollupDef:
    name: str
    columns: tuple[str, ...]
    duplicate_keys: tuple[str, ...] = ()
    properties: Properties = ()


# --------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Statement:
    """Base of all statements. `pos` and `text` (the statement's source) never affect equality."""

    pos: Pos | None = field(default=None, compare=False, repr=False, kw_only=True)
    text: str | None = field(default=None, compare=False, repr=False, kw_only=True)
    #: True for statements that change nothing in the warehouse (they run on a read-only one).
    reads_only: ClassVar[bool] = False


@dataclass(frozen=True)
class CreateDatabase(Statement):
    name: str
    if_not_exists: bool = False
    properties: Properties = ()


@dataclass(frozen=True)
class DropDatabase(Statement):
    name: str
    if_exists: bool = False
    force: bool = False


@dataclass(frozen=True)
class Use(Statement):
    reads_only: ClassVar[bool] = True
    db: str


@dataclass(frozen=True)
class CreateTable(Statement):
    table: TableName
    columns: tuple[ColumnDef, ...]
    indexes: tuple[IndexDef, ...] = ()
    if_not_exists: bool = False
    engine: str | None = None
    keys: KeysDesc | None = None
    comment: str | None = None
    partition: PartitionBy | None = None
    distribution: DistributedBy | None = None
    rollups: tuple[RollupDef, ...] = ()
    properties: Properties = ()
    #: CREATE TABLE ... AS <query>: `columns` is empty until the engine derives them from the
    #: query (dorisql.translate.ctas_columns).
    as_query: Query | None = None


@dataclass(frozen=True)
class CreateTableLike(Statement):
    """CREATE TABLE [IF NOT EXISTS] t LIKE source: the source's definition and partitions, no data."""

    table: TableName
    source: TableName
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropTable(Statement):
    table: TableName
    if_exists: bool = False
    force: bool = False


@dataclass(frozen=True)
class ViewColumnDef:
    """One column of CREATE VIEW's column list: the name the query's column gets, its comment."""

    name: str
    comment: str | None = None


@dataclass(frozen=True)
class CreateView(Statement):
    """CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(col [COMMENT 'c'], ...)] [COMMENT 'c'] AS query;
    ALTER VIEW v [(cols)] [COMMENT 'c'] AS query is the same with `alter` (the view must exist)."""

    table: TableName
    query: Query
    columns: tuple[ViewColumnDef, ...] = ()
    comment: str | None = None
    or_replace: bool = False
    if_not_exists: bool = False
    alter: bool = False


@dataclass(frozen=True)
class DropView(Statement):
    table: TableName
    if_exists: bool = False


@dataclass(frozen=True)
class ShowCreateView(Statement):
    reads_only: ClassVar[bool] = True
    table: TableName


@dataclass(frozen=True)
class TruncateTable(Statement):
    table: TableName
    partitions: tuple[str, ...] = ()
    #: Doris: the old partitions skip the recycle bin (and empty ones are left alone).
    force: bool = False


# ALTER TABLE actions ------------------------------------------------------------


@dataclass(frozen=True)
class AddPartition:
    """ADD PARTITION [IF NOT EXISTS] <item> [DISTRIBUTED BY ... BUCKETS n]."""

    partition: RangePartition | ListPartition
    distribution: DistributedBy | None = None
    temporary: bool = False


@dataclass(frozen=True)
class DropPartition:
    name: str
    if_exists: bool = False
    force: bool = False
    temporary: bool = False


@dataclass(frozen=True)
class SetProperties:
    """SET ("k" = "v", ...): change table properties (dynamic_partition.*, colocate_with, ...)."""

    properties: Properties


@dataclass(frozen=True)
class RenameTable:
    new_name: str


@dataclass(frozen=True)
class RenamePartition:
    old_name: str
    new_name: str


@dataclass(frozen=True)
class ReplaceTable:
    """REPLACE WITH TABLE b [PROPERTIES ("swap" = ...)] [FORCE]: the ALTERed table and `b` exchange
    names (swap, the default) or `b` takes its name and the old table is dropped (Doris
    ReplaceTableClause)."""

    table: str
    properties: Properties = ()
    force: bool = False


@dataclass(frozen=True)
class AddIndex:
    """ADD INDEX ... (also CREATE INDEX ... ON t): an index recorded in the table's definition."""

    index: IndexDef
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropIndex:
    """DROP INDEX [IF EXISTS] name (also DROP INDEX name ON t)."""

    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class UnsupportedAlter:
    """An ALTER TABLE clause that dorisql parses but does not implement (ADD (...) [TO rollup],
    ADD/DROP ROLLUP, ENABLE FEATURE, MODIFY ENGINE):
    dorisql.analysis.checks refuses it. `feature` is the name the error gives ("ALTER TABLE ... ADD
    COLUMN"); `text` is the clause as canonical source text (keywords upper case, whitespace
    normalised, comments dropped), which the generator writes back verbatim."""

    feature: str
    text: str


@dataclass(frozen=True)
class ModifyDistribution:
    """MODIFY DISTRIBUTION [DISTRIBUTED BY HASH(cols) | RANDOM [BUCKETS n | AUTO]]: the bucket
    count of partitions created from now on (Doris Env.modifyDefaultDistributionBucketNum).
    `distribution` is None when the clause names none (Doris: nothing changes)."""

    distribution: DistributedBy | None = None


@dataclass(frozen=True)
class ReplacePartition:
    """REPLACE PARTITION (p1, ...) WITH TEMPORARY PARTITION (tp1, ...) [PROPERTIES (...)] [FORCE].
    `temporary` / `with_temporary`: whether each list was written with TEMPORARY (Doris accepts
    only formal partitions replaced by temporary ones)."""

    partitions: tuple[str, ...]
    temp_partitions: tuple[str, ...]
    properties: Properties = ()
    force: bool = False
    temporary: bool = False
    with_temporary: bool = True


@dataclass(frozen=True)
class ColumnPosition:
    """FIRST (after is None) or AFTER `after`."""

    after: str | None = None


@dataclass(frozen=True)
class AddColumns:
    """ADD COLUMN c ... [FIRST | AFTER x] or ADD COLUMN (c1 ..., c2 ...); `rollup` is TO/IN r."""

    columns: tuple[ColumnDef, ...]
    position: ColumnPosition | None = None
    rollup: str | None = None
    #: PROPERTIES (...) after the clause (Doris: bloom_filter_columns ...; refused when set)
    properties: Properties = ()
    #: ADD COLUMN (c1, c2): the parenthesised form (no position allowed).
    parenthesised: bool = False


@dataclass(frozen=True)
class DropColumn:
    name: str
    rollup: str | None = None
    #: PROPERTIES (...) after the clause (Doris: bloom_filter_columns ...; refused when set)
    properties: Properties = ()


@dataclass(frozen=True)
class ModifyColumn:
    """MODIFY COLUMN c <type> ... [FIRST | AFTER x]: `column` is the new definition."""

    column: ColumnDef
    position: ColumnPosition | None = None
    rollup: str | None = None
    #: PROPERTIES (...) after the clause (Doris: bloom_filter_columns ...; refused when set)
    properties: Properties = ()


@dataclass(frozen=True)
class ModifyColumnComment:
    """MODIFY COLUMN c COMMENT '...'."""

    name: str
    comment: str


@dataclass(frozen=True)
class RenameColumn:
    old_name: str
    new_name: str


@dataclass(frozen=True)
class ReorderColumns:
    """ORDER BY (c1, c2, ...) [FROM rollup]: the table's columns in a new order."""

    columns: tuple[str, ...]
    rollup: str | None = None
    properties: Properties = ()


@dataclass(frozen=True)
class ModifyTableComment:
    """MODIFY COMMENT '...'."""

    comment: str


@dataclass(frozen=True)
class ModifyPartition:
    """MODIFY PARTITION p | (p1, p2) | (*) SET ("k" = "v", ...). `partitions` is () for (*)."""

    partitions: tuple[str, ...]
    properties: Properties
    all: bool = False


SchemaChange = (
    AddColumns | DropColumn | ModifyColumn | ModifyColumnComment | RenameColumn | ModifyTableComment | ReorderColumns
)

AlterAction = (
    AddPartition
    | DropPartition
    | SetProperties
    | RenameTable
    | RenamePartition
    | ReplacePartition
    | ReplaceTable
    | AddIndex
    | DropIndex
    | UnsupportedAlter
    | SchemaChange
    | ModifyPartition
)


@dataclass(frozen=True)
class AlterTable(Statement):
    table: TableName
    actions: tuple[AlterAction, ...]


# SHOW / DESCRIBE ---------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """`column op value` in SHOW ... WHERE. op: = != <> < <= > >= LIKE."""

    column: str
    op: str
    value: Literal


@dataclass(frozen=True)
class BoolOp:
    op: str  # "AND" | "OR"
    items: tuple[Predicate, ...]


Predicate = Comparison | BoolOp


@dataclass(frozen=True)
class OrderItem:
    column: str
    descending: bool = False


@dataclass(frozen=True)
class ShowDatabases(Statement):
    reads_only: ClassVar[bool] = True
    like: str | None = None


@dataclass(frozen=True)
class ShowTables(Statement):
    reads_only: ClassVar[bool] = True
    db: str | None = None
    like: str | None = None
    #: SHOW FULL TABLES: a Table_type column too; WHERE on the shown columns.
    full: bool = False
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowCreateTable(Statement):
    reads_only: ClassVar[bool] = True
    table: TableName


@dataclass(frozen=True)
class ShowCreateDatabase(Statement):
    reads_only: ClassVar[bool] = True
    name: str


@dataclass(frozen=True)
class ShowPartitions(Statement):
    reads_only: ClassVar[bool] = True
    table: TableName
    where: Predicate | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    offset: int | None = None
    temporary: bool = False


@dataclass(frozen=True)
class ShowAlterTableColumn(Statement):
    """SHOW ALTER TABLE COLUMN [FROM db] [WHERE] [ORDER BY] [LIMIT]: the schema change jobs (all
    FINISHED here); kind ROLLUP or MATERIALIZED VIEW: the rollup jobs (none: dorisql has no rollups)."""

    reads_only: ClassVar[bool] = True
    db: str | None = None
    where: Predicate | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    offset: int | None = None
    kind: str = "COLUMN"


@dataclass(frozen=True)
class ShowDynamicPartitionTables(Statement):
    reads_only: ClassVar[bool] = True
    db: str | None = None


@dataclass(frozen=True)
class ShowProc(Statement):
    reads_only: ClassVar[bool] = True
    path: str


@dataclass(frozen=True)
class ShowData(Statement):
    reads_only: ClassVar[bool] = True
    table: TableName | None = None


@dataclass(frozen=True)
class ShowDelete(Statement):
    """SHOW DELETE [FROM db]: the delete conditions of the database's tables."""

    reads_only: ClassVar[bool] = True
    db: str | None = None


@dataclass(frozen=True)
class ShowBuckets(Statement):
    """SHOW BUCKETS FROM [db.]t -- a dorisql extension: each partition's bucket decision."""

    reads_only: ClassVar[bool] = True

    table: TableName


@dataclass(frozen=True)
class Describe(Statement):
    reads_only: ClassVar[bool] = True
    table: TableName
    all: bool = False


@dataclass(frozen=True)
class AdminSetFrontendConfig(Statement):
    properties: Properties


@dataclass(frozen=True)
class RecoverDatabase(Statement):
    """RECOVER DATABASE name [id] [AS new_name]: back from the catalog recycle bin."""

    name: str
    id: int | None = None
    new_name: str | None = None


@dataclass(frozen=True)
class RecoverTable(Statement):
    """RECOVER TABLE [db.]name [id] [AS new_name]."""

    table: TableName
    id: int | None = None
    new_name: str | None = None


@dataclass(frozen=True)
class RecoverPartition(Statement):
    """RECOVER PARTITION name [id] [AS new_name] FROM [db.]table."""

    name: str
    table: TableName
    id: int | None = None
    new_name: str | None = None


@dataclass(frozen=True)
class ShowCatalogRecycleBin(Statement):
    """SHOW CATALOG RECYCLE BIN [WHERE NAME = 'x' | NAME LIKE 'x%']."""

    reads_only: ClassVar[bool] = True

    where: Predicate | None = None


@dataclass(frozen=True)
class AdminCleanTrash(Statement):
    """ADMIN CLEAN TRASH: delete from disk now whatever the trash rules allow."""


@dataclass(frozen=True)
class Sync(Statement):
    """SYNC: in Doris, wait for earlier loads to be visible on every frontend; a no-op here."""

    reads_only: ClassVar[bool] = True


@dataclass(frozen=True)
class Begin(Statement):
    """BEGIN / START TRANSACTION [WITH LABEL l]: the INSERTs up to COMMIT become visible together."""

    #: Changes nothing until COMMIT (a read-only warehouse refuses the INSERTs themselves).
    reads_only: ClassVar[bool] = True

    label: str | None = None


@dataclass(frozen=True)
class Commit(Statement):
    """COMMIT [WORK]: the open transaction's INSERTs, all visible at once (no transaction: nothing)."""

    reads_only: ClassVar[bool] = True


@dataclass(frozen=True)
class Rollback(Statement):
    """ROLLBACK [WORK]: the open transaction's INSERTs dropped."""

    reads_only: ClassVar[bool] = True


@dataclass(frozen=True)
class AdminSetColocationGroup(Statement):
    """ADMIN SET COLOCATION GROUP [db.]g STABLE|UNSTABLE -- a dorisql extension: Doris's balancer
    marks a group unstable while it moves replicas; here an administrator does (colocate joins
    of an unstable group fall back to ordinary joins)."""

    group: TableName
    stable: bool


@dataclass(frozen=True)
class AdminCompactTable(Statement):
    """ADMIN COMPACT TABLE [db.]t PARTITION p WHERE type = 'BASE' | 'CUMULATIVE' (Doris)."""

    table: TableName
    partitions: tuple[str, ...] = ()
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowTablets(Statement):
    """SHOW TABLETS FROM [db.]t [PARTITION (p, ...)]: each tablet's rowsets and compaction state."""

    reads_only: ClassVar[bool] = True

    table: TableName
    partitions: tuple[str, ...] = ()


@dataclass(frozen=True)
class AdminCheckTable(Statement):
    """ADMIN CHECK TABLE [db.]t -- a dorisql extension: catalog vs Delta log vs files on disk."""

    reads_only: ClassVar[bool] = True

    table: TableName


@dataclass(frozen=True)
class SetVariable(Statement):
    """SET [GLOBAL|SESSION] name = value. value is text; `kind` as for Literal."""

    reads_only: ClassVar[bool] = True

    name: str
    value: Literal
    scope: str | None = None  # "GLOBAL" | "SESSION" | None


@dataclass(frozen=True)
class Help(Statement):
    reads_only: ClassVar[bool] = True
    topic: str


# metadata statements of MySQL clients and tools (dorisql.statements.show.client_metadata) -------------


@dataclass(frozen=True)
class ShowColumns(Statement):
    """SHOW [FULL] COLUMNS|FIELDS FROM t [FROM db] [LIKE '...' | WHERE ...]."""

    reads_only: ClassVar[bool] = True
    table: TableName
    full: bool = False
    like: str | None = None
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowIndex(Statement):
    """SHOW INDEX | INDEXES | KEY | KEYS FROM t [FROM db]."""

    reads_only: ClassVar[bool] = True
    table: TableName


@dataclass(frozen=True)
class ShowTableStatus(Statement):
    """SHOW TABLE STATUS [FROM db] [LIKE '...' | WHERE ...]."""

    reads_only: ClassVar[bool] = True
    db: str | None = None
    like: str | None = None
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowVariables(Statement):
    """SHOW [GLOBAL|SESSION] VARIABLES [LIKE '...' | WHERE ...]."""

    reads_only: ClassVar[bool] = True
    scope: str | None = None
    like: str | None = None
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowWarnings(Statement):
    """SHOW WARNINGS | SHOW ERRORS [LIMIT n]: the previous statement's notes."""

    reads_only: ClassVar[bool] = True
    errors: bool = False
    limit: int | None = None
    offset: int | None = None


@dataclass(frozen=True)
class SetNames(Statement):
    """SET NAMES charset [COLLATE collation]; charset None for DEFAULT."""

    reads_only: ClassVar[bool] = True
    charset: str | None
    collation: str | None = None


@dataclass(frozen=True)
class ShowCollation(Statement):
    """SHOW COLLATION / SHOW CHARSET (`charsets`) [LIKE '...' | WHERE ...]."""

    reads_only: ClassVar[bool] = True
    charsets: bool = False
    like: str | None = None
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowFrontends(Statement):
    reads_only: ClassVar[bool] = True


@dataclass(frozen=True)
class ShowBackends(Statement):
    reads_only: ClassVar[bool] = True


# DML / queries -------------------------------------------------------------------


@dataclass(frozen=True)
class Query(Statement):
    """A SELECT (or WITH ... SELECT). `sql` is the query text as written; `tables` are the
    tables it reads (resolved by the engine against the current database)."""

    reads_only: ClassVar[bool] = True

    sql: str
    tables: tuple[TableName, ...] = ()
    #: (the text parsed, its sqlglot tree) as the parser read it: readers reuse the tree for
    #: that text only (a `replace` of `sql` leaves a stale pair), and never change it.
    parsed: tuple[str, object] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Delete(Statement):
    """DELETE FROM t [PARTITION p | PARTITIONS (p1, p2)] [alias] [USING <tables>] WHERE <condition>
    (kept as text). `using`: the USING clause's from-list as query text (Doris's
    DeleteFromUsingCommand, UNIQUE KEY tables); `alias` names the target table in it."""

    table: TableName
    partitions: tuple[str, ...] = ()
    where: str = ""
    alias: str | None = None
    using: str | None = None


@dataclass(frozen=True)
class Insert(Statement):
    """INSERT INTO t [PARTITION (...)] [(cols)] VALUES (...), ... | <query>.

    Exactly one of `rows` (VALUES, each a tuple of Literals) and `query` is set.
    """

    table: TableName
    partitions: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Literal, ...], ...] | None = None
    query: Query | None = None
    label: str | None = None
    overwrite: bool = False
    #: INSERT ... TEMPORARY PARTITION (...): `partitions` are temporary partitions.
    temporary: bool = False
    #: INSERT OVERWRITE ... PARTITION (*): the partitions the new rows fall in.
    all_partitions: bool = False


@dataclass(frozen=True)
class Update(Statement):
    """UPDATE t [alias] SET c = expr, ... [FROM ...] [WHERE ...] (Doris's UpdateCommand: an
    INSERT of the matching rows' new versions). Expressions and clauses are kept as query text
    (sqlglot's Doris dialect); `assignments` are (column name parts as written, expression)."""

    table: TableName
    assignments: tuple[tuple[tuple[str, ...], str], ...]
    alias: str | None = None
    from_sql: str | None = None
    where_sql: str | None = None


@dataclass(frozen=True)
class Explain(Statement):
    """EXPLAIN <query>."""

    reads_only: ClassVar[bool] = True

    query: Query
    verbose: bool = False


# Users and privileges (dorisql.auth) and loads --------------------------------------


@dataclass(frozen=True)
class UserIdentity:
    """'user'@'host' as Doris writes it; `host` is a pattern ('%' any, '192.168.%', 'localhost')."""

    user: str
    host: str = "%"

    def __str__(self) -> str:
        return f"'{self.user}'@'{self.host}'"


@dataclass(frozen=True)
class CreateUser(Statement):
    """CREATE USER [IF NOT EXISTS] 'u'@'h' [IDENTIFIED BY [PASSWORD] 'pw']. With PASSWORD the
    text is already MySQL's native hash ('*' + 40 hex digits)."""

    user: UserIdentity
    password: str | None = None
    password_is_hash: bool = False
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropUser(Statement):
    user: UserIdentity
    if_exists: bool = False


@dataclass(frozen=True)
class SetPassword(Statement):
    """SET PASSWORD [FOR 'u'@'h'] = PASSWORD('pw') | '*HEX' (the hash itself)."""

    password: str
    password_is_hash: bool = False
    user: UserIdentity | None = None


@dataclass(frozen=True)
class Grant(Statement):
    """GRANT privs ON db.tbl TO 'u'@'h' (`db`/`table` are '*' for all). Privileges as written,
    upper case (SELECT_PRIV, SELECT, ALL ...): dorisql.auth.privileges names them."""

    privileges: tuple[str, ...]
    db: str
    table: str
    user: UserIdentity


@dataclass(frozen=True)
class Revoke(Statement):
    privileges: tuple[str, ...]
    db: str
    table: str
    user: UserIdentity


@dataclass(frozen=True)
class ShowGrants(Statement):
    """SHOW GRANTS [FOR 'u'@'h'] | SHOW ALL GRANTS."""

    reads_only: ClassVar[bool] = True

    all: bool = False
    user: UserIdentity | None = None


@dataclass(frozen=True)
class ShowTransaction(Statement):
    """SHOW TRANSACTION [FROM db] WHERE id = N | label = 'l' | label LIKE 'l%' | status = 's':
    a load's or an explicit transaction's transaction (ShowTransactionCommand)."""

    reads_only: ClassVar[bool] = True

    db: str | None = None
    where: Predicate | None = None


@dataclass(frozen=True)
class ShowLoad(Statement):
    """SHOW LOAD / SHOW STREAM LOAD [FROM db] [WHERE ...] [ORDER BY ...] [LIMIT n [OFFSET m]]:
    recent loads with labels (Stream Loads, INSERTs, CTAS)."""

    reads_only: ClassVar[bool] = True

    stream: bool = False
    db: str | None = None
    where: Predicate | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    offset: int | None = None


@dataclass(frozen=True)
class CleanLabel(Statement):
    """CLEAN LABEL [label] FROM db: forget finished loads' labels (all of the database's, or one)."""

    db: str = ""
    label: str | None = None
