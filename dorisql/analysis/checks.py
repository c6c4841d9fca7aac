"""Catalog-free semantic checks and CREATE TABLE normalisation (Doris's rules and messages).

`check(stmt)` raises AnalysisError / NotSupportedError for what Doris would refuse without
looking at the catalog; `normalize_create_table(stmt)` fills in Doris's defaults so the engine
stores a complete definition. Messages follow current Doris FE (Nereids CreateTableInfo,
ColumnDefinition, PartitionTableInfo, DistributionDescriptor, PropertyAnalyzer, ParseUtil).
"""

from __future__ import annotations

import dataclasses
import re

from dorisql import ast, table_properties
from dorisql import types as doris_types
from dorisql.analysis import indexes
from dorisql.bucketing.bucket_limits import bucket_limit_error
from dorisql.errors import AnalysisError, NotSupportedError, UnsupportedOperationError
from dorisql.partitioning import auto_partitions as auto
from dorisql.partitioning import keys as K
from dorisql.partitioning.dynamic import validate_properties
from dorisql.partitioning.temporary import replace_options

#: Doris FeConstants.default_bucket_num: BUCKETS omitted after DISTRIBUTED BY.
DEFAULT_BUCKET_NUM = 10
#: Doris session variable create_table_partition_max_num.
CREATE_TABLE_PARTITION_MAX_NUM = 10000
#: Doris FeConstants.shortkey_max_column_count / shortkey_maxsize_bytes.
SHORTKEY_MAX_COLUMN_COUNT = 3
SHORTKEY_MAXSIZE_BYTES = 36

KEYS_TYPE_NAME = {"AGGREGATE": "AGG_KEYS", "UNIQUE": "UNIQUE_KEYS", "DUPLICATE": "DUP_KEYS"}
AGG_TYPES = (
    "SUM",
    "MAX",
    "MIN",
    "REPLACE",
    "REPLACE_IF_NOT_NULL",
    "HLL_UNION",
    "BITMAP_UNION",
    "QUANTILE_UNION",
    "GENERIC",
    "NONE",
)

_DATA_VOLUME_UNITS = {
    "B": 1,
    "K": 1024,
    "KB": 1024,
    "M": 1024**2,
    "MB": 1024**2,
    "G": 1024**3,
    "GB": 1024**3,
    "T": 1024**4,
    "TB": 1024**4,
    "P": 1024**5,
    "PB": 1024**5,
}
_DATA_VOLUME_RE = re.compile(r"^(\d+)(\D*)$")


#: Doris FeNameFormat.COLUMN_NAME_REGEX (enable_unicode_name_support off, Doris's default), as
#: Doris prints it, and the same in Python (Java's \s is ASCII whitespace only).
COLUMN_NAME_REGEX = r'^[_a-zA-Z@0-9\s/][.a-zA-Z0-9_+-/?@#$%^&*"\s,:]{0,255}$'
_COLUMN_NAME = re.compile(r'[_a-zA-Z@0-9 \t\n\x0b\f\r/][.a-zA-Z0-9_+-/?@#$%^&*" \t\n\x0b\f\r,:]{0,255}')
#: Doris SchemaChangeHandler.SHADOW_NAME_PREFIX; CreateMaterializedViewStmt's MV column prefixes.
SHADOW_NAME_PREFIX = "__doris_shadow_"
MV_NAME_PREFIXES = ("mv_", "mva_")
#: Columns dorisql adds to a table's data files (catalog.model, tablets.tables), and the prefix of
#: the names it uses inside queries and loads: a user column with one of them would clash.
DORISQL_HIDDEN_COLUMNS = ("__partition", "__bucket", "__load_seq", "__row_seq", "__commit_seq")
DORISQL_NAME_PREFIX = "__dorisql"


# --------------------------------------------------------------------------- helpers


def check_column_name(name: str) -> None:
    """Doris FeNameFormat.checkColumnName, then the names dorisql keeps for itself (any case)."""
    if not name or not _COLUMN_NAME.fullmatch(name) or name.startswith(SHADOW_NAME_PREFIX):
        raise AnalysisError(f"Incorrect column name '{name}'. Column regex is '{COLUMN_NAME_REGEX}'")
    if name.startswith(MV_NAME_PREFIXES):
        raise AnalysisError(f"Incorrect column name {name}, column name can't start with 'mv_'/'mva_'")
    if name.lower() in DORISQL_HIDDEN_COLUMNS or name.lower().startswith(DORISQL_NAME_PREFIX):
        raise AnalysisError(
            f"Incorrect column name '{name}'. {', '.join(DORISQL_HIDDEN_COLUMNS)} and names "
            f"starting with {DORISQL_NAME_PREFIX} are reserved by dorisql"
        )


def parse_data_volume(text: str) -> int:
    """Bytes in a data volume such as '100G', '10GB', '500M', '1T', '1024' (Doris
    ParseUtil.analyzeDataVolume: digits then an optional unit B/K/KB/M/MB/G/GB/T/TB/P/PB,
    case-insensitive, powers of 1024)."""
    m = _DATA_VOLUME_RE.match(text)
    if not m:
        raise AnalysisError(f"invalid data volumn expression:{text}")
    value = int(m.group(1))
    if value <= 0:
        raise AnalysisError("Data volumn must larger than 0")
    unit = (m.group(2) or "B").upper()
    if unit not in _DATA_VOLUME_UNITS:
        raise AnalysisError(f"invalid unit:{m.group(2)}")
    return value * _DATA_VOLUME_UNITS[unit]


