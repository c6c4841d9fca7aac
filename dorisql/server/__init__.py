"""dorisql server: the MySQL protocol and Doris's HTTP API."""
