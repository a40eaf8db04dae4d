"""Admission to the HTTP server, before any work: failed-token attempts per client address,
then per-principal request rate and concurrency. Over a limit the answer is 429 with
Retry-After, so one principal (or one guessing client) cannot take the server from the others.

While the database cannot be reached the answer is 503 with Retry-After (never 401: the token
may well be valid). The token is checked here once, on the auth pool (never the tools' pool),
and the answer is handed to the SDK's bearer check through a context variable, so it is not
looked up twice.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Receive, Scope, Send

from core.errors import DatabaseUnavailableError
from core.serving_pool import RETRY_AFTER_SECONDS
from mcp_app.limits import ServerLimits
from mcp_app.protected_resource import (
    is_metadata_request,
    is_oauth_sign_in_request,
    no_oauth_sign_in,
    unauthorized,
)
from mcp_app.responses import send_json

# (token, its access info or None) of the request being admitted
VERIFIED: ContextVar[tuple[str, AccessToken | None] | None] = ContextVar(
    "codeatlas_verified", default=None
)
WINDOW = 60.0
# why the token of the request being admitted was refused (unknown, revoked, expired), told to
# its holder in the 401
REFUSAL: ContextVar[str | None] = ContextVar("codeatlas_token_refusal", default=None)
MAX_TRACKED = 10_000  # client addresses / principals remembered before stale ones are dropped


class _RateWindow:
    """Events per key within the last minute."""

    def __init__(self, limit: int, clock: Callable[[], float]) -> None:
        self.limit, self.clock = limit, clock
        self.events: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        now = self.clock()
        events = self.events.setdefault(key, deque())
        while events and events[0] <= now - WINDOW:
            events.popleft()
        return events

    def retry_after(self, key: str) -> int | None:
        """Seconds until one more event is allowed, or None when it is allowed now."""
        events = self._recent(key)
        if len(events) < self.limit:
            return None
        return max(1, math.ceil(events[0] + WINDOW - self.clock()))

    def record(self, key: str) -> None:
        """Count one event (and forget keys idle for a minute once many are tracked)."""
        self._recent(key).append(self.clock())
        if len(self.events) > MAX_TRACKED:
            self.events = {k: v for k, v in self.events.items() if self._recent(k)}


class Admission:
    """ASGI middleware in front of the MCP endpoint."""

    def __init__(
        self,
        app: ASGIApp,
        verify_token: Callable[[str], Awaitable[AccessToken | None]],
        limits: ServerLimits,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app, self.verify_token, self.limits = app, verify_token, limits
        self.failures = _RateWindow(limits.failed_tokens_per_minute, clock)
        self.requests = _RateWindow(limits.requests_per_minute, clock)
        self.in_flight: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_metadata_request(scope):
            return await self.app(scope, receive, send)
        if is_oauth_sign_in_request(scope):
            return await no_oauth_sign_in(scope, send)
        client: str = (scope.get("client") or ("unknown", 0))[0]
        wait = self.failures.retry_after(client)
        if wait is not None:
            return await _too_many(send, wait, "too many failed token attempts from your address")
        token = _bearer(scope)
        if token is None:
            return await unauthorized(scope, send, token_sent=False)
        REFUSAL.set(None)
        try:
            access = await self.verify_token(token)
        except DatabaseUnavailableError as exc:
            # "could not check" is not "unknown": a 401 would make clients drop a good token
            retry_after = getattr(exc, "retry_after", RETRY_AFTER_SECONDS)
            return await _unavailable(send, retry_after, str(exc))
        VERIFIED.set((token, access))
        if access is None:
            self.failures.record(client)
            return await unauthorized(scope, send, token_sent=True, reason=REFUSAL.get())
        principal = str(access.subject)
        wait = self.requests.retry_after(principal)
        if wait is not None:
            limit = self.limits.requests_per_minute
            return await _too_many(send, wait, f"more than {limit} requests a minute")
        self.requests.record(principal)
        if scope["method"] != "POST":  # the long-lived GET stream holds no worker
            return await self.app(scope, receive, send)
        if self.in_flight.get(principal, 0) >= self.limits.max_concurrent_requests:
            limit = self.limits.max_concurrent_requests
            return await _too_many(send, 1, f"more than {limit} requests at once")
        self.in_flight[principal] = self.in_flight.get(principal, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight[principal] -= 1
            if not self.in_flight[principal]:
                del self.in_flight[principal]


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return None


async def _too_many(send: Send, retry_after: int, why: str) -> None:
    await send_json(
        send,
        429,
        {"error": "too_many_requests", "error_description": f"{why}; retry in {retry_after} s"},
        [(b"retry-after", str(retry_after).encode())],
    )


async def _unavailable(send: Send, retry_after: int, why: str) -> None:
    await send_json(
        send,
        503,
        {"error": "temporarily_unavailable", "error_description": why},
        [(b"retry-after", str(retry_after).encode())],
    )