def _column_map(stmt: ast.CreateTable) -> dict[str, ast.ColumnDef]:
    return {c.name.lower(): c for c in stmt.columns}


def _default_nullable(c: ast.ColumnDef) -> bool:
    """Doris 2.x: a column without NULL/NOT NULL is nullable, except the aggregate-state types
    (HLL, BITMAP, QUANTILE_STATE, AGG_STATE), which Doris requires to be NOT NULL."""
    if doris_types.canonical(c.type).name in doris_types.AGG_ONLY_TYPES:
        return False
    return True


def _nullable(c: ast.ColumnDef) -> bool:
    """The column's nullability as stored: as written, else Doris's default; the aggregate-state
    types are NOT NULL even when written NULL (current Doris accepts `b BITMAP BITMAP_UNION NULL`,
    e.g. regression suite test_analyze_with_agg_complex_type)."""
    if doris_types.canonical(c.type).name in doris_types.AGG_ONLY_TYPES:
        return False
    return c.nullable if c.nullable is not None else _default_nullable(c)


def _agg_compatible(agg: str, t: ast.DataType) -> bool:
    """Doris AggregateType.checkCompatibility."""
    n = doris_types.canonical(t).name
    if agg == "SUM":
        return n in doris_types.INTEGER_TYPES or n in doris_types.FLOAT_TYPES or n == "DECIMAL"
    if agg in ("MAX", "MIN"):
        return (
            n in doris_types.INTEGER_TYPES
            or n in doris_types.FLOAT_TYPES
            or n in ("DECIMAL", "DATE", "DATETIME", "CHAR", "VARCHAR", "STRING", "BOOLEAN", "IPV4", "IPV6")
        )
    if agg in ("REPLACE", "REPLACE_IF_NOT_NULL", "NONE", "GENERIC"):
        return True
    if agg == "HLL_UNION":
        return n == "HLL"
    if agg == "BITMAP_UNION":
        return n == "BITMAP"
    if agg == "QUANTILE_UNION":
        return n == "QUANTILE_STATE"
    return False


def default_keys(columns: tuple[ast.ColumnDef, ...]) -> ast.KeysDesc:
    """Doris's keys when no KEY clause is written (CreateTableInfo.validate).

    With aggregate columns: AGGREGATE KEY of the leading columns before the first one with an
    aggregate type. Otherwise DUPLICATE KEY of the leading columns, stopping after 3 columns or
    36 bytes of short key, before a FLOAT/DOUBLE/STRING/JSON/complex column, and after the first
    VARCHAR (a first column that alone exceeds the limits is still taken if it is a string).
    """
    if any(c.agg_type for c in columns):
        keys: list[str] = []
        for c in columns:
            if c.agg_type:
                break
            keys.append(c.name)
        return ast.KeysDesc("AGGREGATE", tuple(keys))
    keys = []
    length = 0
    for c in columns:
        t = doris_types.canonical(c.type)
        length += doris_types.index_size(t)
        if len(keys) >= SHORTKEY_MAX_COLUMN_COUNT or length > SHORTKEY_MAXSIZE_BYTES:
            if not keys and t.name in doris_types.STRING_TYPES:
                keys.append(c.name)
            break
        if (
            t.name in doris_types.FLOAT_TYPES
            or t.name in ("STRING", "JSON", "VARIANT")
            or t.name in doris_types.COMPLEX_TYPES
            or t.name in doris_types.AGG_ONLY_TYPES
        ):
            break
        keys.append(c.name)
        if t.name == "VARCHAR":
            break
    if not keys:
        raise AnalysisError(
            "The olap table first column could not be float, double, string or "
            "array, struct, map, please use decimal or varchar instead."
        )
    return ast.KeysDesc("DUPLICATE", tuple(keys))


# --------------------------------------------------------------------------- normalisation


