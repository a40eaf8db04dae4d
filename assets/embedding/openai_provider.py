"""Embeddings from any OpenAI-compatible endpoint (OpenAI, Azure, Ollama, vLLM, TEI...)."""

from __future__ import annotations

import email.utils
import logging
import math
import random
import time
from collections.abc import Callable
from typing import Any

from assets.embedding.batching import plan_batches
from codeatlas.errors import ConfigurationError, EmbeddingProviderError

log = logging.getLogger(__name__)

DEFAULT_MODEL = "text-embedding-3-small"
_KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
_RETRYABLE_STATUS = {408, 409, 429}


class OpenAIEmbedder:
    """Batches texts into requests and retries rate limits, 5xx and dropped connections."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        dimensions: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int = 8191,
        batch_size: int = 96,
        batch_tokens: int = 100_000,
        max_attempts: int = 6,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        from openai import OpenAI

        if api_key is None and base_url is None:
            raise ConfigurationError(
                "the openai embedding provider needs an API key: set CODEATLAS_OPENAI_API_KEY"
                " (or CODEATLAS_OPENAI_BASE_URL for a local server that needs none)"
            )
        self.model = model
        self.model_name = model if dimensions is None else f"{model}:{dimensions}"
        self.max_tokens = max_tokens
        self._requested_dimensions = dimensions
        self._dimensions = dimensions or _KNOWN_DIMENSIONS.get(model)
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._max_attempts = max(1, max_attempts)
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._sleep = sleep
        self._encoding: Any = None
        # Local servers take any key; the SDK insists on one. Our retries are the only ones.
        self._client = OpenAI(
            api_key=api_key or "unused", base_url=base_url, max_retries=0, timeout=timeout
        )
        self.requests_sent = 0

    @property
    def dimensions(self) -> int:
        """Vector size: as configured, known for the model, or asked of the server once."""
        if self._dimensions is None:
            self._dimensions = len(self._request(["dimensions probe"])[0])
        return self._dimensions

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed chunks in order, in as few requests as the batch limits allow."""
        vectors: list[list[float]] = []
        lengths = [self.count_tokens(text) for text in texts]
        batches = plan_batches(lengths, max_items=self._batch_size, max_tokens=self._batch_tokens)
        for batch in batches:
            vectors.extend(self._request([texts[i] for i in batch]))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._request([text])[0]

    def count_tokens(self, text: str) -> int:
        """Tokens by tiktoken when it is installed and has its tables, else about chars / 4."""
        if self._encoding is None:
            self._encoding = _tiktoken_encoding(self.model) or False
        if self._encoding:
            return len(self._encoding.encode(text, disallowed_special=()))
        return max(1, math.ceil(len(text) / 4))

    def _request(self, texts: list[str]) -> list[list[float]]:
        import openai

        # Servers reject empty strings; a space embeds as "nothing" just as well.
        inputs = [text if text.strip() else " " for text in texts]
        extra: dict[str, Any] = {}
        if self._requested_dimensions is not None:
            extra["dimensions"] = self._requested_dimensions
        for attempt in range(1, self._max_attempts + 1):
            try:
                self.requests_sent += 1
                response = self._client.embeddings.create(
                    model=self.model, input=inputs, encoding_format="float", **extra
                )
                return _in_order(response.data, len(inputs))
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                retryable = status is None or status in _RETRYABLE_STATUS or status >= 500
                if not retryable:
                    raise EmbeddingProviderError(_explain(exc, self.model)) from exc
                if attempt == self._max_attempts:
                    raise EmbeddingProviderError(
                        f"embedding request to {self._client.base_url} failed after"
                        f" {attempt} attempts ({_describe(exc)}); check the server, or lower the"
                        " indexing concurrency if it is rate limiting"
                    ) from exc
                delay = self._delay(attempt, exc)
                log.warning(
                    "embedding request failed (%s); retry %d in %.1fs",
                    _describe(exc),
                    attempt,
                    delay,
                )
                self._sleep(delay)
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, exc: Exception) -> float:
        """Retry-After when the server gives one, else exponential backoff with full jitter."""
        response = getattr(exc, "response", None)
        hinted = _retry_after(response.headers) if response is not None else None
        if hinted is not None:
            return min(hinted, self._max_backoff)
        return random.uniform(0, min(self._max_backoff, self._backoff * 2 ** (attempt - 1)))


def _in_order(data: list[Any], expected: int) -> list[list[float]]:
    if len(data) != expected:
        raise EmbeddingProviderError(
            f"the embedding server returned {len(data)} vectors for {expected} inputs"
        )
    return [list(item.embedding) for item in sorted(data, key=lambda item: item.index)]


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        when = email.utils.parsedate_to_datetime(raw) if raw else None
        return max(0.0, when.timestamp() - time.time()) if when else None


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}" if status is not None else type(exc).__name__


def _explain(exc: Exception, model: str) -> str:
    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        return (
            f"the embedding server refused the API key (HTTP {status}):"
            " check CODEATLAS_OPENAI_API_KEY"
        )
    if status == 404:
        return (
            f"the embedding server does not know model {model!r} (HTTP 404):"
            " check CODEATLAS_EMBEDDING_MODEL"
        )
    return f"the embedding server rejected the request ({_describe(exc)}): {exc}"


def _tiktoken_encoding(model: str) -> Any:
    try:
        import tiktoken

        try:
            return tiktoken.encoding_for_model(model)
        except KeyError:
            return tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or its tables cannot be downloaded offline
        return None
