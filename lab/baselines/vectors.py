"""Brute-force cosine search over normalized vectors in memory (numpy), plus RRF fusion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RRF_K = 60


class VectorIndex:
    """Exact nearest neighbours by cosine similarity."""

    def __init__(self, vectors: Sequence[Sequence[float]]) -> None:
        m = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        self.matrix = m / np.maximum(norms, 1e-12)

    def top(self, query_vector: Sequence[float], k: int) -> list[int]:
        """Indexes of the k most similar vectors."""
        q = np.asarray(query_vector, dtype=np.float32)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        sims = self.matrix @ q
        k = min(k, len(sims))
        part = np.argpartition(-sims, k - 1)[:k]
        return [int(i) for i in part[np.argsort(-sims[part], kind="stable")]]


def rrf(*rankings: list[int], k: int = RRF_K) -> list[int]:
    """Reciprocal Rank Fusion of rankings of the same documents (k = 60, as codeatlas)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda d: (-scores[d], d))
