"""The one interface every embedding provider implements."""

from __future__ import annotations

from typing import Protocol


class Embedder(Protocol):
    """Turns text into vectors of a fixed size; `model_name` is stored with every vector."""

    model_name: str
    dimensions: int
    max_tokens: int  # the window the model reads; longer text is truncated to it

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed code chunks, in order. Batching and retries are the provider's job."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many model tokens `text` takes (an estimate is fine for remote models)."""
        ...