def normalize_create_table(stmt: ast.CreateTable, *, check_first: bool = True) -> ast.CreateTable:
    """The CREATE TABLE with Doris's defaults filled in (after `check`, unless check_first=False).

    - engine: OLAP.
    - column types: canonical names and default parameters (VARCHAR -> VARCHAR(65533),
      DATEV2 -> DATE, DECIMAL -> DECIMAL(9, 0)...).
    - nullable: as written; unwritten -> nullable (Doris 2.x ColumnNullableType.DEFAULT), except
      HLL/BITMAP/QUANTILE_STATE/AGG_STATE which are NOT NULL.
    - keys: `default_keys` when no KEY clause.
    - UNIQUE KEY: "enable_unique_key_merge_on_write" = "true" unless set (Doris 2.1+ default).
    - distribution: omitted -> DISTRIBUTED BY RANDOM BUCKETS AUTO (CreateTableInfo:
      DistributionDescriptor(false, true, default_bucket_num)); BUCKETS omitted ->
      BUCKETS 10 (FeConstants.default_bucket_num).
    """
    if check_first:
        check(stmt)
    stmt = with_auto_partition_column(stmt)
    columns = []
    for c in stmt.columns:
        nullable = _nullable(c)
        columns.append(
            dataclasses.replace(
                c,
                type=doris_types.canonical(c.type),
                nullable=nullable,
                agg_type=c.agg_type.upper() if c.agg_type else None,
            )
        )
    columns_t = tuple(columns)
    keys = stmt.keys
    if keys is None:
        keys = default_keys(columns_t)
    else:
        keys = ast.KeysDesc(keys.type.upper(), keys.columns)
    # Doris consumes distribution_hash_type into the distribution (PropertyAnalyzer.
    # analyzeDistributionHashType): crc32, the default, is then what no property says, and SHOW
    # CREATE TABLE prints none (suite test_distribution_hash_type_identity).
    properties = tuple(
        (k, v) for k, v in stmt.properties if (k.lower(), v.strip().lower()) != ("distribution_hash_type", "crc32")
    )
    if keys.type == "UNIQUE" and "enable_unique_key_merge_on_write" not in ast.props(properties):
        properties = properties + (("enable_unique_key_merge_on_write", "true"),)
    dist = stmt.distribution
    if dist is None:
        dist = ast.DistributedBy("RANDOM", (), None, auto=True)
    elif not dist.auto and dist.buckets is None:
        dist = dataclasses.replace(dist, buckets=DEFAULT_BUCKET_NUM)
    dist = dataclasses.replace(dist, kind=dist.kind.upper())
    partition = stmt.partition
    if partition is not None:
        partition = dataclasses.replace(partition, kind=partition.kind.upper())
    normalized = dataclasses.replace(
        stmt,
        columns=columns_t,
        keys=keys,
        distribution=dist,
        properties=properties,
        partition=partition,
        engine=(stmt.engine or "OLAP").upper(),
        indexes=(),
    )
    for index in stmt.indexes:  # Doris's column checks and defaults (USING INVERTED)
        normalized = indexes.with_index(normalized, ast.AddIndex(index)) or normalized
    return normalized


# --------------------------------------------------------------------------- checks


def check(stmt: ast.Statement, *, allow_partition_column_nullable: bool = True) -> None:
    """Catalog-free semantic checks of one statement (no-op for statements without any)."""
    if isinstance(stmt, ast.CreateTable) and stmt.as_query is not None:
        check_supported(stmt)  # the rest once the engine knows the query's columns (dorisql.translate.ctas_columns)
    elif isinstance(stmt, ast.CreateTable):
        check_create_table(stmt, allow_partition_column_nullable=allow_partition_column_nullable)
    elif isinstance(stmt, ast.AlterTable):
        check_alter_table(stmt)


def check_supported(stmt: ast.Statement) -> None:
    """Refuse the Doris constructs that the grammar accepts but dorisql does not implement
    (NotSupportedError naming the feature; the parser adds where it is in the statement)."""
    if isinstance(stmt, ast.CreateTable):
        part = stmt.partition
        if part is not None:
            if part.auto_partition:
                if part.kind.upper() == "RANGE":
                    auto.parse_range_expression(part)
                else:
                    auto.check_list_expressions(part)
            elif part.expressions:
                # Doris (PartitionTableInfo): only AUTO PARTITION takes expressions
                raise AnalysisError("Non-auto partition table not support partition expr!")
    elif isinstance(stmt, ast.AlterTable):
        for action in stmt.actions:
            if isinstance(action, ast.UnsupportedAlter) and action.feature in _ROLLUP_FEATURES:
                raise UnsupportedOperationError(action.feature, _NO_ROLLUPS)
            if isinstance(action, ast.UnsupportedAlter):
                raise NotSupportedError(action.feature)


#: ALTER TABLE clauses of rollup indexes, which dorisql does not build (docs/compatibility.md).
_ROLLUP_FEATURES = ("ALTER TABLE ... ADD ROLLUP", "ALTER TABLE ... DROP ROLLUP")
_NO_ROLLUPS = "a Delta table has no rollup index; see docs/compatibility.md, Rollups"


def check_alter_table(stmt: ast.AlterTable) -> None:
    check_supported(stmt)
    for action in stmt.actions:
        if isinstance(action, ast.AddPartition):
            p = action.partition
            if isinstance(p, ast.ListPartition):
                for tup in p.values:
                    if any(v is ast.MAXVALUE for v in tup):
                        raise AnalysisError(f"MAXVALUE is not allowed in LIST partition [{p.name}]")
        elif isinstance(action, ast.SetProperties):
            # the sequence column is set at CREATE only (ModifyTablePropertiesClause knows no such key)
            if any(k.lower().startswith("function_column.") for k, _ in action.properties):
                raise AnalysisError(f"Unknown table property: [{', '.join(k for k, _ in action.properties)}]")
            _check_property_values(dict(action.properties), keys_type=None)
        elif isinstance(action, ast.ReplacePartition):
            replace_options(action)
        elif isinstance(action, ast.ReplaceTable):
            indexes.replace_swaps(action)
        elif isinstance(action, ast.AddIndex):
            indexes.normalized(action.index)


def _check_buckets(dist: ast.DistributedBy) -> None:
    if dist.auto or dist.buckets is None:
        return
    if dist.buckets <= 0:
        raise AnalysisError(
            "Number of hash distribution should be greater than zero."
            if dist.kind.upper() == "HASH"
            else "Number of random distribution should be greater than zero."
        )
    too_many = bucket_limit_error(dist.buckets)
    if too_many:
        raise AnalysisError(too_many)


def _column_text(c: ast.ColumnDef) -> str:
    """A column as Doris's Column.toString prints it in messages: `k1` INT NOT NULL."""
    nullable = _nullable(c)
    return f"`{c.name}` {doris_types.type_sql(doris_types.canonical(c.type))} {'NULL' if nullable else 'NOT NULL'}"


