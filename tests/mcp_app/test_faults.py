"""Faults under a running MCP server: PostgreSQL stopped (fast shutdown) and started again while
the server keeps running. While it is down every request gets a clear "unavailable" answer at
once (HTTP 503 with Retry-After, never a 401 for a good token; over stdio a JSON-RPC error), the
health check says so, and the server serves again soon after the database returns, without a
restart. The database is a throwaway embedded server of this module's own."""

from __future__ import annotations

import itertools
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.logged import tracebacks
from tests.mcp_app.conftest import make_server, payload
from tests.mcp_app.test_http import HEADERS, INIT, _call, _token, serve_in_thread
from tests.stoppable_postgres import StoppablePostgres, wait_until

_names = itertools.count()
RECOVERY_BOUND = 30.0  # a bound against hanging, not a measurement (lab/soak.py measures)


@pytest.fixture(scope="module")
def stoppable() -> Iterator[StoppablePostgres]:
    """The module's own PostgreSQL, which its tests stop and start."""
    # not under pytest's tmp_path: its folders are closed to the server's own system user
    server = StoppablePostgres(Path(tempfile.mkdtemp(prefix="ca-stoppable-")))
    yield server
    server.close()


@pytest.fixture
def outage_url(
    stoppable: StoppablePostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A fresh codeatlas database on the stoppable server, running again after the test."""
    if not stoppable.running():
        stoppable.start()
    url = stoppable.database(f"fault_{next(_names)}")
    monkeypatch.setenv("CODEATLAS_DATABASE_URL", url)
    monkeypatch.setenv("CODEATLAS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CODEATLAS_EMBEDDING_PROVIDER", "fake")
    yield url
    if not stoppable.running():
        stoppable.start()


@pytest.fixture
def http_mcp(outage_url: str) -> Iterator[str]:
    """The HTTP MCP app on the stoppable database, under uvicorn; yields the server's origin."""
    from core.config import load_settings
    from mcp_app.transports import http_app

    served = http_app(load_settings(), outage_url, "127.0.0.1", 0)
    origin, server, thread = serve_in_thread(served.app)
    yield origin
    server.should_exit = True
    thread.join(timeout=10)
    served.verifier.close()


def _initialize(origin: str, token: str) -> httpx.Response:
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    return httpx.post(origin + "/mcp", json=INIT, headers=auth, timeout=30)


def test_while_the_database_is_down_a_valid_token_gets_503_with_retry_after_never_401(
    http_mcp, outage_url, stoppable, caplog
):
    _id, token = _token(outage_url, "ci-bot", [])
    assert _initialize(http_mcp, token).status_code == 200
    assert httpx.get(http_mcp + "/healthz", timeout=10).json()["database"] == "ok"
    caplog.set_level(logging.WARNING)
    stoppable.stop()

    down = [_initialize(http_mcp, token) for _ in range(3)]
    unknown = _initialize(http_mcp, "cat_not-a-token")  # could not be checked: not "unknown"
    health = httpx.get(http_mcp + "/healthz", timeout=10)
    missing = httpx.post(http_mcp + "/mcp", json=INIT, headers=HEADERS, timeout=10)

    assert [r.status_code for r in down] == [503, 503, 503]
    assert unknown.status_code == 503 and missing.status_code == 401
    assert all(r.headers["retry-after"] == "5" for r in down)
    answer = down[0].json()
    assert answer["error"] == "temporarily_unavailable"
    assert "unavailable right now" in answer["error_description"]
    assert "\n" not in answer["error_description"]
    assert health.status_code == 503 and health.headers["retry-after"] == "5"
    assert health.json() == {"status": "unavailable", "database": "unreachable"}
    assert not tracebacks(caplog)  # one line each, no traceback

    stoppable.start()
    wait_until(
        lambda: _initialize(http_mcp, token).status_code == 200, RECOVERY_BOUND, "initialize"
    )
    assert httpx.get(http_mcp + "/healthz", timeout=10).status_code == 200
    listing = _call(http_mcp + "/mcp", token, "list_repositories", {})
    assert not listing.is_error and payload(listing)["repositories"] == []


def test_over_stdio_a_call_while_the_database_is_down_is_a_json_rpc_error_then_served_again(
    outage_url, stoppable
):
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    from mcp_app.app_context import DATABASE_UNAVAILABLE

    server = make_server(outage_url, "local")

    async def session() -> tuple[Any, MCPError, Any]:
        async with Client(server) as client:  # one session, as one stdio process
            before = await client.call_tool("list_repositories", {})
            stoppable.stop()
            with pytest.raises(MCPError) as refused:
                await client.call_tool("list_repositories", {})
            stoppable.start()
            with anyio.fail_after(RECOVERY_BOUND):
                while True:
                    try:
                        after = await client.call_tool("list_repositories", {})
                        break
                    except MCPError:
                        await anyio.sleep(0.05)
            return before, refused.value, after

    before, error, after = anyio.run(session)
    assert not before.is_error and not after.is_error
    assert payload(after)["repositories"] == []
    assert error.error.code == DATABASE_UNAVAILABLE
    assert error.error.message.startswith("the index database is unavailable right now")
    assert error.error.data == {"retry_after": 5}
