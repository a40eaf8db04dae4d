"""The lab's OpenAI-compatible endpoint (lab/embedding_endpoint.py), the one behind the slow,
gated and delayed model servers of the lab and the orchestration tests: the product's OpenAI
embedder reads its answers, and a subclass's `answering` sees every request's texts first."""

from __future__ import annotations

from indexing.embedding.openai_provider import OpenAIEmbedder
from lab.embedding_endpoint import DEFAULT_DIMENSIONS, EmbeddingEndpoint


class Recording(EmbeddingEndpoint):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[list[str]] = []

    def answering(self, texts: list[str]) -> None:
        self.requests.append(texts)


def test_the_product_s_embedder_reads_the_endpoint_s_vectors_after_the_hook_saw_the_texts():
    with Recording() as endpoint:
        sized = OpenAIEmbedder("lab-embed", dimensions=4, base_url=endpoint.base_url, api_key="x")
        assert (
            sized.embed_documents(["def a(): pass", "def b(): pass"]) == [[1.0, 0.5, 0.5, 0.5]] * 2
        )
        unsized = OpenAIEmbedder("lab-embed", base_url=endpoint.base_url, api_key="x")
        (vector,) = unsized.embed_documents(["def c(): pass"])
        assert len(vector) == DEFAULT_DIMENSIONS
    assert sorted(text for texts in endpoint.requests for text in texts) == [
        "def a(): pass",
        "def b(): pass",
        "def c(): pass",
    ]
