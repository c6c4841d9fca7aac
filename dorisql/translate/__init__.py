"""Doris SQL -> Spark SQL, pure: the function allow-list and rewrites (`functions`), literals and
defaults (`literals`), expressions (`expressions`), system variables and DATABASE()/VERSION()
(`variables`), CREATE TABLE AS SELECT column types (`ctas_columns`).

Layer: above syntax; below catalog, session and everything that plans or runs queries. Starts no
Spark and touches no storage (an import-linter contract).
"""
