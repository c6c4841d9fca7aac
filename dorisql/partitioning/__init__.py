"""Partitions, pure: the one model of partition values, range arithmetic and routing (`keys`),
dynamic_partition.* and the scheduler's planner (`dynamic`, which takes "now"), AUTO PARTITION
(`auto_partitions`), temporary partitions and REPLACE PARTITION (`temporary`).

Layer: above bucketing; below analysis. No Spark.
"""
