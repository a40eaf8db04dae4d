"""Query latency of each retriever and of the fused search, with in-memory baselines over the
same chunks (numpy brute-force cosine, BM25), and query embedding time."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from benchmarks.codeatlas_search import CodeatlasSearch
from lab.baselines.bm25 import BM25
from lab.baselines.vectors import VectorIndex

DEPTH = 50  # candidates per retriever, as hybrid search asks for (max(50, 3 * limit))
REPEATS = 1


def percentiles(samples: list[float]) -> dict:
    """p50 / p95 / mean in milliseconds."""
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return {
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(p95, 2),
        "mean_ms": round(statistics.fmean(ms), 2),
        "n": len(ms),
    }


def _timed(fn: Callable[[str], object], queries: list[str]) -> list[float]:
    for q in queries[:3]:  # warm caches and plans
        fn(q)
    samples = []
    for _ in range(REPEATS):
        for q in queries:
            started = time.perf_counter()
            fn(q)
            samples.append(time.perf_counter() - started)
    return samples


def _chunk_count(search: CodeatlasSearch) -> int:
    from retrieval.scope import VISIBLE_FILES

    row = search.conn.execute(
        f"WITH {VISIBLE_FILES} SELECT count(*) AS n FROM files f"
        " JOIN code_chunks c ON c.file_version_id = f.file_version_id",
        search.scope.params(),
    ).fetchone()
    search.conn.commit()
    return int(row["n"])


def _baseline_corpus(search: CodeatlasSearch, model: str) -> tuple[list[str], np.ndarray]:
    """Every visible chunk's content and vector, for the in-memory baselines."""
    from retrieval.scope import VISIBLE_FILES

    rows = search.conn.execute(
        f"WITH {VISIBLE_FILES} SELECT"
        " codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content, e.embedding FROM files f"
        " JOIN code_chunks c ON c.file_version_id = f.file_version_id"
        " LEFT JOIN chunk_embeddings e"
        "  ON e.content_hash = c.content_hash AND e.embedding_model = %(model)s",
        {**search.scope.params(), "model": model},
    ).fetchall()
    search.conn.commit()
    texts = [r["content"] for r in rows]
    vectors = np.stack(
        [np.asarray(r["embedding"].to_list(), dtype=np.float32) for r in rows if r["embedding"]]
    )
    return texts, vectors


def measure(
    database_url: str, repositories: list[str], embedder, queries: list[str], baselines: bool
) -> dict:
    """p50/p95 of semantic, lexical, symbol and fused hybrid search (and the baselines)."""
    import psycopg

    from retrieval.lexical import lexical_candidates
    from retrieval.search import exact_symbol_hits, search_code
    from retrieval.semantic import semantic_candidates

    # fresh statistics, as after the pipeline's bulk load settles (see lab/LOG.md)
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute("ANALYZE")
    search = CodeatlasSearch(database_url, repositories, embedder)
    conn, scope = search.conn, search.scope
    model = embedder.model_name
    try:
        chunks = _chunk_count(search)
        vectors = {q: embedder.embed_query(q) for q in queries}

        def semantic(q: str) -> object:
            with conn.transaction():
                return semantic_candidates(conn, scope, model, vectors[q], DEPTH)

        def lexical(q: str) -> object:
            with conn.transaction():
                return lexical_candidates(conn, scope, q, DEPTH)

        def symbol(q: str) -> object:
            with conn.transaction():
                return exact_symbol_hits(conn, scope, q)

        def hybrid(q: str) -> object:
            with conn.transaction():
                return search_code(
                    conn,
                    scope,
                    q,
                    limit=10,
                    mode="hybrid",
                    embed_query=lambda _m, text: vectors[text],
                )

        result = {
            "chunks": chunks,
            "repositories": repositories,
            "embedder": model,
            "semantic": percentiles(_timed(semantic, queries)),
            "lexical": percentiles(_timed(lexical, queries)),
            "symbol": percentiles(_timed(symbol, queries)),
            "hybrid_fused": percentiles(_timed(hybrid, queries)),
            "query_embedding": percentiles(_timed(embedder.embed_query, queries)),
        }
        if baselines:
            texts, matrix = _baseline_corpus(search, model)
            started = time.perf_counter()
            bm25 = BM25(texts)
            result["baseline_bm25_build_seconds"] = round(time.perf_counter() - started, 1)
            index = VectorIndex(matrix)
            result["baseline_numpy_cosine"] = percentiles(
                _timed(lambda q: index.top(vectors[q], DEPTH), queries)
            )
            result["baseline_bm25"] = percentiles(_timed(lambda q: bm25.top(q, DEPTH), queries))
            del bm25
        return result
    finally:
        search.close()
