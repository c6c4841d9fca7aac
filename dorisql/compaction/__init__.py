"""Compaction: Doris's size-based policy (`policy`, `producer`: pure) and its execution on Delta
tablets (`executor`, `service`: reading through dorisql.tablets).

Layer: above tablets and session; below statements and jobs.
"""
