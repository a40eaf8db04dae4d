"""Every baseline ranked on one eval set: naive RAG, BM25 over whole-line windows (the eval
READMEs' reference) and cAST chunks (where astchunk knows the language), all in memory with the
same embedder as codeatlas."""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks import embedder as embedders
from benchmarks.eval_sets import EvalSet
from benchmarks.scoring import Result
from lab.baselines.bm25 import BM25, readme_tokens
from lab.baselines.cast_chunks import cast_chunks
from lab.baselines.vectors import VectorIndex, rrf
from lab.baselines.windows import Passage, corpus_files, line_windows, token_windows

CAST_SIZE = 2000  # the size astchunk's README uses (non-whitespace characters)
CAST_SMALL_SIZE = 800  # ~256 MiniLM tokens of Python: chunks the model sees whole
WINDOW_CHARS = 2048  # the eval READMEs' reference windows
NAIVE_TOKENS = 512
DEPTH = 10

SYSTEMS = {
    "naive-rag": "naive RAG: 512-token line windows, vector search",
    "bm25-2048": "BM25 over whole-line windows up to 2,048 chars (the eval READMEs' reference)",
    "cast-hybrid": "cAST chunks (astchunk, 2,000 non-whitespace chars) + vector/BM25 RRF",
    "cast-semantic": "cAST chunks (astchunk, 2,000), vector only",
    "cast-bm25": "cAST chunks (astchunk, 2,000), BM25 only",
    "cast800-hybrid": "cAST chunks sized near the model's 256-token window (800) + RRF",
    "cast800-semantic": "cAST chunks (800), vector only",
    "cast800-bm25": "cAST chunks (800), BM25 only",
}


def _as_results(passages: list[Passage], ids: list[int]) -> list[Result]:
    return [Result(passages[i].path, passages[i].start_line, passages[i].end_line) for i in ids]


def _vector_ranker(embedder, passages: list[Passage], cache: bool):
    vectors, seconds = embedders.embed_all(embedder, [p.text for p in passages], cache=cache)
    index = VectorIndex(vectors)
    return (lambda qv: index.top(qv, DEPTH * 5)), seconds


def over_window(embedder, texts: list[str]) -> float:
    """Share of passages longer than the embedding model's window (their tails are not seen)."""
    if not texts:
        return 0.0
    limit = embedder.max_tokens
    return round(sum(embedder.count_tokens(t) > limit for t in texts) / len(texts), 3)


def cast_available(eval_set: EvalSet) -> str | None:
    """Why the cAST baselines cannot run on this set (None: they can)."""
    if eval_set.cast_language is None:
        return f"astchunk 0.1.0 has no {eval_set.language} parser (python, java, c#, typescript)"
    try:
        import astchunk  # noqa: F401 - only to know whether the bench extra is installed
    except ImportError:
        return "astchunk is not installed (pip install -e '.[bench]')"
    return None


def run_baselines(
    eval_set: EvalSet, corpus: Path, queries: list[dict], embedder, cache: bool
) -> tuple[dict, dict]:
    """Ranked results of every baseline, and how each in-memory index was built."""
    suffixes = eval_set.source_suffixes
    ranked: dict[str, dict[str, list[Result]]] = {}
    build: dict[str, dict] = {}
    query_vectors = {q["id"]: embedder.embed_query(q["query"]) for q in queries}
    files = sum(1 for _ in corpus_files(corpus, suffixes))

    started = time.perf_counter()
    naive = token_windows(corpus, embedder.count_tokens, NAIVE_TOKENS, suffixes)
    split_s = time.perf_counter() - started
    # naive RAG's indexing speed is measured in a process of its own (lab/speed.py)
    top, embed_s = _vector_ranker(embedder, naive, cache=cache)
    ranked["naive-rag"] = {
        q["id"]: _as_results(naive, top(query_vectors[q["id"]])[:DEPTH]) for q in queries
    }
    build["naive-rag"] = {
        "over_model_window": over_window(embedder, [p.text for p in naive]),
        "passages": len(naive),
        "files": files,
        "split_seconds": split_s,
        "embed_seconds": embed_s,
    }

    started = time.perf_counter()
    windows = line_windows(corpus, WINDOW_CHARS, suffixes)
    bm25 = BM25([p.text for p in windows], tokens=readme_tokens)
    build["bm25-2048"] = {
        "passages": len(windows),
        "files": files,
        "index_seconds": time.perf_counter() - started,
    }
    ranked["bm25-2048"] = {
        q["id"]: _as_results(windows, bm25.top(q["query"], DEPTH)) for q in queries
    }

    why_not = cast_available(eval_set)
    if why_not:
        build["cast"] = {"skipped": why_not}
        return ranked, build
    for label, size in (("cast", CAST_SIZE), ("cast800", CAST_SMALL_SIZE)):
        started = time.perf_counter()
        cast = cast_chunks(corpus, eval_set, size)
        split_s = time.perf_counter() - started
        top, embed_s = _vector_ranker(embedder, cast, cache=cache)
        cast_bm25 = BM25([p.text for p in cast], tokens=readme_tokens)
        build[label] = {
            "passages": len(cast),
            "files": files,
            "max_chunk_size": size,
            "split_seconds": split_s,
            "embed_seconds": embed_s,
            "over_model_window": over_window(embedder, [p.text for p in cast]),
        }
        sem = {q["id"]: top(query_vectors[q["id"]]) for q in queries}
        lex = {q["id"]: cast_bm25.top(q["query"], DEPTH * 5) for q in queries}
        ranked[f"{label}-semantic"] = {i: _as_results(cast, ids[:DEPTH]) for i, ids in sem.items()}
        ranked[f"{label}-bm25"] = {i: _as_results(cast, ids[:DEPTH]) for i, ids in lex.items()}
        ranked[f"{label}-hybrid"] = {i: _as_results(cast, rrf(sem[i], lex[i])[:DEPTH]) for i in sem}
    return ranked, build
