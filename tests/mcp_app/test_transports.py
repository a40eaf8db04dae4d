"""Running the server: the Host and Origin values HTTP answers to, the stdio principal, and the
token verifier on its own pool."""

from __future__ import annotations

import anyio
import pytest

from core.config import load_settings
from core.database import transaction
from core.serving_pool import DatabaseDownError
from mcp_app.hosts import HostPolicy, parse_host
from mcp_app.limits import ServerLimits
from mcp_app.tokens import create_token, token_hash
from mcp_app.transports import DatabaseTokenVerifier, stdio_principal, transport_security
from retrieval.principals import create_principal
from tests.logged import tracebacks


def test_a_local_binding_answers_local_names_on_any_port():
    security = transport_security("127.0.0.1", ServerLimits())
    assert security.enable_dns_rebinding_protection
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*"} <= set(security.allowed_hosts)
    assert "http://localhost:*" in security.allowed_origins
    assert not any("0.0.0.0" in h for h in security.allowed_hosts)


def test_a_wildcard_binding_answers_only_local_and_configured_names():
    limits = ServerLimits(allowed_hosts=("atlas.example.com", "10.0.0.5:8443"))
    security = transport_security("0.0.0.0", limits)
    assert "atlas.example.com:*" in security.allowed_hosts
    assert "10.0.0.5:8443" in security.allowed_hosts and "10.0.0.5:8443:*" not in (
        security.allowed_hosts
    )
    assert "https://atlas.example.com" in security.allowed_origins
    assert not any(h.startswith("0.0.0.0") for h in security.allowed_hosts)


def test_an_ipv6_binding_is_answered_in_brackets():
    security = transport_security("::1", ServerLimits())
    assert "[::1]" in security.allowed_hosts and "::1" not in security.allowed_hosts


def test_a_host_is_name_and_port_only_and_userinfo_forms_are_refused():
    assert parse_host("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_host("Atlas.Example.com") == ("atlas.example.com", None)
    assert parse_host("[::1]:80") == ("[::1]", 80)
    for bad in ("127.0.0.1:8765@evil.example", "user@127.0.0.1", "127.0.0.1:8765/x", "a b",
                "127.0.0.1:99999", "", "127.0.0.1:", "evil.example#127.0.0.1"):  # fmt: skip
        assert parse_host(bad) is None, bad
    policy = HostPolicy(("127.0.0.1", "localhost", "10.0.0.5:8443"))
    assert policy.allows("127.0.0.1:8765") and policy.allows("LOCALHOST")
    assert policy.allows("10.0.0.5:8443") and not policy.allows("10.0.0.5:9000")
    assert not policy.allows("127.0.0.1:8765@evil.example")
    assert not policy.allows("evil.example") and not policy.allows("127.0.0.1.evil.example")


def test_the_stdio_principal_is_configured_or_the_operator(monkeypatch):
    monkeypatch.delenv("CODEATLAS_PRINCIPAL", raising=False)
    assert stdio_principal(load_settings()) == "local"
    monkeypatch.setenv("CODEATLAS_PRINCIPAL", "ci-bot")
    assert stdio_principal(load_settings()) == "ci-bot"


def test_the_verifier_maps_a_valid_token_to_its_principal_without_keeping_the_secret(
    database_url,
):
    with transaction(database_url) as conn:
        principal = create_principal(conn, "ci-bot")
        _id, token = create_token(conn, "ci-bot")
    verifier = DatabaseTokenVerifier(database_url)
    try:
        access = anyio.run(verifier.verify_token, token)
        refused = anyio.run(verifier.verify_token, "cat_unknown")
    finally:
        verifier.close()
    assert access is not None and access.subject == str(principal.id)
    assert access.client_id == "ci-bot" and access.token == "sha256:" + token_hash(token)
    assert refused is None


def test_an_unreachable_database_is_could_not_check_not_an_unknown_token(caplog):
    verifier = DatabaseTokenVerifier("postgresql://127.0.0.1:1/none")
    verifier.database.checkout_seconds = 0.5
    try:
        with pytest.raises(DatabaseDownError, match="unavailable right now"):
            anyio.run(verifier.check, "cat_anything")
    finally:
        verifier.close()
    assert not tracebacks(caplog)


@pytest.fixture(autouse=True)
def _no_principal_env(monkeypatch):
    monkeypatch.delenv("CODEATLAS_PRINCIPAL", raising=False)
