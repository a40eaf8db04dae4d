"""Admission to the HTTP server: token checks on their own connections, per-principal rate and
concurrency limits and failed-token limits answered 429 with Retry-After, DNS-rebinding
protection however the server is bound."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest

from core.database import connect
from mcp_app.admission import Admission
from mcp_app.limits import ServerLimits
from tests.mcp_app.conftest import payload
from tests.mcp_app.test_http import HEADERS, INIT, _token


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _request(token: str | None, method: str = "POST", client: str = "10.0.0.1") -> dict:
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    return {"type": "http", "method": method, "path": "/mcp", "headers": headers,
            "client": (client, 5000)}  # fmt: skip


async def _verify(token: str) -> Any:
    """Tokens 'alice' and 'bob' are valid (subjects 1 and 2); anything else is not."""
    return {"alice": SimpleNamespace(subject="1"), "bob": SimpleNamespace(subject="2")}.get(token)


class Recorder:
    """An ASGI app answering 200, optionally held open until released."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.hold = False
        self.entered = 0

    async def __call__(self, scope, receive, send) -> None:
        self.entered += 1
        if self.hold:
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _call(admission: Admission, scope: dict) -> tuple[int, dict[bytes, bytes]]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    await admission(scope, receive, send)
    start = sent[0]
    return start["status"], dict(start["headers"])


def test_a_principal_over_its_concurrency_gets_429_while_another_principal_gets_in():
    limits = ServerLimits(max_concurrent_requests=2)
    app = Recorder()
    app.hold = True
    admission = Admission(app, _verify, limits)
    answers: list[int] = []

    async def run() -> None:
        async with anyio.create_task_group() as tasks:
            for _ in range(2):
                tasks.start_soon(lambda: _call(admission, _request("alice")))
            with anyio.fail_after(10):  # bounded wait for both to be inside
                while app.entered < 2:
                    await anyio.sleep(0.01)
            status, headers = await _call(admission, _request("alice"))
            answers.append(status)
            assert headers[b"retry-after"] == b"1"
            app.hold = False
            answers.append((await _call(admission, _request("bob")))[0])
            app.release.set()
        answers.append((await _call(admission, _request("alice")))[0])

    anyio.run(run)
    assert answers == [429, 200, 200]


def test_a_principal_over_its_rate_gets_429_with_retry_after_until_the_minute_passes():
    clock = Clock()
    admission = Admission(Recorder(), _verify, ServerLimits(requests_per_minute=3), clock)
    statuses = [anyio.run(_call, admission, _request("alice"))[0] for _ in range(3)]
    clock.now += 20
    status, headers = anyio.run(_call, admission, _request("alice"))
    assert statuses == [200, 200, 200] and status == 429
    assert headers[b"retry-after"] == b"40"
    assert anyio.run(_call, admission, _request("bob"))[0] == 200
    clock.now += 41
    assert anyio.run(_call, admission, _request("alice"))[0] == 200


def test_a_token_that_could_not_be_checked_gets_503_not_401_and_counts_as_no_failure():
    from core.serving_pool import DatabaseDownError

    async def database_down(token: str) -> Any:
        raise DatabaseDownError("the index database is unavailable right now; retry in 5 s")

    admission = Admission(Recorder(), database_down, ServerLimits(failed_tokens_per_minute=1))
    answers = [anyio.run(_call, admission, _request("alice")) for _ in range(3)]
    assert [status for status, _headers in answers] == [503, 503, 503]
    assert answers[0][1][b"retry-after"] == b"5"
    assert not admission.failures.events.get("10.0.0.1")


def test_an_address_guessing_tokens_is_refused_with_429_even_with_a_valid_one_later():
    clock = Clock()
    admission = Admission(Recorder(), _verify, ServerLimits(failed_tokens_per_minute=5), clock)
    for i in range(5):
        anyio.run(_call, admission, _request(f"guess-{i}", client="10.9.9.9"))
    status, headers = anyio.run(_call, admission, _request("alice", client="10.9.9.9"))
    assert status == 429 and int(headers[b"retry-after"]) == 60
    assert anyio.run(_call, admission, _request("alice", client="10.0.0.2"))[0] == 200
    clock.now += 61
    assert anyio.run(_call, admission, _request("alice", client="10.9.9.9"))[0] == 200


