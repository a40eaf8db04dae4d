"""Running the server: stdio (the principal from configuration) or streamable HTTP (every request
carries a bearer token mapped to a principal)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import anyio
import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.types import ASGIApp

from core.config import Settings, parse_listen
from core.request_guard import BoundedBody, uvicorn_settings
from mcp_app.admission import REFUSAL, VERIFIED, Admission
from mcp_app.app_context import ServerConfig, request_principal
from mcp_app.health import Health
from mcp_app.hosts import HostGate, HostPolicy, allowed_names
from mcp_app.limits import ServerLimits
from mcp_app.pinning import LOCK_FILE, check_server
from mcp_app.pool import DatabasePool
from mcp_app.server import build_server
from mcp_app.stdio import serve_stdio
from mcp_app.tokens import principal_for_token, refusal_reason, token_hash
from retrieval.principals import OPERATOR_PRINCIPAL

log = logging.getLogger(__name__)
# the SDK refuses larger bodies (413) itself; BoundedBody reads no more than that first
MAX_REQUEST_BODY_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE


class DatabaseTokenVerifier:
    """Bearer tokens checked against `api_tokens` (hash lookup) on every request, so a revoked
    token stops working at once. The checks have a pool of their own: tools holding every
    connection of theirs must not make a valid token fail."""

    def __init__(self, database_url: str) -> None:
        self.database = DatabasePool(database_url, 2, "codeatlas-mcp-auth")

    def _lookup(self, token: str) -> tuple[AccessToken | None, str | None]:
        with self.database.connection() as conn:
            principal = principal_for_token(conn, token)
            if principal is None:
                return None, refusal_reason(conn, token)
        access = AccessToken(
            token="sha256:" + token_hash(token),  # never keep the secret around
            client_id=principal.name,
            scopes=[],
            subject=str(principal.id),
        )
        return access, None

    async def check(self, token: str) -> AccessToken | None:
        """The access info for a valid token, None for an unknown, revoked or expired one (why:
        in `REFUSAL`, for the 401); raises DatabaseUnavailableError when it could not be
        checked (Admission answers 503)."""
        access, reason = await anyio.to_thread.run_sync(self._lookup, token)
        REFUSAL.set(reason)
        return access

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's bearer check: the answer Admission got a moment ago in this request."""
        admitted = VERIFIED.get()
        if admitted is not None and admitted[0] == token:
            return admitted[1]
        return await self.check(token)

    def close(self) -> None:
        """Close the pool (when the HTTP server stops)."""
        self.database.close()


def stdio_principal(settings: Settings) -> str:
    """The configured principal (CODEATLAS_PRINCIPAL), default the operator principal 'local'."""
    return settings.principal or OPERATOR_PRINCIPAL


def _check_principal(config: ServerConfig) -> None:
    """Create the operator 'local' on first use; fail before serving for an unknown name."""
    from core.database import transaction

    with transaction(config.database_url) as conn:
        request_principal(conn, config.principal_name)


def run_stdio(settings: Settings, database_url: str) -> None:
    """Serve over stdin/stdout after checking the pinned tool definitions."""
    config = ServerConfig(
        database_url=database_url,
        settings=settings,
        principal_name=stdio_principal(settings),
        limits=ServerLimits.from_settings(settings),
        read_database_url=settings.read_database_url,
    )
    _check_principal(config)
    server = build_server(config)
    anyio.run(check_server, server, LOCK_FILE)
    anyio.run(serve_stdio, server)


def transport_security(host: str, limits: ServerLimits) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection, always on, for the names `HostGate` lets through
    (and the Origin values that go with them)."""
    hosts: list[str] = []
    origins: list[str] = []
    for name in allowed_names(host, limits):
        with_port = name.rsplit(":", 1)[-1].isdigit() and not name.endswith("]")
        hosts.extend([name] if with_port else [name, f"{name}:*"])
        for scheme in ("http", "https"):
            origins.extend(
                [f"{scheme}://{name}"]
                if with_port
                else [f"{scheme}://{name}", f"{scheme}://{name}:*"]
            )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


@dataclass(frozen=True)
class HttpApp:
    """The ASGI app for streamable HTTP and its token verifier, whose pool is closed when the
    app is no longer served. In front of the SDK's app, in order: `/healthz`, the Host check,
    admission (token, rates, concurrency), the bounded body read."""

    app: ASGIApp
    verifier: DatabaseTokenVerifier


def http_app(
    settings: Settings,
    database_url: str,
    host: str,
    port: int,
    limits: ServerLimits | None = None,
    *,
    stateless: bool = False,
) -> HttpApp:
    """The HTTP app serving `database_url`'s index at `host:port`/mcp. `stateless` keeps no MCP
    session between requests: every request stands alone, so servers behind one address need
    no session affinity."""
    limits = limits or ServerLimits.from_settings(settings)
    config = ServerConfig(
        database_url=database_url,
        settings=settings,
        principal_name=None,
        limits=limits,
        read_database_url=settings.read_database_url,
    )
    verifier = DatabaseTokenVerifier(database_url)
    server = build_server(config, token_verifier=verifier, url=f"http://{host}:{port}")
    anyio.run(check_server, server, LOCK_FILE)
    app = server.streamable_http_app(
        host=host, transport_security=transport_security(host, limits), stateless_http=stateless
    )
    body = BoundedBody(app, max_body_bytes=MAX_REQUEST_BODY_BYTES)
    admitted = Admission(body, verifier.check, limits)
    policy = HostPolicy.serving(host, limits)
    # /healthz before the Host check: a load balancer's probe names the server by its address
    return HttpApp(Health(HostGate(admitted, policy), verifier.database), verifier)


def run_http(
    settings: Settings, database_url: str, listen: str, *, stateless: bool = False
) -> None:
    """Serve streamable HTTP at `listen` until interrupted."""
    import uvicorn

    host, port = parse_listen(listen, "--http")
    served = http_app(settings, database_url, host, port, stateless=stateless)
    try:
        uvicorn.run(served.app, host=host, port=port, log_level="warning", **uvicorn_settings())
    finally:
        served.verifier.close()
