"""Catalog-free CREATE TABLE / ALTER checks and Doris defaults."""

import dataclasses

import pytest

from dorisql.analysis import checks as A
from dorisql.ast import (
    AddPartition,
    AlterTable,
    BatchRangePartition,
    ColumnDef,
    CreateTable,
    DataType,
    DistributedBy,
    KeysDesc,
    ListPartition,
    Literal,
    PartitionBy,
    RangePartition,
    SetProperties,
    TableName,
)
from dorisql.errors import AnalysisError, NotSupportedError


def C(name, t, *params, **kw):
    return ColumnDef(name, DataType(t, tuple(params)), **kw)


SEED_COLUMNS = (
    C("user_id", "LARGEINT", nullable=False),
    C("date", "DATE", nullable=False),
    C("timestamp", "DATETIME", nullable=False),
    C("city", "VARCHAR", 20),
    C("age", "SMALLINT"),
    C("sex", "TINYINT"),
    C("last_visit_date", "DATETIME", agg_type="REPLACE", default=Literal("1970-01-01 00:00:00")),
    C("cost", "BIGINT", agg_type="SUM", default=Literal("0")),
    C("max_dwell_time", "INT", agg_type="MAX", default=Literal("0")),
    C("min_dwell_time", "INT", agg_type="MIN", default=Literal("99999")),
)
SEED = CreateTable(
    TableName("example_range_tbl", "example_db"),
    SEED_COLUMNS,
    if_not_exists=True,
    engine="olap",
    keys=KeysDesc("AGGREGATE", ("user_id", "date", "timestamp", "city", "age", "sex")),
    partition=PartitionBy(
        "RANGE",
        ("date",),
        (
            RangePartition("p201701", ("2017-02-01",)),
            RangePartition("p201702", ("2017-03-01",)),
            RangePartition("p201703", ("2017-04-01",)),
            RangePartition("p2018", ("2019-01-01",), ("2018-01-01",)),
        ),
    ),
    distribution=DistributedBy("HASH", ("user_id",), 16),
    properties=(("replication_num", "3"), ("storage_medium", "SSD"), ("storage_cooldown_time", "2018-01-01 12:00:00")),
)


def err(stmt, pattern, exc=AnalysisError):
    with pytest.raises(exc) as e:
        A.check(stmt)
    assert e.value.message == pattern if not pattern.startswith("~") else pattern[1:] in e.value.message


def test_seed_tables_pass():
    A.check(SEED)
    # passed as written: Doris's seed table keeps its keys, buckets and partitions
    checked = A.normalize_create_table(SEED)
    assert checked.keys == SEED.keys and checked.distribution == SEED.distribution
    assert [p.name for p in checked.partition.items] == ["p201701", "p201702", "p201703", "p2018"]
    assert [c.name for c in checked.columns] == [c.name for c in SEED_COLUMNS]
    lst = dataclasses.replace(
        SEED,
        partition=PartitionBy(
            "LIST",
            ("city",),
            (
                ListPartition("p_cn", (("Beijing",), ("Shanghai",), ("Hong Kong",))),
                ListPartition("p_usa", (("New York",), ("San Francisco",))),
                ListPartition("p_jp", (("Tokyo",),)),
            ),
        ),
    )
    A.check(lst)
    listed = A.normalize_create_table(lst).partition
    assert listed.kind == "LIST" and [len(p.values) for p in listed.items] == [3, 2, 1]


