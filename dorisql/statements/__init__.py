"""Statement handlers: one table from statement type to handler (`dispatch`, with the checks every
statement passes), grouped by kind: `ddl` (tables, partitions, schema change, the recycle bin,
colocation groups, CTAS), `load` (INSERT, DELETE, Stream Load, AUTO PARTITION), `show` (SHOW, DESC,
SHOW PROC, what MySQL clients ask, information_schema), `admin` (ADMIN CHECK/COMPACT/CLEAN TRASH,
users and grants), and `session_statements` (USE, SET, SYNC, ADMIN SET FRONTEND CONFIG).

Each handler takes a `dorisql.session.session.Session` and the statement and returns a `dorisql.result.Result`.

Layer: above query, compaction, tablets and session; below jobs and the engine façade.
"""
