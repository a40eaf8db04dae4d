"""OAuth 2.0 Protected Resource Metadata (RFC 9728) for the HTTP server, and its 401 answer.

Tokens are made by `codeatlas token create`, never by an OAuth flow, so the metadata names no
authorization server: a client that reads it (from the `resource_metadata` of the 401's
`WWW-Authenticate`) learns that it needs a bearer token it cannot obtain interactively, and the
401's description says how to get one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Scope, Send

from mcp_app.hosts import parse_host
from mcp_app.responses import send_json

METADATA_PATH = "/.well-known/oauth-protected-resource"
MCP_PATH = "/mcp"
RESOURCE_NAME = "codeatlas"
HOW_TO_GET_A_TOKEN = (
    "this server needs a codeatlas bearer token (no OAuth sign-in): its operator creates one with"
    " `codeatlas token create --principal NAME`; send it as `Authorization: Bearer TOKEN`"
)


def origin(scope: Mapping[str, Any]) -> str:
    """`scheme://host[:port]` the client used: its Host header, which `HostGate` has checked
    names this server; anything else (a bare app, no gate) gives the bound address instead."""
    host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "")
    if parse_host(host) is None:
        host = "localhost"
        if scope.get("server"):
            name, port = scope["server"]
            name = f"[{name}]" if ":" in str(name) else str(name)
            host = f"{name}:{port}" if port else name
    scheme = "https" if scope.get("scheme") == "https" else "http"
    return f"{scheme}://{host}"


def metadata(origin: str, resource_path: str) -> dict[str, Any]:
    """The RFC 9728 document for the resource at `origin` + `resource_path`."""
    return {
        "resource": origin + resource_path,
        "bearer_methods_supported": ["header"],
        "resource_name": RESOURCE_NAME,
    }


async def _root_metadata(request: Request) -> JSONResponse:
    return JSONResponse(metadata(origin(request.scope), ""))


async def _mcp_metadata(request: Request) -> JSONResponse:
    return JSONResponse(metadata(origin(request.scope), MCP_PATH))


def register_routes(server: Any) -> None:
    """Serve the metadata at the path-suffixed well-known URL (RFC 9728 section 3.1) and at the
    bare one that older clients try; both are public."""
    server.custom_route(METADATA_PATH + MCP_PATH, methods=["GET"])(_mcp_metadata)
    server.custom_route(METADATA_PATH, methods=["GET"])(_root_metadata)


def is_metadata_request(scope: Scope) -> bool:
    """Whether an HTTP request is for the (public) metadata."""
    return str(scope.get("path", "")).startswith(METADATA_PATH)


def challenge(scope: Scope, *, token_sent: bool) -> str:
    """The `WWW-Authenticate` value of a 401 (RFC 6750: no error code when no token was sent)."""
    url = f"{origin(scope)}{METADATA_PATH}{MCP_PATH}"
    parts = [f'realm="{RESOURCE_NAME}"']
    if token_sent:
        parts.append('error="invalid_token"')
    parts += [f'error_description="{HOW_TO_GET_A_TOKEN}"', f'resource_metadata="{url}"']
    return "Bearer " + ", ".join(parts)


async def unauthorized(scope: Scope, send: Send, *, token_sent: bool) -> None:
    """Answer 401 with the challenge and the same advice in a JSON body."""
    why = "the bearer token is not valid (unknown or revoked)" if token_sent else "no bearer token"
    await send_json(
        send,
        401,
        {"error": "invalid_token", "error_description": f"{why}; {HOW_TO_GET_A_TOKEN}"},
        [(b"www-authenticate", challenge(scope, token_sent=token_sent).encode())],
    )