def test_defaults():
    t = CreateTable(TableName("t"), (C("a", "INT"), C("b", "BIGINT"), C("c", "INT"), C("d", "INT")))
    n = A.normalize_create_table(t)
    assert n.keys == KeysDesc("DUPLICATE", ("a", "b", "c"))  # at most 3 columns
    assert n.distribution == DistributedBy("RANDOM", (), None, auto=True)
    assert all(c.nullable is True for c in n.columns)
    assert n.engine == "OLAP"
    # 36-byte short key: LARGEINT(16) + LARGEINT(16) + INT(4) = 36 fits, the next does not
    t = CreateTable(TableName("t"), (C("a", "LARGEINT"), C("b", "LARGEINT"), C("c", "BIGINT")))
    assert A.normalize_create_table(t).keys.columns == ("a", "b")
    # stops after the first VARCHAR and before FLOAT / STRING
    t = CreateTable(TableName("t"), (C("a", "INT"), C("b", "VARCHAR", 10), C("c", "INT")))
    assert A.normalize_create_table(t).keys.columns == ("a", "b")
    t = CreateTable(TableName("t"), (C("a", "INT"), C("f", "DOUBLE"), C("c", "INT")))
    assert A.normalize_create_table(t).keys.columns == ("a",)
    t = CreateTable(TableName("t"), (C("s", "CHAR", 100),))
    assert A.normalize_create_table(t).keys.columns == ("s",)
    # aggregate columns -> AGGREGATE KEY of the columns before them
    t = CreateTable(
        TableName("t"),
        (C("a", "INT"), C("b", "INT"), C("v", "BIGINT", agg_type="SUM")),
        distribution=DistributedBy("HASH", ("a",)),
    )
    n = A.normalize_create_table(t)
    assert n.keys == KeysDesc("AGGREGATE", ("a", "b")) and n.distribution.buckets == 10
    # UNIQUE gets merge-on-write and types are canonical
    t = CreateTable(
        TableName("t"),
        (C("a", "INT"), C("d", "DATEV2"), C("v", "VARCHAR")),
        keys=KeysDesc("UNIQUE", ("a",)),
        distribution=DistributedBy("HASH", ("a",), auto=True),
    )
    n = A.normalize_create_table(t)
    assert ("enable_unique_key_merge_on_write", "true") in n.properties
    assert n.columns[1].type == DataType("DATE") and n.columns[2].type == DataType("VARCHAR", (65533,))
    assert n.distribution.auto and n.distribution.buckets is None
    t = CreateTable(TableName("t"), (C("f", "DOUBLE"), C("a", "INT")))
    err(
        t,
        "The olap table first column could not be float, double, string or array, struct, map, please use "
        "decimal or varchar instead.",
    )


