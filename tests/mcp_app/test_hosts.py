"""The Host gate in front of the HTTP server, as an ASGI app: one well-formed Host naming this
server passes; two Host headers or a malformed one get 400, a foreign name 421, never echoed."""

from __future__ import annotations

import json

import anyio
import pytest

from mcp_app.hosts import ORIGIN_KEY, HostGate, HostPolicy, allowed_names
from mcp_app.limits import ServerLimits


async def _served(scope):
    """(status, JSON body) the gate sends; status 200 when it let the request through (the
    body then says what the app saw: path, Host and the matched origin)."""
    sent: list[dict] = []

    async def app(scope, receive, send):
        hosts = [v.decode() for k, v in scope["headers"] if k == b"host"]
        seen = {"served": True, "path": scope["path"], "hosts": hosts, "origin": scope[ORIGIN_KEY]}
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": json.dumps(seen).encode()})

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    gate = HostGate(app, HostPolicy.serving("127.0.0.1", ServerLimits()))
    await gate(scope, receive, send)
    return sent[0]["status"], json.loads(sent[1]["body"])


def _request(*hosts: bytes, port: int = 8765, target: bytes = b"/mcp"):
    """A request to a server listening on `port`, with these Host headers and this target."""
    return {
        "type": "http",
        "scheme": "http",
        "path": target.decode(),
        "raw_path": target,
        "headers": [(b"host", h) for h in hosts],
        "server": ("127.0.0.1", port),
    }


def test_a_local_name_on_the_served_port_is_served_with_the_address_it_names():
    status, seen = anyio.run(_served, _request(b"LOCALHOST:8765"))
    assert status == 200 and seen["origin"] == "http://localhost:8765"
    assert anyio.run(_served, _request(b"127.0.0.1:8765"))[1]["origin"] == "http://127.0.0.1:8765"
    # no port is the scheme's own: served only by a server on port 80
    assert anyio.run(_served, _request(b"localhost", port=80))[1]["origin"] == "http://localhost"


@pytest.mark.parametrize("host", [b"127.0.0.1:9999", b"localhost:80", b"localhost", b"[::1]:1"])
def test_a_local_name_with_another_port_names_another_server(host):
    status, body = anyio.run(_served, _request(host))
    assert status == 421 and body["error"] == "misdirected_request"
    assert "9999" not in json.dumps(body)


def test_an_absolute_form_target_takes_precedence_over_the_host_header():
    foreign = _request(b"127.0.0.1:8765", target=b"http://evil.example/mcp")
    other_port = _request(b"127.0.0.1:8765", target=b"http://127.0.0.1:9999/mcp")
    status, body = anyio.run(_served, foreign)
    assert status == 421 and "evil" not in json.dumps(body)
    assert anyio.run(_served, other_port)[0] == 421
    own = _request(b"evil.example", target=b"http://127.0.0.1:8765/mcp")
    status, seen = anyio.run(_served, own)
    assert status == 200
    assert (seen["path"], seen["hosts"], seen["origin"]) == (
        "/mcp",
        ["127.0.0.1:8765"],
        "http://127.0.0.1:8765",
    )


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


def test_a_configured_name_with_a_port_allows_that_port_and_one_without_any():
    policy = HostPolicy.serving(
        "0.0.0.0", ServerLimits(allowed_hosts=("a.example", "b.example:443"))
    )
    assert policy.match("a.example:8443", 8765) == "a.example"
    assert policy.match("b.example:443", 8765) == "b.example:443"
    assert policy.match("b.example:444", 8765) is None


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