def check_partition_distribution(table: ast.CreateTable, dist: ast.DistributedBy | None) -> None:
    """ADD PARTITION ... DISTRIBUTED BY: only the bucket count may differ from the table's.

    Doris InternalCatalog.addPartition, in its order and words: the distribution type, then the
    bucket count (at least 1, at most max_bucket_num_per_partition), then the HASH columns.
    """
    if dist is None:
        return
    default = table.distribution or ast.DistributedBy("RANDOM", (), None, auto=True)
    kind, default_kind = dist.kind.upper(), default.kind.upper()
    if kind != default_kind:
        raise AnalysisError(f"Cannot assign different distribution type. default is: {default_kind}")
    if not dist.auto and dist.buckets is not None:
        if dist.buckets <= 0:
            raise AnalysisError(f"Cannot assign {kind.lower()} distribution buckets less than 1")
        too_many = bucket_limit_error(dist.buckets)
        if too_many:
            raise AnalysisError(too_many)
    if kind == "HASH" and [c.lower() for c in dist.columns] != [c.lower() for c in default.columns]:
        raise _different_columns(table, dist, default)


def _different_columns(table: ast.CreateTable, dist: ast.DistributedBy, default: ast.DistributedBy) -> AnalysisError:
    """Doris's message for HASH columns that are not the table's (ADD PARTITION, MODIFY DISTRIBUTION)."""
    cmap = _column_map(table)

    def shown(names: tuple[str, ...]) -> str:
        return "[" + ", ".join(_column_text(cmap[n.lower()]) if n.lower() in cmap else f"`{n}`" for n in names) + "]"

    return AnalysisError(
        "Cannot assign hash distribution with different distribution cols. "
        f"new is: {shown(dist.columns)} default is: {shown(default.columns)}"
    )


def modify_distribution(
    table: ast.CreateTable, dist: ast.DistributedBy | None, *, colocated: bool
) -> ast.DistributedBy | None:
    """ALTER TABLE ... MODIFY DISTRIBUTION: the table's distribution for partitions created from
    now on (None: the clause names none, nothing changes). Only the bucket count (a number or
    AUTO) may change.

    Doris Env.modifyDefaultDistributionBucketNum, in its order and words: a colocated table (its
    group fixes every partition's bucket count), an unpartitioned table (its one partition exists
    already), the distribution type, the HASH columns, the bucket count.
    """
    if colocated:
        raise AnalysisError("Cannot change default bucket number of colocate table.")
    if table.partition is None:
        raise AnalysisError("Only support change partitioned table's distribution.")
    if dist is None:
        return None
    default = table.distribution or ast.DistributedBy("RANDOM", (), None, auto=True)
    kind, default_kind = dist.kind.upper(), default.kind.upper()
    if kind != default_kind:
        raise AnalysisError("Cannot change distribution type when modify default distribution bucket num")
    if kind == "HASH" and [c.lower() for c in dist.columns] != [c.lower() for c in default.columns]:
        raise _different_columns(table, dist, default)
    if dist.auto:
        return dataclasses.replace(default, kind=default_kind, buckets=None, auto=True)
    buckets = DEFAULT_BUCKET_NUM if dist.buckets is None else dist.buckets
    if buckets <= 0:
        raise AnalysisError("Cannot assign hash distribution buckets less than 1")  # Doris's words, RANDOM too
    too_many = bucket_limit_error(buckets)
    if too_many:  # refused now rather than by the next partition that would take it
        raise AnalysisError(too_many)
    return dataclasses.replace(default, kind=default_kind, buckets=buckets, auto=False)


def with_auto_partition_column(stmt: ast.CreateTable) -> ast.CreateTable:
    """AUTO PARTITION BY RANGE (date_trunc(col, 'unit')): `partition.columns` is (col,), so
    partitions, routing and pruning work on the column; `expressions` keeps the text for SHOW
    CREATE TABLE."""
    part = stmt.partition
    if part is None or not part.auto_partition or part.kind.upper() != "RANGE" or part.columns:
        return stmt

    spec = auto.parse_range_expression(part)
    column = spec.column.replace("`", "``")
    return dataclasses.replace(
        stmt,
        partition=dataclasses.replace(
            part, columns=(spec.column,), expressions=(f"date_trunc(`{column}`, '{spec.unit}')",)
        ),
    )


def check_create_table(stmt: ast.CreateTable, *, allow_partition_column_nullable: bool = True) -> None:
    check_supported(stmt)
    stmt = with_auto_partition_column(stmt)
    if stmt.engine is not None and stmt.engine.lower() != "olap":
        raise NotSupportedError(f"ENGINE={stmt.engine} (dorisql only manages OLAP tables)")
    if not stmt.columns:
        raise AnalysisError("table should contain at least one column")
    seen: set[str] = set()
    for c in stmt.columns:
        if c.name.lower() in seen:
            raise AnalysisError(f"Duplicate column name '{c.name}'")
        seen.add(c.name.lower())
        check_column_name(c.name)
        if c.name.upper().startswith("__DORIS_"):
            raise AnalysisError(f"Disable to create table column with name start with __DORIS_: {c.name.upper()}")
        doris_types.check_type(c.type, c.name)
        doris_types.check_sub_types(c.type)
        if c.agg_type and c.agg_type.upper() not in AGG_TYPES:
            raise AnalysisError(f"Unknown aggregate type {c.agg_type} for column '{c.name}'")

    if stmt.keys is None:
        keys = default_keys(stmt.columns)
    else:
        keys = ast.KeysDesc(stmt.keys.type.upper(), stmt.keys.columns)
    props = ast.props(stmt.properties)
    mow = keys.type == "UNIQUE" and props.get("enable_unique_key_merge_on_write", "true").lower() == "true"
    if "enable_unique_key_merge_on_write" in props and keys.type != "UNIQUE":
        raise AnalysisError("enable_unique_key_merge_on_write property only support unique key table")
    _check_keys(stmt, keys)
    _check_columns(stmt, keys, mow)
    _check_partition(stmt, keys, mow, allow_partition_column_nullable)
    _check_distribution(stmt, keys)
    _check_property_values(props, keys_type=keys.type)
    _check_sequence(stmt, keys, props)
    _check_row_store(stmt, keys, props)
    _check_dynamic(stmt)
    _check_known_properties(props)