def test_key_errors():
    base = CreateTable(
        TableName("t"), (C("a", "INT"), C("b", "INT"), C("v", "INT")), distribution=DistributedBy("HASH", ("a",), 1)
    )
    err(
        dataclasses.replace(base, keys=KeysDesc("DUPLICATE", ("b",))),
        "Key columns should be a ordered prefix of the schema. KeyColumns[0] (starts from zero) is b, but "
        "corresponding column is a in the previous columns declaration.",
    )
    err(dataclasses.replace(base, keys=KeysDesc("DUPLICATE", ("x",))), "Key column[x] doesn't exist.")
    err(
        dataclasses.replace(base, keys=KeysDesc("AGGREGATE", ("a",))),
        "AGG_KEYS table should specify aggregate type for non-key column[b]",
    )
    withsum = dataclasses.replace(base, columns=(C("a", "INT"), C("b", "INT"), C("v", "INT", agg_type="SUM")))
    err(
        dataclasses.replace(withsum, keys=KeysDesc("DUPLICATE", ("a", "b"))),
        "DUP_KEYS table should not specify aggregate type for non-key column[v]",
    )
    err(
        dataclasses.replace(withsum, keys=KeysDesc("UNIQUE", ("a", "b"))),
        "UNIQUE_KEYS table should not specify aggregate type for non-key column[v]",
    )
    bad = dataclasses.replace(
        base, columns=(C("a", "INT", agg_type="SUM"), C("b", "INT", agg_type="SUM")), keys=KeysDesc("AGGREGATE", ("a",))
    )
    err(bad, "Key column[a] should not specify aggregate type.")
    strsum = dataclasses.replace(
        base, columns=(C("a", "INT"), C("s", "VARCHAR", 10, agg_type="SUM")), keys=KeysDesc("AGGREGATE", ("a",))
    )
    err(strsum, "Aggregate type SUM is not compatible with primitive type VARCHAR(10)")
    err(
        dataclasses.replace(base, columns=(C("f", "FLOAT"), C("a", "INT")), keys=KeysDesc("DUPLICATE", ("f",))),
        "Float or double can not used as a key, use decimal instead.",
    )
    err(
        dataclasses.replace(base, columns=(C("s", "STRING"), C("a", "INT")), keys=KeysDesc("DUPLICATE", ("s",))),
        "String Type should not be used in key column[s]",
    )
    err(dataclasses.replace(base, columns=(C("a", "INT"), C("a", "INT"))), "Duplicate column name 'a'")
    err(dataclasses.replace(base, columns=()), "table should contain at least one column")
    err(dataclasses.replace(base, keys=KeysDesc("UNIQUE", ())), "The number of key columns is 0.")
    nn = dataclasses.replace(
        base,
        columns=(C("a", "INT"), C("v", "INT", agg_type="REPLACE_IF_NOT_NULL", nullable=False)),
        keys=KeysDesc("AGGREGATE", ("a",)),
    )
    err(nn, "REPLACE_IF_NOT_NULL column must be nullable, maybe should use REPLACE, column:v")
    h = dataclasses.replace(base, columns=(C("a", "INT"), C("h", "HLL")), keys=KeysDesc("AGGREGATE", ("a",)))
    err(h, "AGG_KEYS table should specify aggregate type for non-key column[h]")  # Doris checks keys first
    # A written NULL on an aggregate-state column is accepted (current Doris); it is stored NOT NULL.
    nullable_h = dataclasses.replace(h, columns=(C("a", "INT"), C("h", "HLL", agg_type="HLL_UNION", nullable=True)))
    assert A.normalize_create_table(nullable_h).columns[1].nullable is False
    err(
        dataclasses.replace(
            base, columns=(C("a", "INT"), C("b", "INT", nullable=False, default=Literal(None, "null")))
        ),
        "Can not set null default value to non nullable column: b",
    )
    err(
        dataclasses.replace(base, columns=(C("a", "INT"), C("b", "TINYINT", default=Literal("300")))),
        "Invalid default value for 'b': Number out of range[300]. type: TINYINT",
    )
    err(dataclasses.replace(base, engine="mysql"), "~ENGINE=mysql", NotSupportedError)


