"""Statements of one search run at the same time on pooled connections: hybrid search's
retrievers, and the lexical retriever's groups of repositories (docs/lexical.md)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

from retrieval.principals import DbConnection
from retrieval.request_budget import bounded_statements

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

# lends a free connection for one task's statements, or None when none is free right now
Connections = Callable[[], AbstractContextManager["DbConnection | None"]]
# how long a task waits for a free pooled connection before it runs on the caller's
SPARE_WAIT_SECONDS = 0.05
# one task's statements on a connection
Task = Callable[[DbConnection], Any]


def run_concurrently(
    conn: DbConnection, tasks: list[Task], connections: Connections | None = None
) -> list[Any]:
    """Each task's result, in order. Given `connections`, they run at the same time, the first
    on `conn` and each other on a lent connection (the server works on them in parallel and
    psycopg releases the GIL while it waits), so they take as long as the slowest instead of
    their sum; a task lent no connection runs on `conn` afterwards. Otherwise they run one after
    another on `conn`. Lent connections see only committed rows: commit what the tasks depend
    on first."""
    if connections is None or len(tasks) < 2:
        return [task(conn) for task in tasks]

    def lent(task: Task) -> tuple[bool, Any]:
        with connections() as other:
            if other is None:
                return (False, None)
            with bounded_statements(other):  # the request's statement timeout, here too
                return (True, task(other))

    first, *others = tasks
    with ThreadPoolExecutor(max_workers=len(others)) as threads:
        # (in the caller's context: its request budget, retrieval/request_budget.py)
        started = [threads.submit(contextvars.copy_context().run, lent, task) for task in others]
        results = [first(conn)]
        for task, future in zip(others, started, strict=True):
            ran, result = future.result()
            results.append(result if ran else task(conn))
    return results


def spare_connections(pool: ConnectionPool[Any]) -> Connections:
    """`Connections` from a psycopg pool: a connection free within `SPARE_WAIT_SECONDS`, else
    None (a busy pool never makes a search wait for, or fail on, its concurrent statements)."""

    @contextmanager
    def spare() -> Generator[DbConnection | None, None, None]:
        from psycopg_pool import PoolTimeout

        with ExitStack() as lending:
            try:
                conn = lending.enter_context(pool.connection(timeout=SPARE_WAIT_SECONDS))
            except PoolTimeout:
                conn = None
            yield conn

    return spare
