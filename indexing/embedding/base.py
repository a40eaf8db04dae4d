"""The one interface every embedding provider implements, and the text it reads per chunk."""

from __future__ import annotations

from typing import Protocol


class Embedder(Protocol):
    """Turns text into vectors of a fixed size; `model_name` is stored with every vector."""

    model_name: str

    @property
    def dimensions(self) -> int:
        """The size of its vectors (a remote model's may be asked for on first use)."""
        ...

    max_tokens: int  # the window the model reads; longer text is truncated to it
    # True: a chunk is read with a line naming where it lives (`document_text`); the model name
    # says so, so vectors of the two recipes never share a name
    reads_context: bool

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed code chunks, in order. Batching and retries are the provider's job."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many model tokens `text` takes (an estimate is fine for remote models)."""
        ...


def document_text(embedder: Embedder, content: str, path: str, qualified_name: str | None) -> str:
    """What `embedder` reads for one chunk: its content, preceded (for an embedder that reads
    context) by its file path and qualified name, which a method's own text lacks.

    Vectors are stored per content hash: a content found at several paths is embedded once, with
    the first of its paths in order.
    """
    if not embedder.reads_context:
        return content
    where = f"{path} {qualified_name}" if qualified_name else path
    return f"{where}\n{content}"
