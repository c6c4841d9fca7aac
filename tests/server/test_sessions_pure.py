"""A server's sessions side by side, without Spark: what each connection's engine owns stays its own."""

from __future__ import annotations

import os
import threading

from dorisql.storage.locks import table_lock
from dorisql.syntax import parse_one
from dorisql.tablets import transactions


def test_the_commit_gate_reads_through_the_committing_connections_catalog(tmp_path, make_engine):
    """Every Delta commit first finishes the committed transactions of its table, read from a
    catalog. A server's connections each have an engine with a catalog of its own, used on the
    connection's thread and closed when the connection ends: a commit reads through its own
    connection's, never through the one of whichever connection ran a statement last (closing
    that would close a catalog connection in the middle of this commit)."""
    warehouse = tmp_path / "wh"
    engines = [make_engine(warehouse) for _ in range(2)]
    both_ran = threading.Barrier(2, timeout=30)
    seen: dict[int, object] = {}
    errors: list[BaseException] = []

    def connection(i: int) -> None:
        try:
            engines[i].execute(parse_one("SHOW DATABASES"))
            both_ran.wait()
            with table_lock(str(warehouse / "db" / str(10 + i))):  # the gate runs first
                seen[i] = transactions._gate_catalog(os.path.abspath(warehouse))
            if i == 0:
                engines[0].close()  # the connection ends...
        except BaseException as exc:  # reported on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=connection, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert seen[0] is engines[0].catalog and seen[1] is engines[1].catalog
    engines[1].execute(parse_one("CREATE DATABASE d1"))  # ... the other goes on
    with table_lock(str(warehouse / "d1" / "12")):
        assert transactions._gate_catalog(os.path.abspath(warehouse)) is engines[1].catalog
    engines[1].close()