def test_partition_errors():
    part = lambda cols, items=(), kind="RANGE": PartitionBy(kind, cols, items)  # noqa: E731
    base = dataclasses.replace(SEED, partition=part(("date",)))
    A.check(base)  # empty partition list (dynamic partitions)
    err(dataclasses.replace(base, partition=part(("nope",))), "partition key nope is not exists")
    err(dataclasses.replace(base, partition=part(("date", "date"))), "Duplicated partition column date")
    err(dataclasses.replace(base, partition=part(("cost",))), "The partition column could not be aggregated column")
    err(
        dataclasses.replace(base, partition=part(("city",))),
        "Column[city] type[VARCHAR] cannot be a range partition key.",
    )
    err(
        dataclasses.replace(base, partition=part(("date",), (ListPartition("p", (("2017-01-01",),)),))),
        "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions",
    )
    err(
        dataclasses.replace(
            base,
            partition=part(("date",), (RangePartition("p1", ("2017-01-01",)), RangePartition("p1", ("2017-02-01",)))),
        ),
        "Duplicated named partition: p1",
    )
    err(
        dataclasses.replace(base, partition=part(("date",), (RangePartition("p1", ("2017-01-01", "1")),))),
        "Partition values number is more than partition column number: ('2017-01-01', '1')",
    )
    err(
        dataclasses.replace(
            base,
            partition=part(
                ("date",),
                (
                    RangePartition("a", ("2017-03-01",), ("2017-01-01",)),
                    RangePartition("b", ("2017-04-01",), ("2017-02-01",)),
                ),
            ),
        ),
        "~is intersected with range",
    )
    err(
        dataclasses.replace(base, partition=part(("date",), (RangePartition("a", ("2017-13-01",)),))),
        "date literal [2017-13-01] is invalid",
    )
    err(
        dataclasses.replace(
            base, partition=part(("city",), (ListPartition("a", (("x",),)), ListPartition("b", (("x",),))), "LIST")
        ),
        "~is conflict with current partitionKeys",
    )
    err(
        dataclasses.replace(base, partition=part(("age",), (ListPartition("a", (("70000",),)),), "LIST")),
        "Number out of range[70000]. type: SMALLINT",
    )
    many = dataclasses.replace(
        base, partition=part(("date",), (BatchRangePartition(("2000-01-01",), ("2030-01-01",), 1, "DAY"),))
    )
    err(many, "The number of Multi partitions too much, should not exceed:4096")
    # DUPLICATE tables may partition on a value column (current Doris)
    dup = CreateTable(
        TableName("t"),
        (C("a", "INT"), C("b", "INT"), C("d", "DATE")),
        keys=KeysDesc("DUPLICATE", ("a",)),
        partition=part(("d",)),
        distribution=DistributedBy("HASH", ("a",), 1),
    )
    A.check(dup)
    mow = dataclasses.replace(dup, keys=KeysDesc("UNIQUE", ("a",)))
    err(mow, "Merge-on-Write table's partition column must be KEY column")
    mor = dataclasses.replace(mow, properties=(("enable_unique_key_merge_on_write", "false"),))
    err(mor, "The partition column could not be aggregated column")
    nullable = CreateTable(
        TableName("t"), (C("k0", "INT"),), partition=part(("k0",)), distribution=DistributedBy("HASH", ("k0",), 1)
    )
    A.check(nullable)
    with pytest.raises(AnalysisError, match="allow_partition_column_nullable OFF"):
        A.check(nullable, allow_partition_column_nullable=False)
    notnull_list = CreateTable(
        TableName("t"),
        (C("k0", "VARCHAR", 10, nullable=False),),
        partition=part(("k0",), (ListPartition("pX", ((None,),)),), "LIST"),
        distribution=DistributedBy("HASH", ("k0",), 1),
    )
    err(notnull_list, "~partition column [k0] is NOT NULL")
    A.check(dataclasses.replace(notnull_list, columns=(C("k0", "VARCHAR", 10, nullable=True),)))


def test_distribution_errors():
    err(
        dataclasses.replace(SEED, distribution=DistributedBy("HASH", ("user_id",), 0)),
        "Number of hash distribution should be greater than zero.",
    )
    err(
        dataclasses.replace(SEED, distribution=DistributedBy("HASH", ("user_id",), 100000)),
        "~exceeds the maximum allowed value (768)",
    )
    err(
        dataclasses.replace(SEED, distribution=DistributedBy("HASH", ("cost",), 1)),
        "Distribution column[cost] is not key column",
    )
    err(
        dataclasses.replace(SEED, distribution=DistributedBy("HASH", ("nope",), 1)),
        "column nope is not found in distribution desc",
    )
    err(
        dataclasses.replace(SEED, distribution=DistributedBy("HASH", ("user_id", "USER_ID"), 1)),
        "Duplicate key in distribution desc is not allowed",
    )
    err(
        dataclasses.replace(SEED, distribution=DistributedBy("RANDOM", (), 4)),
        "Create aggregate keys table with value columns of which aggregate type is REPLACE or "
        "REPLACE_IF_NOT_NULL should not contain random distribution desc",
    )
    u = CreateTable(TableName("t"), (C("a", "INT"), C("v", "INT")), keys=KeysDesc("UNIQUE", ("a",)))
    err(u, "Create unique keys table should not contain random distribution desc")
    dup = CreateTable(
        TableName("t"), (C("a", "INT"), C("f", "DOUBLE"), C("s", "STRING")), keys=KeysDesc("DUPLICATE", ("a",))
    )
    A.check(dataclasses.replace(dup, distribution=DistributedBy("RANDOM", (), 3)))
    err(
        dataclasses.replace(dup, distribution=DistributedBy("RANDOM", (), 0)),
        "Number of random distribution should be greater than zero.",
    )
    err(
        dataclasses.replace(dup, distribution=DistributedBy("HASH", ("f",), 3)),
        "Floating point type should not be used in distribution column[f].",
    )
    err(
        dataclasses.replace(dup, distribution=DistributedBy("HASH", ("s",), 3)),
        "String Type should not be used in distribution column[s].",
    )


