"""What SHOW and DESC print, in Doris's column names and formats: tables, partitions, CREATE
TABLE, data (`objects`); what MySQL clients and tools ask, information_schema (`client_metadata`);
SHOW PROC's tree (`proc`); SHOW BUCKETS (`bucket_reasons`); HELP (`help`).
"""
