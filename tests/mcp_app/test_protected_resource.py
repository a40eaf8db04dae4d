"""Protected-resource metadata and the 401 challenge: built from the address `HostGate` matched
(written from the configuration and the served port), else from the bound address, never from
the client's Host text; naming no authorization server."""

from __future__ import annotations

from mcp_app.hosts import ORIGIN_KEY
from mcp_app.protected_resource import challenge, is_metadata_request, metadata, origin


def _scope(host: bytes | None, scheme: str = "http", matched: str | None = None) -> dict:
    headers = [(b"host", host)] if host is not None else []
    scope = {"type": "http", "scheme": scheme, "headers": headers, "server": ("10.0.0.9", 8765)}
    return {**scope, ORIGIN_KEY: matched} if matched else scope


def test_the_origin_is_the_address_the_gate_matched_or_else_the_bound_address():
    matched = _scope(b"ATLAS.example.com:443", "https", "https://atlas.example.com:443")
    assert origin(matched) == "https://atlas.example.com:443"
    # the Host text itself is never used, well-formed or not
    assert origin(_scope(b"127.0.0.1:9999")) == "http://10.0.0.9:8765"
    assert origin(_scope(b'evil.example"\r\n, x="y')) == "http://10.0.0.9:8765"
    assert origin(_scope(b"127.0.0.1:8765@evil.example")) == "http://10.0.0.9:8765"
    assert origin(_scope(None)) == "http://10.0.0.9:8765"


def test_the_metadata_names_the_resource_and_no_authorization_server():
    document = metadata("http://127.0.0.1:8765", "/mcp")
    assert document["resource"] == "http://127.0.0.1:8765/mcp"
    assert "authorization_servers" not in document


def test_the_challenge_has_an_error_code_only_when_a_token_was_sent():
    scope = _scope(b"127.0.0.1:8765", matched="http://127.0.0.1:8765")
    without = challenge(scope, token_sent=False)
    assert "error=" not in without.replace("error_description", "")
    assert 'error="invalid_token"' in challenge(scope, token_sent=True)
    assert 'resource_metadata="http://127.0.0.1:8765/.well-known/oauth-protected-resource/mcp"' in (
        without
    )


def test_only_the_well_known_paths_are_public():
    assert is_metadata_request({"path": "/.well-known/oauth-protected-resource/mcp"})
    assert not is_metadata_request({"path": "/mcp"})