@pytest.mark.parametrize(
    "text,value",
    [
        ("100G", 100 * 1024**3),
        ("10GB", 10 * 1024**3),
        ("500M", 500 * 1024**2),
        ("1T", 1024**4),
        ("1tb", 1024**4),
        ("2048", 2048),
        ("3k", 3072),
    ],
)
def test_data_volume(text, value):
    assert A.parse_data_volume(text) == value


def test_property_errors():
    bad = lambda k, v: dataclasses.replace(SEED, properties=((k, v),))  # noqa: E731
    err(bad("estimate_partition_size", "10X"), "Invalid estimate_partition_size '10X': invalid unit:X")
    err(
        bad("estimate_partition_size", "1.5G"),
        "Invalid estimate_partition_size '1.5G': invalid data volumn expression:1.5G",
    )
    err(bad("estimate_partition_size", "0G"), "Invalid estimate_partition_size '0G': Data volumn must larger than 0")
    err(bad("replication_num", "0"), "Invalid replication_num value: '0' (must be greater than 0)")
    err(bad("replication_num", "x"), "Invalid replication_num value: 'x' (expected a positive integer)")
    err(bad("storage_medium", "TAPE"), "Invalid storage medium: TAPE")
    err(
        bad("enable_unique_key_merge_on_write", "true"),
        "enable_unique_key_merge_on_write property only support unique key table",
    )
    A.check(bad("estimate_partition_size", "100G"))


def test_alter_checks():
    t = TableName("t")
    A.check(AlterTable(t, (AddPartition(RangePartition("p", ("1",))),)))
    with pytest.raises(AnalysisError, match="replication_num"):
        A.check(AlterTable(t, (SetProperties((("replication_num", "-1"),)),)))


# ----------------------------------------------------------------------------- column names


def with_column(name: str) -> CreateTable:
    return CreateTable(
        TableName("t"),
        (C("k", "INT"), C(name, "INT")),
        keys=KeysDesc("DUPLICATE", ("k",)),
        distribution=DistributedBy("HASH", ("k",), 1),
    )


@pytest.mark.parametrize(
    "name", ["a`b", "../k", ".k", "a(b)", "`x`", "a;b", "a'b", "a=b", "中文", "x" * 257, "", "__doris_shadow_v"]
)
def test_column_names_doris_refuses(name):
    err(
        with_column(name),
        f"Incorrect column name '{name}'. Column regex is "
        r"""'^[_a-zA-Z@0-9\s/][.a-zA-Z0-9_+-/?@#$%^&*"\s,:]{0,255}$'""",
    )


@pytest.mark.parametrize("name", ["mv_k", "mva_sum"])
def test_column_names_with_a_materialized_view_prefix(name):
    err(with_column(name), f"Incorrect column name {name}, column name can't start with 'mv_'/'mva_'")


