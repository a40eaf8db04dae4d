"""A statement that outlasts the time budget, through a real in-memory MCP client: a search
blocked inside PostgreSQL (behind another session's lock on the chunks) is cancelled at its
budget and answered with the budget's error, and the next call on the same server's pool is
served."""

from __future__ import annotations

from typing import Any

import anyio
import psycopg

from tests.mcp_app.conftest import make_server, payload
from tests.retrieval.tracker_repo import REPORT, tracker_repo  # noqa: F401


def test_a_search_blocked_in_the_database_is_cancelled_at_its_budget_and_the_pool_serves_on(
    tracker_repo,  # noqa: F811
):
    from mcp.client import Client

    # a budget far above what a search of this small index takes, far below the lock's hold
    server = make_server(tracker_repo.database_url, "local", request_seconds=3)
    locker = psycopg.connect(tracker_repo.database_url)
    # (should a statement not be cancelled, the server ends the lock's hold, and the test fails)
    locker.execute("SET idle_in_transaction_session_timeout = '20s'")
    locker.execute("LOCK TABLE code_chunks IN ACCESS EXCLUSIVE MODE")

    async def calls() -> tuple[list[Any], list[Any]]:
        async with Client(server) as client:
            blocked = [
                await client.call_tool("search_code", {"query": "parse header"}),
                await client.call_tool("locate", {"issue_text": REPORT}),
            ]
            locker.rollback()  # the lock is gone: the same session's pool answers again
            served = [
                await client.call_tool("search_code", {"query": "parse header"}),
                await client.call_tool("locate", {"issue_text": REPORT}),
            ]
            return blocked, served

    try:
        blocked, served = anyio.run(calls)
    finally:
        locker.close()
    for result in blocked:
        assert result.is_error
        text = result.content[0].text
        assert "took more than its 3 s budget (a database statement was cancelled" in text
        assert "raise CODEATLAS_REQUEST_SECONDS" in text
    assert [r.is_error for r in served] == [False, False]
    assert payload(served[0])["results"]
    assert payload(served[1])["files"][0]["path"] == "tracker/parser.py"
