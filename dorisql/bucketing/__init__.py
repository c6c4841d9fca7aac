"""Buckets, pure: BUCKETS AUTO's estimation (`auto_buckets`), the bucket hash as Spark SQL and in
Python (`hashing`), the bucket-count limit (`bucket_limits`).

Layer: the lowest package; imports only the ground modules.
"""