@pytest.mark.parametrize(
    "name",
    [
        "__partition",
        "__bucket",
        "__load_seq",
        "__row_seq",
        "__commit_seq",
        "__LOAD_SEQ",
        "__dorisql",
        "__dorisql_scan_t",
        "__DorisQL_bad",
    ],
)
def test_column_names_dorisql_keeps_for_itself(name):
    err(
        with_column(name),
        f"Incorrect column name '{name}'. __partition, __bucket, __load_seq, __row_seq, "
        f"__commit_seq and names starting with __dorisql are reserved by dorisql",
    )


def test_the_reserved_names_are_the_hidden_columns_dorisql_writes():
    from dorisql.tablets import merge, tables

    assert set(A.DORISQL_HIDDEN_COLUMNS) == set(tables.HIDDEN_COLUMNS) == set(merge.HIDDEN_COLUMNS)


@pytest.mark.parametrize(
    "name",
    [
        "k2",
        "_k",
        "@k",
        "1k",
        "/k",
        "a b",
        "a.b",
        "MV_k",
        "x" * 256,
        "a+b-c/d?e@f#g$h%i^j&k*l",
        'a"b',
        "a,b:c",
        "_partition",
        "__partitions",
        "__row_seq2",
    ],
)
def test_column_names_doris_accepts(name):
    A.check(with_column(name))
    assert [c.name for c in A.normalize_create_table(with_column(name)).columns] == ["k", name]  # kept as written


def test_doris_suite_column_names_are_refused_with_their_message():
    """regression-test/suites/nereids_p0/create_table/test_create_table.groovy expects
    "Incorrect column name" for both of these (tests/data/corpus 0294 and 0295)."""
    from dorisql.syntax import parse

    for sql in (
        "CREATE TABLE region (r INT NOT NULL, `CAST(``o_custkey`` AS BIGINT)` VARCHAR(152)) "
        "DUPLICATE KEY(r) DISTRIBUTED BY HASH(r) BUCKETS 1",
        "CREATE TABLE region (r INT NOT NULL, `mva_invalid` VARCHAR(152)) "
        "DUPLICATE KEY(r) DISTRIBUTED BY HASH(r) BUCKETS 1",
    ):
        with pytest.raises(AnalysisError, match="^Incorrect column name"):
            parse(sql)


# ----------------------------------------------------------------------------- ADD PARTITION distribution


def add_err(dist: DistributedBy, message: str) -> None:
    """InternalCatalog.addPartition against SEED (DISTRIBUTED BY HASH(user_id) BUCKETS 16)."""
    with pytest.raises(AnalysisError) as e:
        A.check_partition_distribution(SEED, dist)
    assert e.value.message == message


def test_add_partition_may_change_only_the_bucket_count():
    """Doris regression-test/suites/partition_p1/.../test_partition_operation.groovy: HASH(k1)
    BUCKETS 20, 37, 7 are accepted; BUCKETS 0, HASH(k1, k2) and RANDOM are refused."""
    for n in (1, 20, 37, 7):
        A.check_partition_distribution(SEED, DistributedBy("HASH", ("user_id",), n))
    A.check_partition_distribution(SEED, DistributedBy("HASH", ("USER_ID",), 3))  # names: any case
    A.check_partition_distribution(SEED, None)
    add_err(DistributedBy("RANDOM", (), 13), "Cannot assign different distribution type. default is: HASH")
    add_err(DistributedBy("HASH", ("user_id",), 0), "Cannot assign hash distribution buckets less than 1")
    add_err(
        DistributedBy("HASH", ("user_id", "date"), 13),
        "Cannot assign hash distribution with different distribution cols. "
        "new is: [`user_id` LARGEINT NOT NULL, `date` DATE NOT NULL] default is: [`user_id` LARGEINT NOT NULL]",
    )
    add_err(
        DistributedBy("HASH", ("city",), 13),
        "Cannot assign hash distribution with different distribution cols. "
        "new is: [`city` VARCHAR(20) NULL] default is: [`user_id` LARGEINT NOT NULL]",
    )
    with pytest.raises(AnalysisError, match=r"exceeds the maximum allowed value \(768\)"):
        A.check_partition_distribution(SEED, DistributedBy("HASH", ("user_id",), 100000))


