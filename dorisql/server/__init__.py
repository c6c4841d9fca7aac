"""`dorisql server`: the MySQL protocol (`mysql`, its packets read by `wire` and `framing`) and
Doris's HTTP API (`http`: Stream Load, health, SHOW PROC), what the listeners share (`context`),
start and stop (`main`).

Layer: a front door over the engine façade, beside the shell; neither imports the other (the
command line starts the server).
"""
