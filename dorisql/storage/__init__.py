"""Files, Delta and Spark, and nothing about Doris's catalog: Delta tables staged by Spark and
committed with `deltalake` (`delta`: `DeltaStore`, the one entry point; `log`: open, snapshot,
commit; `snapshot`: what a version holds; `staging`: files before their commit; `columns`,
`partition_files`, `vacuum`: schema changes, partition-level commits, garbage; `spark_io`:
reading files, Spark to Arrow schemas), the physical layout of a table's files (`layout`), locks,
file sizes and Parquet statistics, the SparkSession factory (`spark`) and its temporary views
(`spark_views`), local() files opened safely (`local_files`), the JVM's stderr (`jvm_stderr`).

Layer: above the ground modules only; knows no catalog, tablets or compaction (an import-linter
contract).
"""