def test_add_partition_to_a_random_table():
    random_table = dataclasses.replace(SEED, keys=KeysDesc("DUPLICATE", ("user_id",)), distribution=None)
    A.check_partition_distribution(random_table, DistributedBy("RANDOM", (), 20))
    A.check_partition_distribution(random_table, DistributedBy("RANDOM", (), None, auto=True))
    with pytest.raises(AnalysisError) as e:
        A.check_partition_distribution(random_table, DistributedBy("HASH", ("user_id",), 10))
    assert e.value.message == "Cannot assign different distribution type. default is: RANDOM"
    with pytest.raises(AnalysisError) as e:
        A.check_partition_distribution(random_table, DistributedBy("RANDOM", (), 0))
    assert e.value.message == "Cannot assign random distribution buckets less than 1"


def test_create_table_buckets_0_is_an_analysis_error():
    """Doris regression-test/suites/ddl_p0/test_table_with_buckets (CREATE TABLE ... BUCKETS 0)."""
    from dorisql.syntax import parse

    for kind, sql in (("hash", "HASH(k)"), ("random", "RANDOM")):
        with pytest.raises(AnalysisError) as e:
            parse(f"CREATE TABLE t (k INT) DISTRIBUTED BY {sql} BUCKETS 0")
        assert e.value.message == f"Number of {kind} distribution should be greater than zero."
    # ADD PARTITION ... BUCKETS 0 parses too: the engine refuses it against the table's distribution.
    (stmt,) = parse("ALTER TABLE t ADD PARTITION p VALUES LESS THAN (1) DISTRIBUTED BY HASH(k) BUCKETS 0")
    assert stmt.actions[0].distribution.buckets == 0


# ----------------------------------------------------------------------------- CREATE TABLE validation (issue 11)


def parse_err(sql: str, message: str, exc=AnalysisError) -> None:
    from dorisql.syntax import parse

    with pytest.raises(exc) as e:
        parse(sql)
    assert e.value.message == message


DUP = "CREATE TABLE t (k INT, {col}) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"


def test_unknown_table_properties_are_refused():
    """InternalCatalog.createOlapTable: whatever property is left unconsumed is refused."""
    parse_err(
        DUP.format(col="v INT") + " PROPERTIES ('replication_num' = '1', 'no_such_thing' = 'x', 'colour' = 'red')",
        "Unknown properties: {no_such_thing=x, colour=red}",
    )
    from dorisql.syntax import parse

    known = (
        ("replication_allocation", "tag.location.default: 1"),
        ("light_schema_change", "true"),
        ("compression", "zstd"),
        ("binlog.enable", "false"),
        ("bloom_filter_columns", "v"),
        ("storage_format", "V2"),
        ("enable_light_delete", "true"),
        ("estimate_partition_size", "10G"),
        ("distribution_hash_type", "crc32"),
    )
    (stmt,) = parse(DUP.format(col="v INT") + " PROPERTIES (" + ", ".join(f"'{k}' = '{v}'" for k, v in known) + ")")
    assert stmt.properties == known


def test_distribution_hash_type():
    """regression suite test_distribution_hash_type_identity: "murmur" is refused."""
    from dorisql.syntax import parse

    with pytest.raises(AnalysisError) as e:
        parse(DUP.format(col="v INT") + " PROPERTIES ('distribution_hash_type' = 'murmur')")
    assert e.value.message.startswith("Invalid distribution_hash_type")
    # identity buckets differently from the crc32 dorisql writes with: refused, not silently ignored
    with pytest.raises(NotSupportedError):
        parse(DUP.format(col="v INT") + " PROPERTIES ('distribution_hash_type' = 'identity')")
    # crc32 is consumed as Doris consumes it: the default, kept as no property (SHOW CREATE TABLE
    # prints none)
    (stmt,) = parse(
        DUP.format(col="v INT") + " PROPERTIES ('replication_num' = '1', 'DISTRIBUTION_HASH_TYPE' = 'CRC32')"
    )
    assert A.normalize_create_table(stmt).properties == (("replication_num", "1"),)


