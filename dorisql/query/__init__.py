"""Queries: the planner (`planner`: Doris SQL -> one Spark plan over one sqlglot tree), what it reads
through (`sources`), partition and bucket pruning (`pruning`), the colocate join (`colocate_join`)
and its residual conditions (`residual`), local()/s3()/hdfs() (`table_functions`).

Layer: above tablets (table scans) and session; below statements. Never imports statements or the
front doors (an import-linter contract).
"""
