"""Embeddings from any OpenAI-compatible endpoint (OpenAI, Azure, Ollama, vLLM, TEI...)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai

from core.errors import ConfigurationError, EmbeddingProviderError
from indexing.embedding.batching import plan_batches

DEFAULT_MODEL = "text-embedding-3-small"
_KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
_RETRIED_STATUS = {408, 409, 429}  # and every 5xx: what the SDK retries


class OpenAIEmbedder:
    """Batches texts into requests sent `concurrency` at a time (a GPU server batches what is in
    flight together); the SDK retries rate limits, 5xx and dropped connections (exponential
    backoff, or the server's Retry-After up to two minutes)."""

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
        max_retries: int = 5,
        timeout: float = 60.0,
        concurrency: int = 4,
    ) -> None:
        if api_key is None and base_url is None:
            raise ConfigurationError(
                "the openai embedding provider needs an API key: set CODEATLAS_OPENAI_API_KEY"
                " (or CODEATLAS_OPENAI_BASE_URL for a local server that needs none)"
            )
        self.model = model
        self.model_name = model if dimensions is None else f"{model}:{dimensions}"
        self.max_tokens = max_tokens
        self.reads_context = False
        self._requested_dimensions = dimensions
        self._dimensions = dimensions or _KNOWN_DIMENSIONS.get(model)
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._concurrency = max(1, concurrency)
        self._encoding: Any = None
        # Local servers take any key; the SDK insists on one.
        self._client = openai.OpenAI(
            api_key=api_key or "unused", base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    @property
    def dimensions(self) -> int:
        """Vector size: as configured, known for the model, or asked of the server once."""
        if self._dimensions is None:
            self._dimensions = len(self._request(["dimensions probe"])[0])
        return self._dimensions

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed chunks in order, in as few requests as the batch limits allow, at most
        `concurrency` of them in flight (splitting further only adds round trips)."""
        if not texts:
            return []
        lengths = [self.count_tokens(text) for text in texts]
        batches = plan_batches(lengths, max_items=self._batch_size, max_tokens=self._batch_tokens)
        requests = [[texts[i] for i in batch] for batch in batches]
        if len(requests) == 1:
            return self._request(requests[0])
        pool = ThreadPoolExecutor(min(self._concurrency, len(requests)), "openai-embed")
        try:
            # map keeps the batches' order and raises the first failure, in batch order
            return [vector for vectors in pool.map(self._request, requests) for vector in vectors]
        finally:
            pool.shutdown(cancel_futures=True)  # after a failure, send no more

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

        # Servers reject empty strings; a space embeds as "nothing" just as well.
        inputs = [text if text.strip() else " " for text in texts]
        extra: dict[str, Any] = {}
        if self._requested_dimensions is not None:
            extra["dimensions"] = self._requested_dimensions
        try:
            response = self._client.embeddings.create(
                model=self.model, input=inputs, encoding_format="float", **extra
            )
        except (openai.APIConnectionError, openai.APIStatusError) as exc:
            raise EmbeddingProviderError(self._failure(exc)) from exc
        return _in_order(response.data, len(inputs))

    def _failure(self, exc: openai.APIError) -> str:
        """What went wrong, once the SDK has given up (after its retries, or at once)."""
        status = getattr(exc, "status_code", None)
        if status is not None and status not in _RETRIED_STATUS and status < 500:
            return _explain(exc, self.model)
        # the SDK numbers each attempt's request in this header
        attempts = int(exc.request.headers.get("x-stainless-retry-count", "0")) + 1
        return (
            f"embedding request to {self._client.base_url} failed after {attempts}"
            f" attempt{'s' if attempts > 1 else ''} ({_describe(exc)}); check the server, or"
            " lower the indexing concurrency if it is rate limiting"
        )


def _in_order(data: list[Any], expected: int) -> list[list[float]]:
    if len(data) != expected:
        raise EmbeddingProviderError(
            f"the embedding server returned {len(data)} vectors for {expected} inputs"
        )
    return [list(item.embedding) for item in sorted(data, key=lambda item: item.index)]


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
        import tiktoken  # pyright: ignore[reportMissingImports] - an optional extra

        try:
            return tiktoken.encoding_for_model(model)
        except KeyError:
            return tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or its tables cannot be downloaded offline
        return None
