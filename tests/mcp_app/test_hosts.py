"""The Host gate in front of the HTTP server, as an ASGI app: one well-formed Host naming this
server passes; two Host headers or a malformed one get 400, a foreign name 421, never echoed."""

from __future__ import annotations

import json

import anyio
import pytest

from mcp_app.hosts import HostGate, HostPolicy, allowed_names
from mcp_app.limits import ServerLimits


async def _served(scope):
    """(status, JSON body) the gate sends; status 200 when it let the request through."""
    sent: list[dict] = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b'{"served": true}'})

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    gate = HostGate(app, HostPolicy(tuple(allowed_names("127.0.0.1", ServerLimits()))))
    await gate(scope, receive, send)
    return sent[0]["status"], json.loads(sent[1]["body"])


def _request(*hosts: bytes):
    return {"type": "http", "path": "/mcp", "headers": [(b"host", h) for h in hosts]}


def test_a_local_name_on_any_port_is_served():
    assert anyio.run(_served, _request(b"127.0.0.1:8765")) == (200, {"served": True})
    assert anyio.run(_served, _request(b"localhost"))[0] == 200


@pytest.mark.parametrize(
    "hosts",
    [(), (b"127.0.0.1:8765", b"127.0.0.1:8765"), (b"127.0.0.1:8765@evil.example",), (b"a b",)],
)
def test_no_host_two_hosts_or_a_malformed_one_is_a_bad_request(hosts):
    status, body = anyio.run(_served, _request(*hosts))
    assert status == 400 and body["error"] == "invalid_request"


def test_a_foreign_name_is_misdirected_and_not_echoed():
    status, body = anyio.run(_served, _request(b"evil.example"))
    assert status == 421 and body["error"] == "misdirected_request"
    assert "evil" not in json.dumps(body)
    assert "CODEATLAS_MCP_ALLOWED_HOSTS" in body["error_description"]


def test_the_bound_host_and_configured_names_are_allowed_but_a_wildcard_binding_is_not():
    limits = ServerLimits(allowed_hosts=("atlas.example.com",))
    assert allowed_names("10.0.0.5", limits)[-2:] == ["10.0.0.5", "atlas.example.com"]
    assert "0.0.0.0" not in allowed_names("0.0.0.0", limits)
    assert "[fd00::5]" in allowed_names("fd00::5", limits)


def test_other_connections_pass_untouched():
    async def lifespan():
        seen: list[str] = []

        async def app(scope, receive, send):
            seen.append(scope["type"])

        await HostGate(app, HostPolicy(()))({"type": "lifespan"}, None, None)
        return seen

    assert anyio.run(lifespan) == ["lifespan"]
