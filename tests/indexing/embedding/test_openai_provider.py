"""The OpenAI-compatible provider against a local stub of the embeddings API."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.errors import ConfigurationError, EmbeddingProviderError
from indexing.embedding.openai_provider import OpenAIEmbedder

API_KEY = "sk-test-secret-123"


class StubEmbeddingsServer:
    """Answers POST /v1/embeddings; `failures` is a script of status codes sent before success.

    It counts the requests in flight (`most_in_flight`); with `hold_until` set, each request waits
    (at most 5 s) until that many are in flight, as a busy GPU server would keep them.
    """

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.arrivals: list[float] = []  # monotonic time of each request
        self.failures: list[tuple[int, dict[str, str]]] = []
        self.hold_until = 0
        self.in_flight = self.most_in_flight = 0
        self.changed = threading.Condition()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                with stub.changed:
                    stub.in_flight += 1
                    stub.most_in_flight = max(stub.most_in_flight, stub.in_flight)
                    stub.changed.notify_all()
                    stub.changed.wait_for(lambda: stub.in_flight >= stub.hold_until, timeout=5)
                self.counted = True
                try:
                    self._answer()
                finally:
                    self._leave()

            def _leave(self) -> None:
                # before the answer goes out: a client that has it may send its next request at
                # once, and that one must not be counted beside this one (a flaky 4 of 3)
                if self.counted:
                    self.counted = False
                    with stub.changed:
                        stub.in_flight -= 1

            def _answer(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.arrivals.append(time.monotonic())
                stub.requests.append(body)
                stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                if stub.failures:
                    status, headers = stub.failures.pop(0)
                    self._send(status, {"error": {"message": "try later"}}, headers)
                    return
                inputs = body["input"]
                # Vector [position-in-text, 1, ...]: the text "text 7" embeds as [7.0, 1.0, ...].
                size = body.get("dimensions", 4)
                data = [
                    {"object": "embedding", "index": i, "embedding": _vector(text, size)}
                    for i, text in enumerate(inputs)
                ]
                data.reverse()  # servers may answer out of order; `index` is the truth
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                raw = json.dumps(payload).encode()
                self._leave()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> StubEmbeddingsServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests (the client's waits before retrying)."""
        return [b - a for a, b in zip(self.arrivals, self.arrivals[1:], strict=False)]


def _vector(text: str, size: int) -> list[float]:
    number = float(text.rsplit(" ", 1)[-1]) if text.rsplit(" ", 1)[-1].isdigit() else -1.0
    return [number, 1.0] + [0.0] * (size - 2)


@pytest.fixture
def stub() -> Iterator[StubEmbeddingsServer]:
    with StubEmbeddingsServer() as server:
        yield server


def _embedder(stub: StubEmbeddingsServer, **kwargs: object) -> OpenAIEmbedder:
    options: dict = {"base_url": stub.base_url, "api_key": API_KEY, "timeout": 10.0, **kwargs}
    return OpenAIEmbedder("stub-embed", **options)


def test_texts_are_sent_in_batches_and_vectors_come_back_in_order(stub) -> None:
    texts = [f"text {i}" for i in range(250)]
    vectors = _embedder(stub, dimensions=4).embed_documents(texts)
    assert sorted(len(r["input"]) for r in stub.requests) == [58, 96, 96]
    assert [v[0] for v in vectors] == [float(i) for i in range(250)]
    assert {(r["encoding_format"], r["model"]) for r in stub.requests} == {("float", "stub-embed")}


def test_a_token_budget_splits_batches_before_the_item_limit(stub) -> None:
    texts = [f"text {i}" + " pad" * 40 for i in range(10)]  # about 42 estimated tokens each
    _embedder(stub, dimensions=4, batch_tokens=100).embed_documents(texts)
    assert sorted(len(r["input"]) for r in stub.requests) == [2, 2, 2, 2, 2]


def test_requests_go_out_concurrently_up_to_the_limit_and_vectors_keep_their_order(stub) -> None:
    stub.hold_until = 3  # the server answers only once three requests are in flight
    texts = [f"text {i}" for i in range(300)]
    vectors = _embedder(stub, dimensions=4, batch_size=20, concurrency=3).embed_documents(texts)
    assert stub.most_in_flight == 3
    assert sorted(len(r["input"]) for r in stub.requests) == [20] * 15
    assert [v[0] for v in vectors] == [float(i) for i in range(300)]


def test_a_call_within_one_batch_is_one_request(stub) -> None:
    texts = [f"text {i}" for i in range(64)]
    vectors = _embedder(stub, dimensions=4, concurrency=4).embed_documents(texts)
    assert [len(r["input"]) for r in stub.requests] == [64]
    assert [v[0] for v in vectors] == [float(i) for i in range(64)]


