"""Streamable HTTP with bearer tokens, on a real uvicorn server on an ephemeral port."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from tests.mcp_app.conftest import payload

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def serve_in_thread(app: Any) -> tuple[str, Any, threading.Thread]:
    """Serve `app` with uvicorn on an ephemeral port in a thread: (origin, server, thread)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start within 15s"
        assert thread.is_alive(), "uvicorn stopped during start-up"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    return f"http://127.0.0.1:{port}", server, thread


@pytest.fixture
def http_server(shop_repo) -> Iterator[str]:
    """The MCP app served by uvicorn in a thread; yields its /mcp URL."""
    from core.config import load_settings
    from mcp_app.transports import http_app

    served = http_app(load_settings(), shop_repo.database_url, "127.0.0.1", 0)
    origin, server, thread = serve_in_thread(served.app)
    yield f"{origin}/mcp"
    server.should_exit = True
    thread.join(timeout=10)
    served.verifier.close()


def _token(database_url: str, principal: str, grants: list[str]) -> tuple[int, str]:
    from core.database import transaction
    from mcp_app.tokens import create_token
    from retrieval.principals import create_principal, grant

    with transaction(database_url) as conn:
        create_principal(conn, principal)
        for repo in grants:
            grant(conn, principal, repo)
        return create_token(conn, principal, "test")


def _call(url: str, token: str, name: str, args: dict[str, Any]) -> Any:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool(name, args)

    return anyio.run(run)


def test_a_valid_token_reads_only_its_principals_repositories(http_server, shop_repo):
    _id, token = _token(shop_repo.database_url, "ci-bot", ["shop"])
    result = _call(http_server, token, "search_code", {"query": "round_cents", "limit": 1})
    assert payload(result)["results"][0]["symbol"] == "round_cents"
    _id, stranger = _token(shop_repo.database_url, "stranger", [])
    listing = _call(http_server, stranger, "list_repositories", {})
    assert payload(listing)["repositories"] == []


def test_requests_without_or_with_a_wrong_token_get_401(http_server):
    missing = httpx.post(http_server, json=INIT, headers=HEADERS, timeout=10)
    wrong = httpx.post(
        http_server, json=INIT, headers={**HEADERS, "Authorization": "Bearer cat_nope"}, timeout=10
    )
    assert missing.status_code == 401 and wrong.status_code == 401
    assert "Traceback" not in wrong.text


def test_a_revoked_token_is_refused_at_once(http_server, shop_repo):
    from core.database import transaction
    from mcp_app.tokens import revoke_token

    token_id, token = _token(shop_repo.database_url, "leaver", ["shop"])
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    assert httpx.post(http_server, json=INIT, headers=auth, timeout=10).status_code == 200
    with transaction(shop_repo.database_url) as conn:
        assert revoke_token(conn, str(token_id)) == token_id
    assert httpx.post(http_server, json=INIT, headers=auth, timeout=10).status_code == 401


def test_tokens_are_stored_only_as_sha256_hashes(shop_repo):
    import hashlib

    from core.database import connect

    _id, token = _token(shop_repo.database_url, "hashed", [])
    conn = connect(shop_repo.database_url, autocommit=True)
    stored = conn.execute("SELECT token_hash FROM api_tokens").fetchone()["token_hash"]
    conn.close()
    assert stored == hashlib.sha256(token.encode()).hexdigest() and token not in stored


def test_verify_tools_checks_a_live_http_server_against_the_lock(http_server, shop_repo, capsys):
    from codeatlas.cli import main
    from mcp_app.pinning import LOCK_FILE

    _id, token = _token(shop_repo.database_url, "auditor", [])
    args = ["verify-tools", "--lock", str(LOCK_FILE), "--http", http_server, "--token", token]
    assert main(args) == 0
    assert "OK: 11 tools" in capsys.readouterr().err


def test_verify_tools_over_http_without_a_token_says_one_is_needed(http_server, capsys):
    from codeatlas.cli import main
    from mcp_app.pinning import LOCK_FILE

    assert main(["verify-tools", "--lock", str(LOCK_FILE), "--http", http_server]) == 1
    err = capsys.readouterr().err
    assert err.startswith("codeatlas: error: verify-tools --http needs --token TOKEN")
    assert err.count("\n") == 1 and "TaskGroup" not in err


def test_verify_tools_with_a_refused_token_is_one_line_about_the_token(http_server, capsys):
    from codeatlas.cli import main
    from mcp_app.pinning import LOCK_FILE

    args = ["verify-tools", "--lock", str(LOCK_FILE), "--http", http_server, "--token", "cat_no"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "refused the bearer token (HTTP 401)" in err
    assert err.count("\n") == 1 and "TaskGroup" not in err


def test_a_401_points_at_protected_resource_metadata_that_names_no_oauth_server(http_server):
    origin = http_server.removesuffix("/mcp")
    metadata_url = f"{origin}/.well-known/oauth-protected-resource/mcp"
    missing = httpx.post(http_server, json=INIT, headers=HEADERS, timeout=10)
    wrong = httpx.post(
        http_server, json=INIT, headers={**HEADERS, "Authorization": "Bearer cat_no"}, timeout=10
    )
    assert missing.status_code == wrong.status_code == 401
    challenge = missing.headers["www-authenticate"]
    assert challenge.startswith('Bearer realm="codeatlas", error_description="')
    assert f'resource_metadata="{metadata_url}"' in challenge
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert "codeatlas token create --principal NAME" in wrong.json()["error_description"]

    document = httpx.get(metadata_url, timeout=10)  # public: no token
    assert document.status_code == 200
    assert document.json() == {
        "resource": http_server,
        "bearer_methods_supported": ["header"],
        "resource_name": "codeatlas",
    }
    root = httpx.get(f"{origin}/.well-known/oauth-protected-resource", timeout=10).json()
    assert root["resource"] == origin and "authorization_servers" not in root


def test_an_oauth_sign_in_after_a_401_is_told_there_is_none_and_how_to_get_a_token(http_server):
    # what the MCP Inspector and the TypeScript SDK try after a 401 when the metadata names no
    # authorization server: the server's origin as one (discovery, registration, authorize)
    origin = http_server.removesuffix("/mcp")
    answers = [
        httpx.get(f"{origin}/.well-known/oauth-authorization-server", timeout=10),
        httpx.get(f"{origin}/.well-known/openid-configuration", timeout=10),
        httpx.post(f"{origin}/register", json={"redirect_uris": ["http://x/cb"]}, timeout=10),
        httpx.get(f"{origin}/authorize?response_type=code", timeout=10),
        httpx.post(f"{origin}/token", data={"grant_type": "authorization_code"}, timeout=10),
    ]
    assert [a.status_code for a in answers] == [404, 404, 400, 400, 400]
    for answer in answers:
        body = answer.json()
        assert body["error"] == "invalid_request"
        assert "no OAuth sign-in" in body["error_description"]
        assert "codeatlas token create --principal NAME" in body["error_description"]
    wrong = httpx.post(
        http_server, json=INIT, headers={**HEADERS, "Authorization": "Bearer cat_no"}, timeout=10
    )
    assert "the token sent is unknown or revoked" in wrong.headers["www-authenticate"]
