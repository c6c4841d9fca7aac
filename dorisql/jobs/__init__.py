"""Background jobs: the runner (`runner`: each job its interval, enable switch and whether it needs
Spark; one thread) and the frontend's job list with `dorisql scheduler` (`scheduler`: the dynamic
partition scheduler, the trash job, compaction).

Layer: above statements (a pass runs the same code as its statement) and compaction; below the
engine façade. Jobs get a `dorisql.session.session.Session` from a factory, not an `Engine`.
"""
