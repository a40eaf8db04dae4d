"""Tokens with a lifetime (issue 47): `codeatlas token create --expires-in 30d` stores when the
token ends, `token list` shows it, and past it the HTTP server answers 401 with the reason."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from core.database import connect, transaction
from mcp_app.tokens import (
    TokenLifetimeError,
    create_token,
    parse_lifetime,
    principal_for_token,
    refusal_reason,
    revoke_token,
)
from retrieval.principals import create_principal, grant
from tests.codeatlas.test_cli import codeatlas
from tests.mcp_app.conftest import payload
from tests.mcp_app.test_http import HEADERS, INIT, _call, http_server  # noqa: F401


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30d", 30 * 86400), ("12h", 12 * 3600), ("90m", 5400), ("45s", 45), (" 7D ", 7 * 86400)],
)
def test_a_lifetime_is_a_whole_number_and_a_unit(text, seconds):
    assert parse_lifetime(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["0d", "-1d", "30", "30x", "1.5h", "d", "", "3651d", "1e9s"])
def test_anything_else_is_refused_with_the_units_to_use(text):
    with pytest.raises(TokenLifetimeError, match=r"s, m, h or d|ten years"):
        parse_lifetime(text)


def _expire(url: str, token_id: int) -> None:
    """Move a token's end into the past (as if its lifetime had gone by)."""
    with connect(url, autocommit=True) as conn:
        conn.execute(
            "UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = %s",
            (token_id,),
        )


def test_an_expired_token_maps_to_no_principal_and_says_when_it_expired(database_url):
    with connect(database_url, autocommit=True) as conn:
        create_principal(conn, "ci-bot")
        token_id, token = create_token(conn, "ci-bot", "CI", timedelta(days=30))
        _forever_id, forever = create_token(conn, "ci-bot")
        assert principal_for_token(conn, token).name == "ci-bot"
        _expire(database_url, token_id)
        assert principal_for_token(conn, token) is None
        assert principal_for_token(conn, forever).name == "ci-bot"
        assert refusal_reason(conn, token).startswith("the bearer token expired at 20")
        revoke_token(conn, str(token_id))
        assert "revoked at" in refusal_reason(conn, token)
        assert refusal_reason(conn, "cat_unknown") is None  # the default wording of a 401


def test_the_cli_creates_a_token_with_a_lifetime_and_lists_when_it_expires(settings_env):
    codeatlas("principal", "create", "ci-bot")
    made = codeatlas("token", "create", "--principal", "ci-bot", "--expires-in", "30d")
    assert made.stdout.strip().startswith("cat_") and "expires in 30d" in made.stderr
    codeatlas("token", "create", "--principal", "ci-bot", "--label", "forever")
    listing = codeatlas("token", "list").stdout.splitlines()
    assert len(listing) == 2
    assert "active" in listing[0] and "expires 20" in listing[0]
    assert "expires never" in listing[1] and "forever" in listing[1]


def test_the_cli_refuses_a_bad_lifetime_without_creating_a_token(settings_env):
    codeatlas("principal", "create", "ci-bot")
    refused = codeatlas(
        "token", "create", "--principal", "ci-bot", "--expires-in", "30 days", check=False
    )
    assert refused.returncode != 0 and refused.stdout == ""
    assert "s, m, h or d" in refused.stderr and "Traceback" not in refused.stderr
    assert codeatlas("token", "list").stdout == ""


def test_an_expired_token_gets_401_with_the_reason_over_http(http_server, shop_repo):  # noqa: F811
    url = shop_repo.database_url
    with transaction(url) as conn:
        create_principal(conn, "contractor")
        grant(conn, "contractor", "shop")
        token_id, token = create_token(conn, "contractor", "temp", timedelta(hours=1))
    # a real MCP client is served while the token lives ...
    listing = _call(http_server, token, "list_repositories", {})
    assert [r["name"] for r in payload(listing)["repositories"]] == ["shop"]
    _expire(url, token_id)
    # ... and refused once it has expired, with why in the challenge and the body
    refused = httpx.post(
        http_server, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {token}"}, timeout=10
    )
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert 'error="invalid_token"' in challenge and "expired at 20" in challenge
    assert "expired at 20" in refused.json()["error_description"]
    # a real MCP client sees the same 401 and reason (through its HTTP client's responses)
    answers = _client_responses(http_server, token)
    assert answers and answers[0][0] == 401 and "expired at 20" in answers[0][1]


def _client_responses(url: str, token: str) -> list[tuple[int, str]]:
    """(status, WWW-Authenticate) of the HTTP answers a real MCP client got trying to list
    the tools with `token` (the client itself fails)."""
    import anyio
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    seen: list[tuple[int, str]] = []

    async def record(response) -> None:
        seen.append((response.status_code, response.headers.get("www-authenticate", "")))

    async def run() -> None:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
            event_hooks={"response": [record]},
        )
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017, PT011 - the client's own error group
        anyio.run(run)
    return seen
