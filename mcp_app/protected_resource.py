"""OAuth 2.0 Protected Resource Metadata (RFC 9728) for the HTTP server, and its 401 answer.

Tokens are made by `codeatlas token create`, never by an OAuth flow, so the metadata names no
authorization server: a client that reads it (from the `resource_metadata` of the 401's
`WWW-Authenticate`) learns that it needs a bearer token it cannot obtain interactively, and the
401's description says how to get one.

Many clients (the MCP Inspector, the TypeScript SDK) start an OAuth sign-in on any 401 from an
HTTP server whatever it says, taking the server's own origin as the authorization server when the
metadata names none: discovery (RFC 8414), then client registration, authorize and token. Those
paths answer, without a token, that there is no OAuth sign-in and how to get a token, so the
client's error says that instead of "no bearer token" for its registration request. (The
Inspector's CLI refuses any sign-in without a terminal, "Interactive OAuth requires a TTY", before
it asks the server anything; with `--stored-auth-only` it shows the 401's description.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Scope, Send

from mcp_app.hosts import ORIGIN_KEY
from mcp_app.responses import send_json

METADATA_PATH = "/.well-known/oauth-protected-resource"
MCP_PATH = "/mcp"
RESOURCE_NAME = "codeatlas"
HOW_TO_GET_A_TOKEN = (
    "this server needs a codeatlas bearer token (no OAuth sign-in): its operator creates one with"
    " `codeatlas token create --principal NAME`; send it as `Authorization: Bearer TOKEN`"
)


# where a client looks for an OAuth sign-in the server does not offer
OAUTH_SIGN_IN_PATHS = (
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/register",
    "/authorize",
    "/token",
)
NO_OAUTH_SIGN_IN = (
    HOW_TO_GET_A_TOKEN + "; a token sent and refused (401) is unknown or revoked: see"
    " `codeatlas token list`"
)


def origin(scope: Mapping[str, Any]) -> str:
    """`scheme://host[:port]` of this server: the address `HostGate` matched, written from the
    configuration and the port served (never the client's Host text); without a gate (a bare
    app), the bound address."""
    matched = scope.get(ORIGIN_KEY)
    if isinstance(matched, str):
        return matched
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


def is_oauth_sign_in_request(scope: Scope) -> bool:
    """Whether a request is a step of an OAuth sign-in (answered, without a token, that there
    is none)."""
    path = str(scope.get("path", ""))
    return any(path == p or path.startswith(p + "/") for p in OAUTH_SIGN_IN_PATHS)


async def no_oauth_sign_in(scope: Scope, send: Send) -> None:
    """Discovery gets 404 (no authorization server metadata), the other steps 400, both with
    an OAuth error whose description says how to get a token."""
    status = 404 if str(scope.get("path", "")).startswith("/.well-known/") else 400
    await send_json(
        send, status, {"error": "invalid_request", "error_description": NO_OAUTH_SIGN_IN}
    )


def challenge(scope: Scope, *, token_sent: bool, reason: str | None = None) -> str:
    """The `WWW-Authenticate` value of a 401 (RFC 6750: no error code when no token was sent);
    `reason` says why a sent token was refused (our own words, never the client's)."""
    url = f"{origin(scope)}{METADATA_PATH}{MCP_PATH}"
    parts = [f'realm="{RESOURCE_NAME}"']
    why = HOW_TO_GET_A_TOKEN
    if token_sent:
        parts.append('error="invalid_token"')
        why = f"{reason or 'the token sent is unknown or revoked'}; {why}"
    parts += [f'error_description="{why}"', f'resource_metadata="{url}"']
    return "Bearer " + ", ".join(parts)


async def unauthorized(
    scope: Scope, send: Send, *, token_sent: bool, reason: str | None = None
) -> None:
    """Answer 401 with the challenge and the same advice in a JSON body."""
    if token_sent:
        why = reason or "the bearer token is not valid (unknown or revoked)"
    else:
        why = "no bearer token"
    await send_json(
        send,
        401,
        {"error": "invalid_token", "error_description": f"{why}; {HOW_TO_GET_A_TOKEN}"},
        [(b"www-authenticate", challenge(scope, token_sent=token_sent, reason=reason).encode())],
    )
