"""How long and how many strangers may hold the HTTP servers (the MCP server, the webhook
receiver): the uvicorn settings both run with, and `BoundedBody`, which reads a request's body
within a time limit before the app sees it.

Without it a client could send the headers and part of a body, then wait (each such connection
was held for as long as it liked) or disconnect (a ~40-line `ClientDisconnect` traceback per
request, from anyone, authenticated or not). Now a body not complete within `body_seconds` is
answered 408 and the connection closed, and a client that leaves mid-body is one log line,
rate-limited (`ThrottledLog`).
"""

from __future__ import annotations

import json
import logging
from collections import deque
from typing import Any

import anyio
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.throttled_log import ThrottledLog

log = logging.getLogger("codeatlas.http")
throttled = ThrottledLog(log)

BODY_SECONDS = 15.0  # from the first byte of the request body to its last
MAX_CONNECTIONS = 256  # connections and requests at once; uvicorn answers 503 beyond
KEEP_ALIVE_SECONDS = 5  # an idle kept-alive connection is closed after this
SHUTDOWN_SECONDS = 5  # open requests get this long to finish on Ctrl-C


def uvicorn_settings() -> dict[str, Any]:
    """The uvicorn.Config arguments bounding connections, for every server codeatlas runs."""
    return {
        # h11 hands the app the request target as sent: an absolute-form target
        # (`POST http://other.example/mcp`) must be checked in place of the Host header (RFC 9112
        # section 3.2.2), and httptools keeps only its path
        "http": "h11",
        "limit_concurrency": MAX_CONNECTIONS,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "timeout_graceful_shutdown": SHUTDOWN_SECONDS,
    }


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def _send_json(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BoundedBody:
    """ASGI middleware: the whole body (up to `max_body_bytes`; the app refuses more itself)
    read within `body_seconds`, then handed to the app as if it came from the client."""

    def __init__(
        self, app: ASGIApp, *, max_body_bytes: int, body_seconds: float | None = None
    ) -> None:
        self.app, self.max_body_bytes = app, max_body_bytes
        self.body_seconds = body_seconds if body_seconds is not None else BODY_SECONDS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._declared_too_large(scope):
            return await self.app(scope, receive, send)  # the app answers 413 from the header
        messages: deque[Message] = deque()
        size = 0
        with anyio.move_on_after(self.body_seconds) as waited:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return self._left(scope)
                messages.append(message)
                size += len(message.get("body", b""))
                if not message.get("more_body") or size > self.max_body_bytes:
                    break
        if waited.cancelled_caught:
            throttled.warning(
                "slow-body", "client %s did not send its request body within %g s: answered 408",
                _client(scope), self.body_seconds,
            )  # fmt: skip
            return await _send_json(
                send,
                408,
                {
                    "error": "request_timeout",
                    "error_description": f"the request body must arrive within"
                    f" {self.body_seconds:g} s",
                },
            )

        async def replay() -> Message:
            return messages.popleft() if messages else await receive()

        try:
            await self.app(scope, replay, send)
        except ClientDisconnect:
            self._left(scope)

    def _declared_too_large(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                return value.isdigit() and int(value) > self.max_body_bytes
        return False

    def _left(self, scope: Scope) -> None:
        throttled.warning(
            "disconnect", "client %s disconnected before its request was answered",
            _client(scope),
        )  # fmt: skip
