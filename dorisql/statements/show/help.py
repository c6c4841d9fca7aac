"""HELP <topic>: the syntax summaries a Doris user gets from `HELP CREATE TABLE;` in a MySQL client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dorisql.result import Result

TOPICS: dict[str, str] = {
    "CREATE TABLE": """CREATE TABLE [IF NOT EXISTS] [db.]table_name
(
    column_name TYPE [KEY] [AGG_TYPE] [NULL | NOT NULL] [DEFAULT value]
        [AUTO_INCREMENT] [COMMENT 'text'],
    ...
    [, INDEX idx_name (cols) USING INVERTED [COMMENT 'text']]
)
[ENGINE = olap]
[AGGREGATE KEY(cols) | UNIQUE KEY(cols) | DUPLICATE KEY(cols)]
[COMMENT 'table comment']
[PARTITION BY RANGE(cols) (
     PARTITION p1 VALUES LESS THAN ("value" | MAXVALUE),
     PARTITION p2 VALUES [("lower"), ("upper")),
     FROM ("start") TO ("end") INTERVAL n [YEAR|MONTH|WEEK|DAY|HOUR]
 ) | PARTITION BY RANGE(col) ()          -- with dynamic_partition.* properties
 | PARTITION BY LIST(cols) (
     PARTITION p1 VALUES IN ("v1", "v2"),
     PARTITION p2 VALUES IN (("a", "1"), ("b", "2"))
 )]
DISTRIBUTED BY HASH(cols) | RANDOM [BUCKETS n | BUCKETS AUTO]
[PROPERTIES (
     "replication_num" = "1",
     "estimate_partition_size" = "10G",          -- BUCKETS AUTO
     "dynamic_partition.enable" = "true",
     "dynamic_partition.time_unit" = "DAY",      -- HOUR|DAY|WEEK|MONTH|YEAR
     "dynamic_partition.start" = "-7",
     "dynamic_partition.end" = "3",
     "dynamic_partition.prefix" = "p",
     "dynamic_partition.buckets" = "32"
 )];

Types: BOOLEAN TINYINT SMALLINT INT BIGINT LARGEINT FLOAT DOUBLE DECIMAL(p,s)
       DATE DATETIME[(p)] CHAR(n) VARCHAR(n) STRING JSON
       ARRAY<T> MAP<K,V> STRUCT<name:T,...>
Aggregation types (AGGREGATE KEY tables):
       SUM MAX MIN REPLACE REPLACE_IF_NOT_NULL""",
    "ALTER TABLE": """ALTER TABLE [db.]table
    ADD PARTITION [IF NOT EXISTS] p
        VALUES LESS THAN ("v") | VALUES [("a"), ("b")) | VALUES IN (...)
        [DISTRIBUTED BY HASH(cols) BUCKETS n]
  | DROP PARTITION [IF EXISTS] p [FORCE]
  | RENAME PARTITION old_name new_name
  | RENAME new_table_name
  | SET ("key" = "value", ...)
        -- dynamic_partition.*, estimate_partition_size, ...""",
    "SHOW PARTITIONS": """SHOW PARTITIONS FROM [db.]table
    [WHERE PartitionName = 'p' | PartitionName LIKE 'p2020%' | Buckets > 8 ...]
    [ORDER BY column [ASC|DESC], ...] [LIMIT n [OFFSET m]];""",
    "SHOW DYNAMIC PARTITION TABLES": "SHOW DYNAMIC PARTITION TABLES [FROM db];",
    "SHOW BUCKETS": """SHOW BUCKETS FROM [db.]table;
    dorisql extension: why each partition has its bucket count
    (estimate, N, M, rule).""",
    "INSERT": """INSERT INTO [db.]table [PARTITION (p1, ...)] [(col, ...)]
    VALUES (v, ...), ... | SELECT ...;
SELECT * FROM local("file_path" = "data.csv", "format" = "csv",
                    "column_separator" = ",")
    reads a local file (csv, json, parquet, orc).""",
    "SELECT": """SELECT ... FROM [db.]table [PARTITION (p1, ...)]
    [WHERE ...] [GROUP BY ...] [ORDER BY ...] [LIMIT n];
EXPLAIN SELECT ...   shows partitions=k/n and tablets=k/n for each scan.""",
    "TRUNCATE TABLE": "TRUNCATE TABLE [db.]table [PARTITION (p1, ...)];",
    "DELETE": """DELETE FROM [db.]table [PARTITION p | PARTITIONS (p1, ...)]
WHERE col op value [AND ...];   -- op: = != < <= > >= [NOT] IN (...) IS [NOT] NULL
SHOW DELETE [FROM db];""",
    "DROP TABLE": "DROP TABLE [IF EXISTS] [db.]table [FORCE];",
    "ADMIN COMPACT TABLE": """ADMIN COMPACT TABLE [db.]table PARTITION p WHERE type = 'BASE' | 'CUMULATIVE';
SHOW TABLETS FROM [db.]table [PARTITION (p1, ...)];
SHOW PROC '/compactions';""",
    "ADMIN SET FRONTEND CONFIG": """ADMIN SET FRONTEND CONFIG ("key" = "value");
Keys: dynamic_partition_enable, dynamic_partition_check_interval_seconds,
      max_dynamic_partition_num, autobucket_min_buckets, autobucket_max_buckets,
      cluster_backends, cluster_disks_per_backend, cluster_disk_capacity
      (the last three: the topology BUCKETS AUTO assumes)""",
    "SET": """SET [SESSION] var = value;
Variables: enable_insert_strict (true),
           dorisql_now ('YYYY-MM-DD HH:MM:SS' pins the clock; '' unpins it)""",
}


@dataclass
class HelpResult(Result):
    """HELP's answer. A terminal shows it as plain text, as the mysql client shows server help;
    batch formats (TSV, CSV, JSON) keep the rows and columns."""

    shown_as_text: ClassVar[bool] = True


#: Doris's HELP result columns: one topic, or (several matches) the matching names.
TOPIC_COLUMNS = ("name", "description", "example")
LIST_COLUMNS = ("name", "is_it_category")


def lookup(topic: str) -> Result:
    """The topic's syntax summary, or (like MySQL's HELP) the list of topics that contain the words."""
    key = " ".join(topic.upper().split())
    if key in TOPICS:
        return HelpResult(columns=list(TOPIC_COLUMNS), rows=[(key, TOPICS[key], "")])
    matches = sorted(name for name in TOPICS if key and key in name)
    message = None
    if not matches:
        matches, message = sorted(TOPICS), f"Nothing found for '{topic}'; the topics are listed."
    return HelpResult(columns=list(LIST_COLUMNS), rows=[(name, "N") for name in matches], message=message)
