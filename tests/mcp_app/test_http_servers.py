"""Several HTTP MCP servers behind one address: two real uvicorn servers over one database and a
round-robin proxy in front, so consecutive requests of one client land on different servers."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from tests.mcp_app.conftest import payload
from tests.mcp_app.test_http import HEADERS, INIT, _token, serve_in_thread

HOP_HEADERS = {"content-length", "transfer-encoding", "connection", "content-encoding"}
# not forwarded either: the backend is named by its own address, as nginx's default
# `proxy_set_header Host $proxy_host` does (a server answers its own port only, mcp_app/hosts.py)
NOT_FORWARDED = {*HOP_HEADERS, "host"}


class RoundRobinProxy:
    """An ASGI app sending each request to the next backend in turn (no affinity at all), and
    noting which backend answered which JSON-RPC method."""

    def __init__(self, backends: list[str]) -> None:
        self.backends = backends
        self._turn = itertools.count()
        self.served: list[tuple[str, str]] = []  # (backend, method or HTTP verb)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        backend = self.backends[next(self._turn) % len(self.backends)]
        query = scope["query_string"].decode()
        headers = [
            (k.decode(), v.decode()) for k, v in scope["headers"] if k.decode() not in NOT_FORWARDED
        ]
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.request(
                scope["method"],
                backend + scope["path"] + (f"?{query}" if query else ""),
                headers=headers,
                content=body,
            )
        method = json.loads(body).get("method", "?") if body else scope["method"]
        self.served.append((backend, method))
        out = [(k.encode(), v.encode()) for k, v in answer.headers.items() if k not in HOP_HEADERS]
        out.append((b"content-length", str(len(answer.content)).encode()))
        await send({"type": "http.response.start", "status": answer.status_code, "headers": out})
        await send({"type": "http.response.body", "body": answer.content})


def _behind_one_address(database_url: str, *, stateless: bool) -> Iterator[RoundRobinProxy]:
    from core.config import load_settings
    from mcp_app.transports import http_app

    running = []
    verifiers = []
    try:
        for _ in range(2):
            served = http_app(load_settings(), database_url, "127.0.0.1", 0, stateless=stateless)
            verifiers.append(served.verifier)
            running.append(serve_in_thread(served.app))
        proxy = RoundRobinProxy([origin for origin, _s, _t in running])
        running.append(serve_in_thread(proxy))
        proxy.address = running[-1][0] + "/mcp"  # type: ignore[attr-defined]
        yield proxy
    finally:
        for _origin, server, thread in running:
            server.should_exit = True
            thread.join(timeout=10)
        for verifier in verifiers:
            verifier.close()


@pytest.fixture
def stateless_pair(shop_repo) -> Iterator[RoundRobinProxy]:
    """Two stateless servers behind the proxy."""
    yield from _behind_one_address(shop_repo.database_url, stateless=True)


@pytest.fixture
def stateful_pair(shop_repo) -> Iterator[RoundRobinProxy]:
    """Two servers in the default (session) mode behind the same proxy."""
    yield from _behind_one_address(shop_repo.database_url, stateless=False)


def _session(
    url: str, token: str, calls: list[tuple[str, dict[str, Any]]], mode: str = "legacy"
) -> list[Any]:
    """One client session through `url`, then the calls in order. `legacy` is the 2025
    protocol's initialize handshake and session id (what agents send today); `auto` is the
    SDK's own session-less protocol."""
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> list[Any]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        transport = streamable_http_client(url, http_client=http)
        async with http, Client(transport, mode=mode) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


def test_one_client_session_is_served_by_two_stateless_servers_in_turn(stateless_pair, shop_repo):
    _id, token = _token(shop_repo.database_url, "ci-bot", ["shop"])
    calls = [("search_symbols", {"name": "round_cents"}), ("list_repositories", {})] * 2
    results = _session(stateless_pair.address, token, calls)
    assert not any(r.is_error for r in results)
    assert [s["symbol"] for s in payload(results[0])["symbols"]][:1] == ["round_cents"]
    assert [r["name"] for r in payload(results[1])["repositories"]] == ["shop"]
    by_backend = {
        b: [m for bb, m in stateless_pair.served if bb == b] for b in stateless_pair.backends
    }
    assert all("tools/call" in methods for methods in by_backend.values())
    initialized_on = next(b for b, m in stateless_pair.served if m == "initialize")
    assert any(b != initialized_on for b, m in stateless_pair.served if m == "tools/call")


def test_the_sdks_session_less_protocol_also_alternates_between_servers(stateless_pair, shop_repo):
    _id, token = _token(shop_repo.database_url, "ci-bot", ["shop"])
    results = _session(stateless_pair.address, token, [("list_repositories", {})] * 3, "auto")
    assert [[r["name"] for r in payload(x)["repositories"]] for x in results] == [["shop"]] * 3
    calls = [b for b, m in stateless_pair.served if m == "tools/call"]
    assert len(set(calls)) == 2


def test_grants_and_tokens_hold_on_every_stateless_server(stateless_pair, shop_repo):
    _id, stranger = _token(shop_repo.database_url, "stranger", [])
    results = _session(
        stateless_pair.address,
        stranger,
        [("list_repositories", {}), ("search_code", {"query": "refund", "repositories": ["shop"]})]
        * 2,
    )
    assert [payload(r)["repositories"] for r in results[::2]] == [[], []]
    assert all(r.is_error for r in results[1::2])
    headers = {**HEADERS, "Authorization": "Bearer cat_no"}
    refused = [
        httpx.post(stateless_pair.address, json=INIT, headers=headers, timeout=10) for _ in range(2)
    ]
    assert [r.status_code for r in refused] == [401, 401]
    assert {b for b, _m in stateless_pair.served[-2:]} == set(stateless_pair.backends)


def test_without_stateless_mode_a_session_does_not_survive_a_change_of_server(
    stateful_pair, shop_repo
):
    _id, token = _token(shop_repo.database_url, "ci-bot", ["shop"])
    # the session id the first server gave means nothing to the second one
    with pytest.raises(Exception):  # noqa: B017 - the SDK's error for an unknown session varies
        _session(stateful_pair.address, token, [("list_repositories", {})] * 2)
    assert any(m == "initialize" for _b, m in stateful_pair.served)
