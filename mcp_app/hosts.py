"""The Host names the HTTP server answers to, checked before anything else (DNS-rebinding
protection, and no foreign name ever reaches an answer).

A Host value is `name[:port]` and nothing more: a name with userinfo
(`127.0.0.1:8765@evil.example`), a path or anything else is refused with 400 before it can match
a `127.0.0.1:*` pattern; a well-formed name the server was not configured for gets 421
Misdirected Request, before the bearer token is looked at, and its value is never echoed back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_app.limits import ServerLimits
from mcp_app.responses import send_json

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
_HOST = re.compile(
    r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)"
    r"(?::(?P<port>[0-9]{1,5}))?"
)


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


def allowed_names(host: str, limits: ServerLimits) -> list[str]:
    """Local names, the bound host (unless a wildcard address) and CODEATLAS_MCP_ALLOWED_HOSTS;
    an entry with a port allows that port only, one without any port."""
    names: list[str] = list(LOCAL_NAMES)
    if host not in ("0.0.0.0", "::", ""):
        names.append(f"[{host}]" if ":" in host else host)
    names.extend(limits.allowed_hosts)
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class HostPolicy:
    """Which `Host` values are served."""

    names: tuple[str, ...]

    def allows(self, value: str) -> bool:
        """Whether a well-formed `value` names this server."""
        parsed = parse_host(value)
        if parsed is None:
            return False
        name, port = parsed
        for allowed in self.names:
            allowed_parsed = parse_host(allowed)
            if allowed_parsed is None:
                continue
            allowed_name, allowed_port = allowed_parsed
            if name == allowed_name and (allowed_port is None or allowed_port == port):
                return True
        return False


class HostGate:
    """ASGI middleware: 400 for a malformed Host, 421 for a foreign one, else the app."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app, self.policy = app, policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        values = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"]
        if len(values) != 1 or parse_host(values[0]) is None:
            return await send_json(
                send,
                400,
                {
                    "error": "invalid_request",
                    "error_description": "the Host header must be one host[:port] value",
                },
            )
        if not self.policy.allows(values[0]):
            return await send_json(
                send,
                421,
                {
                    "error": "misdirected_request",
                    "error_description": "this server does not answer for that host name;"
                    " its operator lists the names it answers in CODEATLAS_MCP_ALLOWED_HOSTS",
                },
            )
        await self.app(scope, receive, send)
