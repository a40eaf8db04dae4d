"""An OpenAI-compatible embeddings endpoint on loopback, for the experiments and tests that need
a model server slower or more stubborn than a real one (a slow backfill, a gated one, a delay
per request): the HTTP and the answer are written here once, and each of them says only what it
does before answering (`answering`)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

# the vector's length when the request names none
DEFAULT_DIMENSIONS = 8


class EmbeddingEndpoint:
    """`POST /v1/embeddings` answered with the same vector for every text, as long as the
    request's `dimensions`; each request on a thread of its own, after `answering`."""

    def __init__(self) -> None:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                inputs = body["input"]
                endpoint.answering(inputs)
                size = body.get("dimensions") or DEFAULT_DIMENSIONS
                data = [
                    {"object": "embedding", "index": i, "embedding": [1.0] + [0.5] * (size - 1)}
                    for i in range(len(inputs))
                ]
                answer = json.dumps(
                    {"object": "list", "data": data, "model": body["model"], "usage": {}}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: object) -> None:  # (quiet)
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answering(self, texts: list[str]) -> None:
        """Runs on the request's thread before its answer: here, nothing (answered at once)."""

    def start(self) -> Self:
        """Serve in a background thread."""
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def close(self) -> None:
        """Stop serving and free the port."""
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