def _check_row_store(stmt: ast.CreateTable, keys: ast.KeysDesc, props: dict[str, str]) -> None:
    """Doris's row store (PropertyAnalyzer.analyzeRowStoreColumns, createOlapTable): the columns
    must exist and AGGREGATE tables have none. Accepted and shown only: Parquet is columnar and
    a point query reads just the columns it needs (docs/compatibility.md, "Row store")."""
    listed = props.get("row_store_columns")
    if listed is not None:
        names = [n.strip() for n in listed.split(",") if n.strip()]
        if not names:
            raise AnalysisError("row_store_columns must not be empty")
        known = {c.name.lower() for c in stmt.columns}
        invalid = [n for n in names if n.lower() not in known]
        if invalid:
            raise AnalysisError("Column does not exist in table. Invalid columns: " + ", ".join(invalid))
    if keys.type == "AGGREGATE" and (props.get("store_row_column", "").lower() == "true" or listed):
        raise AnalysisError("Aggregate table can't support row column now")


#: Doris's PrimitiveType names a "function_column.sequence_type" may give (isFixedPointType or
#: isDateType); other PrimitiveType names are types a sequence cannot have.
_SEQUENCE_TYPES = ("TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT", "DATE", "DATETIME", "DATEV2", "DATETIMEV2")
_OTHER_PRIMITIVE_TYPES = """
    NULL_TYPE BOOLEAN FLOAT DOUBLE DECIMALV2 DECIMAL32 DECIMAL64 DECIMAL128 DECIMAL256 TIME TIMEV2 CHAR VARCHAR
    STRING HLL BITMAP QUANTILE_STATE AGG_STATE ARRAY MAP STRUCT JSONB VARIANT IPV4 IPV6 LAMBDA_FUNCTION
""".split()


def _check_sequence(stmt: ast.CreateTable, keys: ast.KeysDesc, props: dict[str, str]) -> None:
    """The sequence column's properties, as InternalCatalog.createOlapTable and
    PropertyAnalyzer.analyzeSequenceMapCol / analyzeSequenceType check them (in that order)."""
    lowered = {k.lower(): v for k, v in props.items()}
    mapped = lowered.get("function_column.sequence_col")
    type_name = lowered.get("function_column.sequence_type")
    if mapped is not None:
        if keys.type != "UNIQUE":
            raise AnalysisError("sequence column only support UNIQUE_KEYS")
        column = _column_map(stmt).get(mapped.lower())
        if column is None:
            raise AnalysisError(f"The specified sequence column[{mapped}] not exists")
        if not (doris_types.is_integer(column.type) or doris_types.is_date_like(column.type)):
            raise AnalysisError("Sequence type only support integer types and date types")
    if type_name is None:
        return
    if keys.type != "UNIQUE":
        raise AnalysisError("sequence column only support UNIQUE_KEYS")
    name = type_name.upper()
    if name not in _SEQUENCE_TYPES and name not in _OTHER_PRIMITIVE_TYPES:  # Java's PrimitiveType.valueOf
        raise AnalysisError(f"No enum constant org.apache.doris.catalog.PrimitiveType.{name}")
    if name not in _SEQUENCE_TYPES:
        raise AnalysisError("sequence type only support integer types and date types")
    if mapped is not None:
        raise AnalysisError("The sequence_col and sequence_type cannot be set at the same time")
    # The hidden __DORIS_SEQUENCE_COL__ would be a stored column every load, compaction and
    # read path carries; a sequence mapped to a value column orders rows the same way.
    raise NotSupportedError(
        "function_column.sequence_type without function_column.sequence_col (a hidden sequence column): "
        'map the sequence to a value column with "function_column.sequence_col"'
    )


def _check_keys(stmt: ast.CreateTable, keys: ast.KeysDesc) -> None:
    columns = stmt.columns
    kt = KEYS_TYPE_NAME.get(keys.type)
    if kt is None:
        raise AnalysisError(f"Unknown keys type {keys.type}")
    if not keys.columns and keys.type != "DUPLICATE":
        raise AnalysisError("The number of key columns is 0.")
    if len(keys.columns) > len(columns):
        raise AnalysisError("The number of key columns should be less than the number of columns.")
    lowered = [k.lower() for k in keys.columns]
    for i, key in enumerate(keys.columns):
        if lowered.index(key.lower()) != i:
            raise AnalysisError(f"Duplicate key column[{key}].")
        name = columns[i].name
        if key.lower() != name.lower():
            if not any(c.name.lower() == key.lower() for c in columns):
                raise AnalysisError(f"Key column[{key}] doesn't exist.")
            raise AnalysisError(
                "Key columns should be a ordered prefix of the schema. KeyColumns["
                + str(i)
                + "] (starts from zero) is "
                + key
                + ", but corresponding column is "
                + name
                + " in the previous columns declaration."
            )
        if columns[i].agg_type is not None:
            raise AnalysisError(f"Key column[{name}] should not specify aggregate type.")
    for c in columns[len(keys.columns) :]:
        if keys.type == "AGGREGATE":
            if c.agg_type is None:
                raise AnalysisError(f"{kt} table should specify aggregate type for non-key column[{c.name}]")
        elif c.agg_type is not None:
            raise AnalysisError(f"{kt} table should not specify aggregate type for non-key column[{c.name}]")


