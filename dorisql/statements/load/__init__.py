"""Handlers that change rows: INSERT and INSERT OVERWRITE, SELECT and EXPLAIN (`insert`, with the
planner's sources in `query_sources`), DELETE (`delete`), Stream Load (`stream_load`, its headers
and response in `stream_load_options`), AUTO PARTITION's new partitions (`new_partitions`).
"""