@pytest.mark.parametrize(
    ("col", "message"),
    [
        ("a ARRAY<INT> DEFAULT '[1]'", "Array type column default value only support null or []"),
        ("m MAP<INT, INT> DEFAULT '{}'", "Map type column default value just support null"),
        ("s STRUCT<f:INT> DEFAULT '{}'", "Struct type column default value just support null"),
        ("j JSON DEFAULT '{}'", "Json or Variant type column default value just support null"),
        ("v VARIANT DEFAULT '{}'", "Json or Variant type column default value just support null"),
    ],
)
def test_defaults_on_complex_columns(col, message):
    """Nereids ColumnDefinition.validate."""
    parse_err(DUP.format(col=col), message)


def test_allowed_defaults_on_complex_columns():
    from dorisql.syntax import parse

    for col, default in (
        ("a ARRAY<INT> DEFAULT '[]'", Literal("[]", "string")),
        ("a ARRAY<INT> DEFAULT NULL", Literal(None, "null")),
        ("m MAP<INT, INT> DEFAULT NULL", Literal(None, "null")),
        ("j JSON NULL", None),
    ):
        (stmt,) = parse(DUP.format(col=col))
        assert stmt.columns[1].default == default, col


@pytest.mark.parametrize("inner", ["HLL", "BITMAP", "QUANTILE_STATE", "JSON", "JSONB"])
def test_aggregate_state_and_json_types_are_refused_inside_nested_types(inner):
    """regression suite datatype_p0/nested_types/create_nestedtypes_with_unsupport_types."""
    shown = "json" if inner == "JSONB" else inner.lower()
    parse_err(DUP.format(col=f"c ARRAY<{inner}>"), f"ARRAY unsupported sub-type: {shown}")
    parse_err(DUP.format(col=f"c MAP<STRING, {inner}>"), f"MAP unsupported sub-type: {shown}")
    parse_err(DUP.format(col=f"c MAP<{inner}, STRING>"), f"MAP unsupported sub-type: {shown}")
    parse_err(DUP.format(col=f"c STRUCT<f1:{inner}>"), f"STRUCT unsupported sub-type: {shown}")
    parse_err(DUP.format(col=f"c ARRAY<STRUCT<f1:{inner}>>"), f"STRUCT unsupported sub-type: {shown}")


def test_complex_map_keys_are_refused():
    parse_err(DUP.format(col="m MAP<ARRAY<INT>, INT>"), "MAP unsupported sub-type: array<int>")
    parse_err(DUP.format(col="m MAP<STRUCT<a:INT>, INT>"), "MAP unsupported sub-type: struct<a:int>")
    from dorisql.syntax import parse

    (stmt,) = parse(DUP.format(col="m MAP<STRING, ARRAY<MAP<INT, STRING>>>"))  # complex values are fine
    key, value = stmt.columns[1].type.args
    assert key == DataType("STRING") and value.name == "ARRAY" and value.args[0].name == "MAP"


def test_nullable_aggregate_state_columns_are_accepted():
    """regression suite test_analyze_with_agg_complex_type: `device_id bitmap BITMAP_UNION NULL`."""
    from dorisql.syntax import parse

    (stmt,) = parse(
        "create table t (datekey int, device_id bitmap BITMAP_UNION NULL, qs QUANTILE_STATE QUANTILE_UNION NULL, "
        "h hll hll_union) aggregate key (datekey) distributed by hash(datekey) buckets 1 "
        "properties('replication_num' = '1')"
    )
    columns = A.normalize_create_table(stmt).columns
    assert [c.nullable for c in columns] == [True, False, False, False]
