"""The time budget bounds one slow statement too: PostgreSQL cancels a statement that outlasts
what is left of the request's budget, on the request's own connection and on those lent to its
concurrent lookups, and the cancel is the budget's error with the connection left usable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from psycopg.pq import TransactionStatus

from retrieval.concurrency import run_concurrently, spare_connections
from retrieval.request_budget import RequestOverBudgetError, request_budget

# far longer than the budgets below: a statement not cancelled makes its test fail, slowly
SLOW = "SELECT pg_sleep(10)"


@pytest.fixture
def pool(database_url: str) -> Iterator[Any]:
    """A pool of three connections, all open (so a lookup is always lent one)."""
    from core.database import open_pool

    opened = open_pool(database_url, max_size=3, name="budget-test")
    opened.resize(min_size=3, max_size=3)
    opened.wait()
    yield opened
    opened.close()


def _timeout(conn: Any) -> str:
    return conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"]


@pytest.mark.parametrize("slow_on", ["the request's own connection", "a lent connection"])
def test_a_statement_past_the_budget_is_cancelled_and_the_pool_serves_the_next_request(
    pool, slow_on
):
    ran_on: list[Any] = []

    def slow(conn: Any) -> None:
        ran_on.append(conn)
        conn.execute(SLOW)

    def quick(conn: Any) -> int:
        return conn.execute("SELECT 1 AS one").fetchone()["one"]

    tasks = [slow, quick] if slow_on == "the request's own connection" else [quick, slow]
    with pool.connection() as conn:
        with pytest.raises(RequestOverBudgetError) as refused, request_budget(0.2, conn=conn):
            run_concurrently(conn, tasks, spare_connections(pool))
        assert (ran_on[0] is conn) == (slow_on == "the request's own connection")
        assert "a database statement was cancelled" in str(refused.value)
        assert "raise CODEATLAS_REQUEST_SECONDS" in str(refused.value)
        # rolled back, not left aborted; the timeout ended with the request's transaction
        assert conn.info.transaction_status == TransactionStatus.IDLE
        assert _timeout(conn) == "0"
    with pool.connection() as conn, request_budget(60, conn=conn):
        assert run_concurrently(conn, [quick, quick, quick], spare_connections(pool)) == [1] * 3
    for lent in range(3):
        with pool.connection() as conn:
            assert _timeout(conn) == "0", f"connection {lent} kept a request's timeout"


def test_an_autocommit_connection_as_the_cli_s_is_bounded_and_left_as_it_was(database_url):
    from core.database import connect

    conn = connect(database_url, autocommit=True)
    try:
        with pytest.raises(RequestOverBudgetError), request_budget(0.2, conn=conn):
            conn.execute(SLOW)
        assert conn.info.transaction_status == TransactionStatus.IDLE
        assert _timeout(conn) == "0"
        with request_budget(60, conn=conn):
            assert _timeout(conn) not in ("0", "")  # inside a request: what is left of 60 s
            assert conn.execute("SELECT 2 AS two").fetchone() == {"two": 2}
    finally:
        conn.close()


def test_statements_outside_a_request_are_not_bounded(database_url):
    from core.database import connect

    conn = connect(database_url, autocommit=True)
    try:
        assert _timeout(conn) == "0"
        assert run_concurrently(conn, [_timeout, _timeout]) == ["0", "0"]
    finally:
        conn.close()
