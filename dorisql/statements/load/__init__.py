"""Handlers that change rows: INSERT and INSERT OVERWRITE, SELECT and EXPLAIN (`insert`, whose
`query_sources` gives the planner its `QuerySources`), DELETE (`delete`), Stream Load
(`stream_load`, its headers and response in `stream_load_options`), AUTO PARTITION's new
partitions (`new_partitions`).
"""
