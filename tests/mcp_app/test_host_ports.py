"""The real HTTP server (uvicorn, a real socket) checks the Host port and an absolute-form
target, and names itself from its own address, never from what the client sent."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from mcp_app.limits import ServerLimits
from tests.mcp_app.test_admission import served  # noqa: F401
from tests.mcp_app.test_http import HEADERS, INIT, _token
from tests.slow_clients import answer


def _raw_post(url: str, target: str, host: str, headers: dict[str, str], body: bytes) -> bytes:
    """POST with this exact request target and Host (what an HTTP library will not send)."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    lines = [f"POST {target} HTTP/1.1", f"Host: {host}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines += [f"Content-Length: {len(body)}", "", ""]
    sock.sendall("\r\n".join(lines).encode() + body)
    return answer(sock)


@pytest.mark.parametrize("served", [("127.0.0.1", ServerLimits())], indirect=True)
def test_a_local_name_with_another_port_is_refused_before_the_token(served, shop_repo):  # noqa: F811
    url = served
    _id, token = _token(shop_repo.database_url, "porter", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    for headers in (auth, HEADERS):
        refused = httpx.post(url, json=INIT, headers={**headers, "Host": "127.0.0.1:9999"})
        assert refused.status_code == 421 and "9999" not in refused.text
    metadata = httpx.get(
        url.removesuffix("/mcp") + "/.well-known/oauth-protected-resource/mcp",
        headers={"Host": "127.0.0.1:9999"},
    )
    assert metadata.status_code == 421 and "9999" not in metadata.text


@pytest.mark.parametrize("served", [("127.0.0.1", ServerLimits())], indirect=True)
def test_an_absolute_form_target_takes_precedence_over_host(served, shop_repo):  # noqa: F811
    url = served
    netloc = urlsplit(url).netloc
    _id, token = _token(shop_repo.database_url, "absolute", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    body = json.dumps(INIT).encode()
    foreign = _raw_post(url, "http://evil.example/mcp", netloc, auth, body)
    own = _raw_post(url, f"http://{netloc}/mcp", "evil.example", auth, body)
    assert foreign.startswith(b"HTTP/1.1 421") and b"evil" not in foreign
    assert own.startswith(b"HTTP/1.1 200"), own[:200]


@pytest.mark.parametrize("served", [("127.0.0.1", ServerLimits())], indirect=True)
def test_the_401_and_the_metadata_name_the_served_address_not_the_hosts_text(served):  # noqa: F811
    url = served
    port = urlsplit(url).port
    # the name as the client wrote it (upper case) is not echoed: the configured one is
    shouted = {**HEADERS, "Host": f"LOCALHOST:{port}"}
    unauthorized = httpx.post(url, json=INIT, headers=shouted)
    metadata = httpx.get(
        url.removesuffix("/mcp") + "/.well-known/oauth-protected-resource/mcp",
        headers={"Host": f"LOCALHOST:{port}"},
    )
    assert unauthorized.status_code == 401
    challenge = unauthorized.headers["www-authenticate"]
    assert f'resource_metadata="http://localhost:{port}/.well-known/' in challenge
    assert metadata.json()["resource"] == f"http://localhost:{port}/mcp"
    assert "LOCALHOST" not in challenge + metadata.text