def test_a_failed_concurrent_request_is_retried_without_losing_the_others(stub) -> None:
    stub.failures = [(503, {"Retry-After-Ms": "10"})]
    texts = [f"text {i}" for i in range(40)]
    vectors = _embedder(stub, dimensions=4, batch_size=10, concurrency=4).embed_documents(texts)
    assert len(stub.requests) == 5  # four batches, one of them sent twice
    assert [v[0] for v in vectors] == [float(i) for i in range(40)]


def test_a_request_that_fails_for_good_fails_the_whole_call(stub) -> None:
    stub.failures = [(400, {})]
    texts = [f"text {i}" for i in range(40)]
    with pytest.raises(EmbeddingProviderError, match="rejected the request"):
        _embedder(stub, dimensions=4, batch_size=10, concurrency=4).embed_documents(texts)


def test_dimensions_are_sent_only_when_configured(stub) -> None:
    configured = _embedder(stub, dimensions=8)
    assert len(configured.embed_query("text 3")) == 8
    assert stub.requests[-1]["dimensions"] == 8
    assert configured.model_name == "stub-embed:8"
    unset = _embedder(stub)
    unset.embed_query("text 3")
    assert "dimensions" not in stub.requests[-1]
    assert unset.model_name == "stub-embed"


def test_unknown_model_size_is_asked_of_the_server_once(stub) -> None:
    embedder = _embedder(stub)
    assert embedder.dimensions == 4
    assert embedder.dimensions == 4
    assert len(stub.requests) == 1


def test_rate_limit_is_retried_after_the_servers_retry_after(stub) -> None:
    # 0.6 s is longer than the first backoff without a hint (at most 0.5 s): the hint was obeyed
    stub.failures = [(429, {"Retry-After-Ms": "600"})]
    assert _embedder(stub, dimensions=4).embed_query("text 5")[0] == 5.0
    assert len(stub.requests) == 2
    assert 0.6 <= stub.gaps()[0] < 5


def test_server_error_is_retried_with_growing_bounded_backoff(stub) -> None:
    stub.failures = [(500, {}), (503, {})]
    embedder = _embedder(stub, dimensions=4)
    assert embedder.embed_documents(["text 1", "text 2"]) == [[1.0, 1.0, 0, 0], [2.0, 1.0, 0, 0]]
    assert len(stub.requests) == 3
    first, second = stub.gaps()
    assert 0.3 <= first < 3 and 0.7 <= second < 5 and second > first


def test_exhausted_retries_raise_a_provider_error_without_the_key(stub, caplog) -> None:
    stub.failures = [(503, {"Retry-After-Ms": "10"})] * 10
    embedder = _embedder(stub, dimensions=4, max_retries=2)
    with caplog.at_level(logging.DEBUG), pytest.raises(EmbeddingProviderError) as error:
        embedder.embed_documents(["text 1"])
    assert "after 3 attempts" in str(error.value) and "HTTP 503" in str(error.value)
    assert len(stub.requests) == 3
    assert API_KEY not in str(error.value) and API_KEY not in caplog.text
    assert stub.headers[0]["authorization"] == f"Bearer {API_KEY}"


def test_a_retry_after_beyond_two_minutes_fails_at_once_instead_of_hanging(stub) -> None:
    stub.failures = [(429, {"Retry-After": "3600"})]
    with pytest.raises(EmbeddingProviderError, match=r"failed after 1 attempt \(HTTP 429\)"):
        _embedder(stub, dimensions=4).embed_query("text 1")
    assert len(stub.requests) == 1


def test_a_rejected_key_fails_at_once_with_advice(stub) -> None:
    stub.failures = [(401, {})]
    with pytest.raises(EmbeddingProviderError, match="CODEATLAS_OPENAI_API_KEY"):
        _embedder(stub, dimensions=4).embed_query("text 1")
    assert len(stub.requests) == 1


def test_an_unreachable_server_is_retried_then_reported() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAIEmbedder(
        "m", base_url=f"http://127.0.0.1:{port}/v1", dimensions=4, max_retries=1, timeout=5.0
    )
    with pytest.raises(EmbeddingProviderError, match="after 2 attempts"):
        embedder.embed_query("text 1")


def test_the_real_openai_endpoint_needs_a_key() -> None:
    with pytest.raises(ConfigurationError, match="CODEATLAS_OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-small")


def test_count_tokens_estimates_four_characters_a_token() -> None:
    embedder = OpenAIEmbedder("m", base_url="http://127.0.0.1:9/v1")
    assert embedder.count_tokens("x" * 400) in range(80, 121)
