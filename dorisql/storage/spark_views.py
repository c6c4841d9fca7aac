"""Temporary views of planned queries: dropped as soon as Spark no longer needs their names.

An in-process Spark analyses a query eagerly, so its views can go when `spark.sql` returns;
Spark Connect analyses when the DataFrame runs, so there they wait for the statement's end.
"""

from __future__ import annotations

import threading

from dorisql.storage.spark import is_connect

#: Spark Connect: views of queries whose DataFrames may not have run yet, by (session, thread).
_PENDING_VIEWS: dict[tuple[int, int], set[str]] = {}
_PENDING_LOCK = threading.Lock()


def release_views(spark, views) -> None:
    """Drop a plan's views once `spark.sql` has returned. An in-process Spark analyses eagerly: the
    DataFrame keeps the views' plans, so the names can go now. Spark Connect analyses when the
    DataFrame runs, by name: there they go when the statement ends (`drop_pending_views`)."""
    if not is_connect(spark):
        drop_views(spark, views)
        return
    with _PENDING_LOCK:
        _PENDING_VIEWS.setdefault((id(spark), threading.get_ident()), set()).update(views)


def drop_pending_views(spark) -> None:
    """The end of a statement on this thread: drop the views `release_views` kept (Spark Connect)."""
    with _PENDING_LOCK:
        views = _PENDING_VIEWS.pop((id(spark), threading.get_ident()), set())
    drop_views(spark, views)


def drop_views(spark, views) -> None:
    for view in list(views):
        try:
            spark.catalog.dropTempView(view)
        except Exception:  # pragma: no cover
            pass
