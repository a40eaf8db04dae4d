"""Serve the receiver from a background thread (tests, benchmarks, embedding in other apps)."""

import contextlib
import threading
import time
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette

from core.request_guard import uvicorn_settings


@contextlib.contextmanager
def serving(
    app: Starlette, host: str = "127.0.0.1", port: int = 0, timeout: float = 15.0
) -> Iterator[str]:
    """Run `app` under uvicorn in a thread; yield its base URL (port 0: an ephemeral port)."""
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="on",
            **uvicorn_settings(),
        )
    )
    thread = threading.Thread(target=server.run, name="webhook-receiver", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the webhook receiver did not start within {timeout:.0f}s")
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout)
