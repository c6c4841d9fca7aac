"""DDL handlers: CREATE/DROP/ALTER/TRUNCATE of databases and tables (`table_ddl`), CREATE TABLE AS
SELECT / LIKE and UPDATE (`create_as`), the partition list over time (`partitions`) and a new
partition's bucket count (`bucket_counts`), column changes (`alter_columns`), the recycle bin
(`recycle_bin`), colocation groups (`colocation_groups`).
"""