def _check_columns(stmt: ast.CreateTable, keys: ast.KeysDesc, mow: bool) -> None:
    key_set = {k.lower() for k in keys.columns}
    for c in stmt.columns:
        t = doris_types.canonical(c.type)
        is_key = c.name.lower() in key_set
        if t.name in doris_types.AGG_ONLY_TYPES:
            if is_key:
                raise AnalysisError(f"Key column can not set complex type:{c.name}")
            if keys.type == "AGGREGATE" and c.agg_type is None:
                raise AnalysisError(f"complex type have to use aggregate function: {c.name}")
            # A written NULL is accepted (current Doris does; these columns are stored NOT NULL).
        if is_key:
            msg = doris_types.key_type_error(t, c.name)
            if msg:
                raise AnalysisError(msg)
        agg = c.agg_type.upper() if c.agg_type else None
        if agg is not None:
            if agg != "GENERIC" and not _agg_compatible(agg, t):
                raise AnalysisError(
                    f"Aggregate type {agg} is not compatible with primitive type {doris_types.type_sql(t)}"
                )
            if agg == "REPLACE_IF_NOT_NULL" and c.nullable is False:
                raise AnalysisError(
                    f"REPLACE_IF_NOT_NULL column must be nullable, maybe should use REPLACE, column:{c.name}"
                )
            if t.name in doris_types.COMPLEX_TYPES and agg not in ("NONE", "REPLACE", "REPLACE_IF_NOT_NULL"):
                raise AnalysisError(f"{t.name} column can't support aggregation {agg}")
        _check_complex_default(c, t)
        if c.default is not None and c.default.kind == "null" and c.nullable is False:
            raise AnalysisError(f"Can not set null default value to non nullable column: {c.name}")
        if (
            c.default is not None
            and c.default.kind in ("string", "number")
            and c.default.value is not None
            and t.name not in doris_types.COMPLEX_TYPES
            and t.name not in doris_types.AGG_ONLY_TYPES
            and t.name not in ("JSON", "VARIANT")
        ):
            try:
                doris_types.parse_value(c.default.value, t)
            except AnalysisError as e:
                raise AnalysisError(f"Invalid default value for '{c.name}': {e.message}") from None
        if c.auto_increment:
            if keys.type == "AGGREGATE":
                raise AnalysisError("the AUTO_INCREMENT column can only be used in DUPLICATE KEY and UNIQUE KEY table")
            if t.name != "BIGINT":
                raise AnalysisError(f"the AUTO_INCREMENT column should be BIGINT type, column:{c.name}")
            if c.nullable is True:
                raise AnalysisError(f"the AUTO_INCREMENT column should be NOT NULL, column:{c.name}")
        if c.generated is not None:
            _check_generated(c, is_key, agg)
    if sum(1 for c in stmt.columns if c.auto_increment) > 1:
        raise AnalysisError("at most one AUTO_INCREMENT column can be used in a table")


def _check_generated(c: ast.ColumnDef, is_key: bool, agg: str | None) -> None:
    """Doris ColumnDefinition.validateGeneratedColumnInfo and CreateTableInfo: what a generated
    column cannot also have (its expression's rules: dorisql.syntax.generated)."""
    if c.auto_increment:
        raise AnalysisError("Generated columns cannot be auto_increment.")
    if c.default is not None and c.default.kind != "null":
        raise AnalysisError("Generated columns cannot have default value.")
    if c.on_update is not None:
        raise AnalysisError("Generated columns cannot have on update default value.")
    if not is_key and agg not in (None, "NONE", "REPLACE", "REPLACE_IF_NOT_NULL"):
        raise AnalysisError(
            "The generated columns can be key columns, or value columns of replace and replace_if_not_null "
            "aggregation type."
        )


def _check_complex_default(c: ast.ColumnDef, t: ast.DataType) -> None:
    """Doris ColumnDefinition.validate: an ARRAY column's default is NULL or [], a MAP, STRUCT,
    JSON or VARIANT column's only NULL; an HLL column has none (its default is hll_empty), a
    BITMAP column's is BITMAP_EMPTY (also when none is written)."""
    if c.default is not None and t.name == "HLL":
        raise AnalysisError("Hll type column can not set default value")
    if c.default is None or c.default.kind == "null":
        return
    if t.name == "BITMAP" and (c.default.kind, str(c.default.value).upper()) != ("function", "BITMAP_EMPTY"):
        raise AnalysisError("Bitmap type column default value only support BITMAP_EMPTY")
    if t.name == "ARRAY":
        if c.default.kind != "string" or c.default.value != "[]":
            raise AnalysisError("Array type column default value only support null or []")
    elif t.name == "MAP":
        raise AnalysisError("Map type column default value just support null")
    elif t.name == "STRUCT":
        raise AnalysisError("Struct type column default value just support null")
    elif t.name in ("JSON", "VARIANT"):
        raise AnalysisError("Json or Variant type column default value just support null")