@pytest.fixture
def served(shop_repo, request):
    """The real HTTP app (bound as given) under uvicorn; yields its /mcp URL."""
    from core.config import load_settings
    from mcp_app.transports import http_app
    from orchestration.webhooks.background import serving

    host, limits = request.param
    http = http_app(load_settings(), shop_repo.database_url, host, 0, limits)
    try:
        with serving(http.app) as url:
            yield url + "/mcp"
    finally:
        http.verifier.close()


def _wait_for_lock_waiters(database_url: str, count: int, timeout: float = 60.0) -> None:
    """Return once `count` sessions wait for a lock (bounded: fails after `timeout`)."""
    deadline = time.monotonic() + timeout
    with connect(database_url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT count(*) AS n FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()
            if row["n"] >= count:
                return
            assert time.monotonic() < deadline, f"{row['n']} of {count} calls reached the lock"
            time.sleep(0.05)


@pytest.mark.parametrize(
    "served", [("127.0.0.1", ServerLimits(max_concurrent_requests=16))], indirect=True
)
def test_a_valid_token_is_accepted_while_tools_hold_every_pooled_connection(served, shop_repo):
    from mcp_app.app_context import ServerConfig
    from tests.mcp_app.test_http import _call

    pool_size = ServerConfig.pool_size
    _id, token = _token(shop_repo.database_url, "second", ["shop"])
    # the lock is released (the blocker closed) before the threads are joined, even on failure
    with ThreadPoolExecutor(pool_size) as threads, connect(shop_repo.database_url) as blocker:
        # every tool call takes a pooled connection, then waits for this lock
        blocker.execute("LOCK TABLE repositories IN ACCESS EXCLUSIVE MODE")
        calls = [
            threads.submit(_call, served, token, "list_repositories", {}) for _ in range(pool_size)
        ]
        _wait_for_lock_waiters(shop_repo.database_url, pool_size)
        auth = {**HEADERS, "Authorization": f"Bearer {token}"}
        assert httpx.post(served, json=INIT, headers=auth, timeout=30).status_code == 200
        blocker.commit()
        results = [call.result(timeout=60) for call in calls]
    assert [payload(r)["repositories"][0]["name"] for r in results] == ["shop"] * pool_size


@pytest.mark.parametrize(
    "served", [("0.0.0.0", ServerLimits(allowed_hosts=("atlas.example.com",)))], indirect=True
)
def test_bound_to_all_interfaces_foreign_hosts_and_origins_are_refused(served, shop_repo):
    url = served
    _id, token = _token(shop_repo.database_url, "rebinder", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    port = url.split(":")[2].split("/")[0]
    foreign = httpx.post(url, json=INIT, headers={**auth, "Host": "evil.example"}, timeout=10)
    origin = httpx.post(
        url, json=INIT, headers={**auth, "Origin": "http://evil.example"}, timeout=10
    )
    allowed = httpx.post(
        url, json=INIT, headers={**auth, "Host": "atlas.example.com", "Origin":
                                  "https://atlas.example.com"}, timeout=10)  # fmt: skip
    local = httpx.post(url, json=INIT, headers={**auth, "Host": f"localhost:{port}"}, timeout=10)
    assert foreign.status_code == 421 and origin.status_code == 403
    assert allowed.status_code == 200 and local.status_code == 200


@pytest.mark.parametrize("served", [("127.0.0.1", ServerLimits())], indirect=True)
def test_a_foreign_or_userinfo_host_is_refused_before_the_token_and_never_echoed(served, shop_repo):
    url = served
    port = url.split(":")[2].split("/")[0]
    origin = url.removesuffix("/mcp")
    _id, token = _token(shop_repo.database_url, "hostile", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    userinfo = {"Host": f"127.0.0.1:{port}@evil.example"}
    answers = {
        "userinfo, token": httpx.post(url, json=INIT, headers={**auth, **userinfo}, timeout=10),
        "userinfo, no token": httpx.post(url, json=INIT, headers={**HEADERS, **userinfo}),
        "foreign, no token": httpx.post(
            url, json=INIT, headers={**HEADERS, "Host": "evil.example"}
        ),
        "foreign, metadata": httpx.get(
            origin + "/.well-known/oauth-protected-resource/mcp", headers={"Host": "evil.example"}
        ),
    }
    # a load balancer's probe names the server by its address: health answers any Host
    health = httpx.get(origin + "/healthz", headers={"Host": "10.1.2.3:8765"})
    statuses = {case: r.status_code for case, r in answers.items()}
    assert statuses == {
        "userinfo, token": 400,
        "userinfo, no token": 400,
        "foreign, no token": 421,
        "foreign, metadata": 421,
    }
    assert health.status_code == 200 and health.json() == {"status": "ok", "database": "ok"}
    assert not any("evil" in r.text or "evil" in str(r.headers) for r in answers.values())
    unauthorized = httpx.post(url, json=INIT, headers={**HEADERS, "Host": f"localhost:{port}"})
    document = httpx.get(origin + "/.well-known/oauth-protected-resource/mcp").json()
    assert unauthorized.status_code == 401
    assert (
        f'resource_metadata="http://localhost:{port}/.well-known/'
        in (unauthorized.headers["www-authenticate"])
    )
    assert document["resource"] == f"{origin}/mcp"


def test_a_body_not_sent_in_time_is_answered_408_and_a_client_leaving_is_no_traceback(
    shop_repo, monkeypatch
):
    from core import request_guard
    from core.config import load_settings
    from mcp_app.transports import http_app
    from orchestration.webhooks.background import serving
    from tests.slow_clients import answer, partial_request

    monkeypatch.setattr(request_guard, "BODY_SECONDS", 1.0)
    _id, token = _token(shop_repo.database_url, "slow", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    records: list[Any] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    loggers = [logging.getLogger(n) for n in ("uvicorn", "")]  # uvicorn's do not propagate
    http = http_app(load_settings(), shop_repo.database_url, "127.0.0.1", 0)
    try:
        with serving(http.app) as origin:
            for logger in loggers:
                logger.addHandler(handler)
            stalled = answer(partial_request(origin + "/mcp", auth))
            for _ in range(50):
                partial_request(origin + "/mcp", auth).close()
            assert httpx.post(origin + "/mcp", json=INIT, headers=auth).status_code == 200
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
        http.verifier.close()
    assert stalled.startswith(b"HTTP/1.1 408")
    assert not any(r.exc_info for r in records)
    assert len([r for r in records if "disconnected" in r.getMessage()]) <= 1


RAW_BODIES = [
    b"",
    b"{",
    b"not json",
    b"\xff\xfe\x00",
    b"[]",
    b"[1, 2, 3]",
    b'{"jsonrpc": "2.0"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}',
    b'{"jsonrpc": "2.0", "id": 1, "method": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"a": "' + b"x" * (5 * 1024 * 1024) + b'"}',
]


@pytest.mark.parametrize("served", [("127.0.0.1", ServerLimits())], indirect=True)
def test_malformed_http_bodies_get_4xx_and_the_server_keeps_answering(served, shop_repo):
    url = served
    _id, token = _token(shop_repo.database_url, "fuzzer", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    statuses = []
    for body in RAW_BODIES:
        response = httpx.post(url, content=body, headers=auth, timeout=30)
        statuses.append(response.status_code)
        assert "Traceback" not in response.text
        assert httpx.post(url, json=INIT, headers=auth, timeout=30).status_code == 200
    assert all(400 <= s < 500 for s in statuses), statuses
