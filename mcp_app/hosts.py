"""The Host names the HTTP server answers to, checked before anything else (DNS-rebinding
protection, and no foreign name ever reaches an answer).

A Host value is `name[:port]` and nothing more: a name with userinfo
(`127.0.0.1:8765@evil.example`), a path or anything else is refused with 400 before it can match
a `127.0.0.1:*` pattern; a well-formed name the server was not configured for gets 421
Misdirected Request, before the bearer token is looked at, and its value is never echoed back.

The server's own names (the local ones and the address it is bound to) are served on the port
the connection came in on only: `Host: 127.0.0.1:9999` sent to a server on 8765 names another
server. A request whose target is in absolute form (`POST http://other.example/mcp`) is checked
by that target's authority, which takes precedence over the Host header (RFC 9112, section
3.2.2). The gate records the address it matched, written from the configuration and the socket,
for the answers that name the server (`ORIGIN_KEY`, read by `mcp_app/protected_resource.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_app.limits import ServerLimits
from mcp_app.responses import send_json

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
# the scope key under which `HostGate` leaves `scheme://name[:port]` of the matched address
ORIGIN_KEY = "codeatlas.origin"
_HOST = re.compile(
    r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)"
    r"(?::(?P<port>[0-9]{1,5}))?"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_host(value: str) -> tuple[str, int | None] | None:
    """(name in lower case, port or None) of a Host value, or None when it is not exactly
    `name[:port]`."""
    match = _HOST.fullmatch(value)
    if match is None:
        return None
    port = match["port"]
    if port is not None and not 0 < int(port) < 65536:
        return None
    return match["name"].lower(), int(port) if port is not None else None


def own_names(host: str) -> list[str]:
    """The server's own names: the local ones and the bound host (unless a wildcard address)."""
    names: list[str] = list(LOCAL_NAMES)
    if host not in ("0.0.0.0", "::", ""):
        names.append(f"[{host}]" if ":" in host else host)
    return list(dict.fromkeys(names))


def allowed_names(host: str, limits: ServerLimits) -> list[str]:
    """The own names and CODEATLAS_MCP_ALLOWED_HOSTS; an entry with a port allows that port
    only, one without any port (the own names: the served port, checked by `HostPolicy`)."""
    return list(dict.fromkeys([*own_names(host), *limits.allowed_hosts]))


@dataclass(frozen=True)
class HostPolicy:
    """Which `Host` values are served: `own` names on the served port, `names` (configured)
    on their own port or, without one, any."""

    names: tuple[str, ...]
    own: tuple[str, ...] = ()

    @classmethod
    def serving(cls, host: str, limits: ServerLimits) -> HostPolicy:
        """The policy of a server bound to `host` with these limits."""
        return cls(tuple(limits.allowed_hosts), tuple(own_names(host)))

    def match(self, value: str, port: int | None = None, scheme: str = "http") -> str | None:
        """The address `value` names (`name[:port]`, written from the policy and `port`, the
        served one: never the client's text), or None when it names no address of this
        server."""
        parsed = parse_host(value)
        if parsed is None:
            return None
        name, sent_port = parsed
        default = _DEFAULT_PORTS.get(scheme)
        for own in self.own:
            if parse_host(own) == (name, None):
                same_port = port is None or sent_port == port
                if same_port or (sent_port is None and port == default):
                    return own if port is None or port == default else f"{own}:{port}"
        for allowed in self.names:
            allowed_parsed = parse_host(allowed)
            if allowed_parsed is None:
                continue
            allowed_name, allowed_port = allowed_parsed
            if name == allowed_name and (allowed_port is None or allowed_port == sent_port):
                return allowed
        return None

    def allows(self, value: str, port: int | None = None) -> bool:
        """Whether a well-formed `value` names this server (served on `port`)."""
        return self.match(value, port) is not None


def _absolute_target(scope: Scope) -> tuple[str, str, bytes] | None:
    """(authority, path, raw path) of an absolute-form request target, else None."""
    raw = bytes(scope.get("raw_path") or b"")
    if not raw[:8].lower().startswith((b"http://", b"https://")):
        return None
    parts = urlsplit(raw.decode("latin-1"))
    path = parts.path or "/"
    return parts.netloc, unquote(path), path.encode("latin-1")


def _served_port(scope: Scope) -> int | None:
    server: Any = scope.get("server")
    return int(server[1]) if server and server[1] else None


class HostGate:
    """ASGI middleware: 400 for a malformed Host, 421 for a foreign one, else the app."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app, self.policy = app, policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = list(scope.get("headers", []))
        values = [v.decode("latin-1") for k, v in headers if k == b"host"]
        absolute = _absolute_target(scope)
        if absolute is not None:
            # the target's authority is the one the request names; the app sees it as the Host
            authority, path, raw_path = absolute
            values = [authority]
            headers = [(k, v) for k, v in headers if k != b"host"]
            headers.append((b"host", authority.encode("latin-1")))
            scope = {**scope, "path": path, "raw_path": raw_path, "headers": headers}
        if len(values) != 1 or parse_host(values[0]) is None:
            return await send_json(
                send,
                400,
                {
                    "error": "invalid_request",
                    "error_description": "the Host header must be one host[:port] value",
                },
            )
        scheme = "https" if scope.get("scheme") == "https" else "http"
        address = self.policy.match(values[0], _served_port(scope), scheme)
        if address is None:
            return await send_json(
                send,
                421,
                {
                    "error": "misdirected_request",
                    "error_description": "this server does not answer for that host name and"
                    " port; its operator lists the names it answers in"
                    " CODEATLAS_MCP_ALLOWED_HOSTS",
                },
            )
        await self.app({**scope, ORIGIN_KEY: f"{scheme}://{address}"}, receive, send)