def _check_partition(stmt: ast.CreateTable, keys: ast.KeysDesc, mow: bool, allow_nullable: bool) -> None:
    part = stmt.partition
    if part is None:
        return
    kind = part.kind.upper()
    if kind not in ("RANGE", "LIST"):
        raise NotSupportedError(f"PARTITION BY {part.kind}")
    if not part.columns:
        raise AnalysisError("partition column list is empty")
    cmap = _column_map(stmt)
    key_set = {k.lower() for k in keys.columns}
    seen: set[str] = set()
    for name in part.columns:
        c = cmap.get(name.lower())
        if c is None:
            raise AnalysisError(f"partition key {name} is not exists")
        if name.lower() in seen:
            raise AnalysisError(f"Duplicated partition column {name}")
        seen.add(name.lower())
        if c.name.lower() not in key_set:
            # Doris sets REPLACE on UNIQUE merge-on-read value columns; AGGREGATE value columns
            # always carry an aggregate type.
            if c.agg_type is not None or (keys.type == "UNIQUE" and not mow) or keys.type == "AGGREGATE":
                raise AnalysisError("The partition column could not be aggregated column")
            if mow:
                raise AnalysisError("Merge-on-Write table's partition column must be KEY column")
        msg = doris_types.partition_type_error(c.type, c.name, kind)
        if msg:
            raise AnalysisError(msg)
        nullable = c.nullable if c.nullable is not None else _default_nullable(c)
        if part.auto_partition and kind == "RANGE":
            # PartitionExprUtil: date_trunc of a date
            if doris_types.canonical(c.type).name not in doris_types.DATE_TYPES:
                raise AnalysisError("partition expr date_trunc is illegal!")
            if nullable:
                raise AnalysisError("AUTO RANGE PARTITION doesn't support NULL column")
        if nullable and not allow_nullable:
            raise AnalysisError("The partition column must be NOT NULL with allow_partition_column_nullable OFF")
    for item in part.items:
        ok = (
            isinstance(item, ast.ListPartition)
            if kind == "LIST"
            else isinstance(item, (ast.RangePartition, ast.BatchRangePartition))
        )
        if not ok:
            raise AnalysisError(
                "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions"
            )

    normalized = dataclasses.replace(
        stmt,
        columns=tuple(
            dataclasses.replace(c, nullable=c.nullable if c.nullable is not None else _default_nullable(c))
            for c in stmt.columns
        ),
    )
    defs = K.build_partitions(normalized)
    if len(defs) > CREATE_TABLE_PARTITION_MAX_NUM:
        raise AnalysisError(
            f"The number of partitions to be created is [{len(defs)}], exceeding the maximum value "
            f"of [{CREATE_TABLE_PARTITION_MAX_NUM}]. Creating too many partitions can be "
            "time-consuming. If necessary, You can set the session variable "
            "'create_table_partition_max_num' to a larger value."
        )


def _check_distribution(stmt: ast.CreateTable, keys: ast.KeysDesc) -> None:
    dist = stmt.distribution
    if dist is None:
        # Doris's default is RANDOM BUCKETS AUTO, checked like a written one.
        dist = ast.DistributedBy("RANDOM", (), None, auto=True)
    kind = dist.kind.upper()
    if kind not in ("HASH", "RANDOM"):
        raise NotSupportedError(f"DISTRIBUTED BY {dist.kind}")
    _check_buckets(dist)
    cmap = _column_map(stmt)
    key_set = {k.lower() for k in keys.columns}
    if kind == "HASH":
        if not dist.columns:
            raise AnalysisError("Number of hash column should be larger than zero.")
        if len({c.lower() for c in dist.columns}) != len(dist.columns):
            raise AnalysisError("Duplicate key in distribution desc is not allowed")
        for name in dist.columns:
            c = cmap.get(name.lower())
            if c is None:
                raise AnalysisError(f"column {name} is not found in distribution desc")
            if keys.type in ("AGGREGATE", "UNIQUE") and name.lower() not in key_set:
                raise AnalysisError(f"Distribution column[{name}] is not key column")
            msg = doris_types.distribution_type_error(c.type, c.name)
            if msg:
                raise AnalysisError(msg)
    else:
        if keys.type == "UNIQUE":
            raise AnalysisError("Create unique keys table should not contain random distribution desc")
        if keys.type == "AGGREGATE" and any(
            (c.agg_type or "").upper() in ("REPLACE", "REPLACE_IF_NOT_NULL") for c in stmt.columns
        ):
            raise AnalysisError(
                "Create aggregate keys table with value columns of which aggregate type is "
                "REPLACE or REPLACE_IF_NOT_NULL should not contain random distribution desc"
            )


