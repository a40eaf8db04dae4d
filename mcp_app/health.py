"""`GET /healthz` of the HTTP server: public (no token), and 503 with Retry-After while the
database is unreachable, so a load balancer stops sending requests this server cannot answer."""

from __future__ import annotations

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from core.serving_pool import RETRY_AFTER_SECONDS, ServingPool
from mcp_app.responses import send_json

HEALTH_PATH = "/healthz"


class Health:
    """ASGI middleware answering `/healthz` from `pool`'s view of the database."""

    def __init__(self, app: ASGIApp, pool: ServingPool) -> None:
        self.app, self.pool = app, pool

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != HEALTH_PATH:
            return await self.app(scope, receive, send)
        state = await anyio.to_thread.run_sync(self.pool.health)
        if state["status"] == "ok":
            return await send_json(send, 200, state)
        retry = [(b"retry-after", str(RETRY_AFTER_SECONDS).encode())]
        await send_json(send, 503, state, retry)
