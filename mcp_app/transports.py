"""Running the server: stdio (the principal from configuration) or streamable HTTP (every request
carries a bearer token mapped to a principal)."""

from __future__ import annotations

import logging
import os
from typing import Any

import anyio

from codeatlas.config import Settings, parse_listen
from mcp_app.admission import VERIFIED, Admission
from mcp_app.limits import ServerLimits
from mcp_app.pinning import LOCK_FILE, check_server
from mcp_app.server import build_server
from mcp_app.state import AppState
from retrieval.principals import OPERATOR_PRINCIPAL

log = logging.getLogger(__name__)


class DatabaseTokenVerifier:
    """Bearer tokens checked against `api_tokens` (hash lookup) on every request, so a revoked
    token stops working at once."""

    def __init__(self, state: AppState) -> None:
        self.state = state

    def _lookup(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        from mcp_app.tokens import principal_for_token, token_hash

        with self.state.connection(auth=True) as conn:
            principal = principal_for_token(conn, token)
        if principal is None:
            return None
        return AccessToken(
            token="sha256:" + token_hash(token),  # never keep the secret around
            client_id=principal.name,
            scopes=[],
            subject=str(principal.id),
        )

    async def verify_token(self, token: str) -> Any:
        """The access info for a valid token, else None (the middleware answers 401)."""
        admitted = VERIFIED.get()
        if admitted is not None and admitted[0] == token:
            return admitted[1]  # checked a moment ago by Admission, in this request
        try:
            return await anyio.to_thread.run_sync(self._lookup, token)
        except Exception:  # noqa: BLE001 - an unreachable database must not leak a traceback
            log.exception("token check failed")
            return None


def stdio_principal() -> str:
    """CODEATLAS_PRINCIPAL, default the operator principal 'local'."""
    return os.environ.get("CODEATLAS_PRINCIPAL") or OPERATOR_PRINCIPAL


def _check_principal(state: AppState) -> None:
    with state.connection() as conn:
        state.principal(conn)  # creates "local" on first use; fails early for unknown names


def run_stdio(settings: Settings, database_url: str) -> None:
    """Serve over stdin/stdout after checking the pinned tool definitions."""
    state = AppState(
        database_url=database_url,
        settings=settings,
        principal_name=stdio_principal(),
        limits=ServerLimits.from_env(),
        read_database_url=settings.read_database_url,
    )
    _check_principal(state)
    server = build_server(state)
    anyio.run(check_server, server, LOCK_FILE)
    server.run("stdio")


def transport_security(host: str, limits: ServerLimits) -> Any:
    """DNS-rebinding protection, always on: local names, the bound host (unless a wildcard
    address) and CODEATLAS_MCP_ALLOWED_HOSTS are the Host/Origin values accepted."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("0.0.0.0", "::", ""):
        names.append(f"[{host}]" if ":" in host else host)
    names.extend(limits.allowed_hosts)
    hosts: list[str] = []
    origins: list[str] = []
    for name in dict.fromkeys(names):
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


def http_app(
    settings: Settings,
    database_url: str,
    host: str,
    port: int,
    limits: ServerLimits | None = None,
    *,
    stateless: bool = False,
) -> tuple[Any, AppState]:
    """The ASGI app for streamable HTTP with bearer-token auth and admission limits (and its
    state). `stateless` keeps no MCP session between requests: every request stands alone, so
    servers behind one address need no session affinity."""
    limits = limits or ServerLimits.from_env()
    state = AppState(
        database_url=database_url,
        settings=settings,
        principal_name=None,
        limits=limits,
        read_database_url=settings.read_database_url,
    )
    verifier = DatabaseTokenVerifier(state)
    server = build_server(state, token_verifier=verifier, url=f"http://{host}:{port}")
    anyio.run(check_server, server, LOCK_FILE)
    app = server.streamable_http_app(
        host=host, transport_security=transport_security(host, limits), stateless_http=stateless
    )
    return Admission(app, verifier.verify_token, limits), state


def run_http(
    settings: Settings, database_url: str, listen: str, *, stateless: bool = False
) -> None:
    """Serve streamable HTTP at `listen` until interrupted."""
    import uvicorn

    host, port = parse_listen(listen, "--http")
    app, _state = http_app(settings, database_url, host, port, stateless=stateless)
    uvicorn.run(app, host=host, port=port, log_level="warning")