#: The table properties Doris's CREATE TABLE consumes (PropertyAnalyzer and
#: InternalCatalog.createOlapTable, which refuses whatever is left: "Unknown properties: {...}").
#: dynamic_partition.* keys are checked by dorisql.partitioning.dynamic.
TABLE_PROPERTIES = frozenset(
    """
    replication_num replication_allocation min_load_replica_num storage_medium storage_cooldown_time
    storage_policy storage_format storage_type inverted_index_storage_format version_info short_key
    bloom_filter_columns bloom_filter_fpp colocate_with compression in_memory light_schema_change
    distribution_type distribution_hash_type file_cache_ttl_seconds _auto_bucket estimate_partition_size
    tablet_type function_column.sequence_type function_column.sequence_col disable_auto_compaction
    enable_single_replica_compaction store_row_column row_store_columns row_store_page_size
    storage_page_size storage_dict_page_size skip_write_index_on_load compaction_policy
    time_series_compaction_goal_size_mbytes time_series_compaction_file_count_threshold
    time_series_compaction_time_threshold_seconds time_series_compaction_empty_rowsets_threshold
    time_series_compaction_level_threshold is_being_synced enable_unique_key_merge_on_write
    enable_unique_key_skip_bitmap_column enable_duplicate_without_keys_by_default
    group_commit_interval_ms group_commit_data_bytes enable_mow_light_delete enable_light_delete
    partition.retention_count storage_vault_name storage_vault_id mutable data_sort.sort_type
    data_sort.col_num variant_enable_flatten_nested deprecated_variant_enable_flatten_nested
    variant_max_subcolumns_count variant_enable_typed_paths_to_sparse variant_enable_nested_group
    variant_max_sparse_column_statistics_size variant_sparse_hash_shard_count variant_enable_doc_mode
    variant_doc_materialization_min_rows variant_doc_hash_shard_count
    vertical_compaction_num_columns_per_group float_type_default_use_plain_encoding tde_algorithm
    auto_analyze_policy
    """.split()
)
#: Families of keys Doris reads by prefix (binlog.enable, binlog.ttl_seconds, ...).
TABLE_PROPERTY_PREFIXES = ("dynamic_partition.", "binlog.", "sequence_mapping.")
#: distribution_hash_type values: crc32 (Doris's default, what dorisql buckets with) and identity.
DISTRIBUTION_HASH_TYPES = ("crc32", "identity")


def _check_known_properties(props: dict[str, str]) -> None:
    unknown = {
        k: v
        for k, v in props.items()
        if k.lower() not in TABLE_PROPERTIES and not k.lower().startswith(TABLE_PROPERTY_PREFIXES)
    }
    if unknown:
        # Doris prints the left-over map as Java does: {key=value, ...}
        raise AnalysisError("Unknown properties: {" + ", ".join(f"{k}={v}" for k, v in unknown.items()) + "}")


def _positive_int(key: str, value: str) -> int:
    try:
        n = int(value.strip())
    except ValueError:
        raise AnalysisError(f"Invalid {key} value: '{value}' (expected a positive integer)") from None
    if n <= 0:
        raise AnalysisError(f"Invalid {key} value: '{value}' (must be greater than 0)")
    return n


def _check_property_values(props: dict[str, str], keys_type: str | None) -> None:
    """Property texts Doris validates at CREATE/ALTER (dynamic_partition.* excluded)."""
    for key, value in props.items():
        k = key.lower()
        if k == "replication_num":
            n = _positive_int(key, value)
            if n > 32767:
                raise AnalysisError(f"Total replication num should between 1 and 32767, got {n}")
        elif k == "replication_allocation":
            total = 0
            for part in value.split(","):
                tag, _, num = part.partition(":")
                if not tag.strip().startswith("tag.location.") or not num.strip():
                    raise AnalysisError(f"Invalid replication allocation property: {value}")
                total += _positive_int("replication_allocation", num)
            unavailable = table_properties.unavailable_replica_tags(value, props.get("storage_medium"))
            if unavailable:
                raise AnalysisError(unavailable)
        elif k == "estimate_partition_size":
            try:
                parse_data_volume(value)
            except AnalysisError as e:
                raise AnalysisError(f"Invalid estimate_partition_size '{value}': {e.message}") from None
        elif k == "storage_medium":
            if value.upper() not in ("SSD", "HDD"):
                raise AnalysisError(f"Invalid storage medium: {value}")
        elif k == "storage_cooldown_time":
            try:
                doris_types.parse_datetime(value)
            except AnalysisError:
                raise AnalysisError(f"Invalid storage_cooldown_time: {value}") from None
        elif k in (
            "enable_unique_key_merge_on_write",
            "light_schema_change",
            "in_memory",
            "disable_auto_compaction",
            "enable_single_replica_compaction",
            "store_row_column",
            "is_being_synced",
            "skip_write_index_on_load",
        ):
            if value.strip().lower() not in ("true", "false"):
                raise AnalysisError(f"Invalid {key} value: '{value}' (expected true or false)")
        elif k == "colocate_with":
            # ALTER TABLE SET ("colocate_with" = "") leaves the group (keys_type None: ALTER)
            if not value.strip() and keys_type is not None:
                raise AnalysisError("colocate_with can not be empty")
        elif k == "distribution_hash_type":
            hash_type = value.strip().lower()
            if hash_type not in DISTRIBUTION_HASH_TYPES:
                raise AnalysisError(
                    f"Invalid distribution_hash_type: {value}, supported values: {', '.join(DISTRIBUTION_HASH_TYPES)}"
                )
            if hash_type == "identity":
                raise NotSupportedError("distribution_hash_type identity (dorisql buckets rows with crc32)")
        elif k in ("compaction_policy",):
            if value.strip().lower() not in ("size_based", "time_series"):
                raise AnalysisError(f"compaction_policy must be time_series or size_based, got {value}")


def _check_dynamic(stmt: ast.CreateTable) -> None:
    validate_properties(stmt)
