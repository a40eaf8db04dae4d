"""Plain ASGI JSON answers, for the middleware that refuses a request before the app sees it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from starlette.types import Send


async def send_json(
    send: Send, status: int, payload: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """Send `payload` as a complete JSON response with `status` and extra `headers`."""
    body = json.dumps(payload).encode()
    start_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": start_headers})
    await send({"type": "http.response.body", "body": body})
