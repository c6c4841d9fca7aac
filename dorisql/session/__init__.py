"""One user's session: the state every statement handler works with (`session.Session`: catalog,
warehouse, settings and variables, the clock, Spark, cancel), who the user is and what they may do
and see (`access`, `visibility`), how any failure becomes a dorisql error (`failures`) and what a
statement that committed reports (`committed`).

Layer: above catalog, storage, translate and auth; below tablets and everything that executes.
"""
