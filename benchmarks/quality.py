"""Retrieval quality on the eval set: codeatlas (hybrid, semantic, lexical) side by side with
naive RAG, the eval set's BM25 reference and the cAST chunker, all with the same embedder."""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks import embedder as embedders
from benchmarks.baselines.bm25 import BM25
from benchmarks.baselines.cast_chunks import cast_chunks
from benchmarks.baselines.vectors import VectorIndex, rrf
from benchmarks.baselines.windows import Passage, char_windows, corpus_files, token_windows
from benchmarks.codeatlas_search import CodeatlasSearch, cli_search
from benchmarks.indexer import run_index
from benchmarks.scoring import CorpusText, Result, load_queries, score_run
from benchmarks.workspace import as_git_repo, database, eval_corpus, prepare_environment

CAST_SIZE = 2000  # the size astchunk's README uses (non-whitespace characters)
CAST_SMALL_SIZE = 800  # ~256 MiniLM tokens of Python: chunks the model sees whole
DEPTH = 10  # results scored per query (Recall@10, MRR@10, nDCG@10, token budgets)
MODES = ("hybrid", "semantic", "lexical")

SYSTEMS = {
    "codeatlas-hybrid": "codeatlas hybrid (semantic + lexical RRF, exact symbols injected)",
    "codeatlas-semantic": "codeatlas semantic only (HNSW, symbol chunks)",
    "codeatlas-lexical": "codeatlas lexical only (ts_rank_cd, symbol chunks)",
    "naive-rag": "naive RAG: 512-token line windows, vector search",
    "bm25-2048": "BM25 over 2,048-char windows, identifiers split (eval reference)",
    "cast-hybrid": "cAST chunks (astchunk, 2,000 non-whitespace chars) + vector/BM25 RRF",
    "cast-semantic": "cAST chunks (astchunk, 2,000), vector only",
    "cast-bm25": "cAST chunks (astchunk, 2,000), BM25 only",
    "cast800-hybrid": "cAST chunks sized near the model's 256-token window (800) + RRF",
    "cast800-semantic": "cAST chunks (800), vector only",
    "cast800-bm25": "cAST chunks (800), BM25 only",
}


def snapshot_ready(database_url: str, repository: str, sha: str, model: str | None = None) -> bool:
    """True when `repository@sha` is indexed and current in that database (and, given a model,
    every chunk content of it has a vector of that model)."""
    from codeatlas.database import connect

    conn = connect(database_url)
    try:
        row = conn.execute(
            "SELECT s.id, r.id AS repository_id FROM repositories r"
            " JOIN snapshots s ON s.id = r.current_snapshot_id"
            " WHERE r.name = %s AND s.commit_sha = %s AND s.status = 'ready'",
            (repository, sha),
        ).fetchone()
        if row is None or model is None:
            return row is not None
        missing = conn.execute(
            "SELECT count(*) AS n FROM snapshot_files sf JOIN code_chunks c"
            " ON c.file_version_id = sf.file_version_id WHERE sf.snapshot_id = %s"
            " AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.repository_id = %s"
            "  AND e.embedding_model = %s AND e.content_hash = c.content_hash)",
            (row["id"], row["repository_id"], model),
        ).fetchone()
        return missing["n"] == 0
    finally:
        conn.close()


def queries_within(queries: list[dict], packages: list[str] | None) -> list[dict]:
    """Queries whose gold answers all lie in the given top-level packages (None: all)."""
    if packages is None:
        return queries
    return [q for q in queries if all(g["path"].split("/", 1)[0] in packages for g in q["gold"])]


def _as_results(passages: list[Passage], ids: list[int]) -> list[Result]:
    return [Result(passages[i].path, passages[i].start_line, passages[i].end_line) for i in ids]


def _vector_ranker(embedder, passages, cache: bool):
    vectors, seconds = embedders.embed_all(embedder, [p.text for p in passages], cache=cache)
    index = VectorIndex(vectors)
    return (lambda qv: index.top(qv, DEPTH * 5)), seconds


def run_baselines(corpus: Path, queries: list[dict], embedder, cache: bool) -> tuple[dict, dict]:
    """Ranked results of every baseline, and how long building each in-memory index took."""
    ranked: dict[str, dict[str, list[Result]]] = {}
    build: dict[str, dict] = {}
    query_vectors = {q["id"]: embedder.embed_query(q["query"]) for q in queries}
    files = sum(1 for _ in corpus_files(corpus))

    started = time.perf_counter()
    naive = token_windows(corpus, embedder.count_tokens, 512)
    split_s = time.perf_counter() - started
    # naive RAG's indexing speed is measured in a process of its own (benchmarks/speed.py)
    top, embed_s = _vector_ranker(embedder, naive, cache=True)
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
    windows = char_windows(corpus, 2048)
    bm25 = BM25([p.text for p in windows])
    build["bm25-2048"] = {
        "passages": len(windows),
        "files": files,
        "index_seconds": time.perf_counter() - started,
    }
    ranked["bm25-2048"] = {
        q["id"]: _as_results(windows, bm25.top(q["query"], DEPTH)) for q in queries
    }

    try:
        import astchunk  # noqa: F401 - only to know whether the bench extra is installed
    except ImportError:
        build["cast"] = {"skipped": "astchunk is not installed (pip install -e '.[bench]')"}
        return ranked, build
    for label, size in (("cast", CAST_SIZE), ("cast800", CAST_SMALL_SIZE)):
        started = time.perf_counter()
        cast = cast_chunks(corpus, size)
        split_s = time.perf_counter() - started
        # not a throughput baseline: reuse vectors of identical texts across runs
        top, embed_s = _vector_ranker(embedder, cast, cache=True)
        cast_bm25 = BM25([p.text for p in cast])
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


def over_window(embedder, texts: list[str]) -> float:
    """Share of passages longer than the embedding model's window (their tails are not seen)."""
    if not texts:
        return 0.0
    limit = embedder.max_tokens
    return round(sum(embedder.count_tokens(t) > limit for t in texts) / len(texts), 3)


def codeatlas_over_window(database_url: str, repository: str, embedder) -> float:
    """The same share for the chunks codeatlas stored for the repository's current snapshot."""
    from codeatlas.database import connect

    conn = connect(database_url)
    try:
        rows = conn.execute(
            "SELECT DISTINCT c.content_hash, c.content FROM repositories r"
            " JOIN snapshot_files sf ON sf.snapshot_id = r.current_snapshot_id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id WHERE r.name = %s",
            (repository,),
        ).fetchall()
    finally:
        conn.close()
    return over_window(embedder, [r["content"] for r in rows])


def run(
    *,
    fresh: bool = False,
    provider: str = "local",
    packages: list[str] | None = None,
    cache: bool = True,
    baselines: bool = True,
) -> dict:
    """Index the eval corpus with codeatlas (`provider`'s embedder), score every system."""
    prepare_environment()
    corpus = eval_corpus()
    repo_name = "corpus"
    if packages is not None:
        from benchmarks.workspace import WORK, subset_repo

        repo_name = "corpus-" + "-".join(packages)
        corpus = subset_repo(corpus, packages, WORK / repo_name)
    sha = as_git_repo(corpus)
    embedder = embedders.make(provider)
    db_name = f"bench_quality_{provider}" + ("" if packages is None else "_subset")
    url = database(db_name, fresh=fresh)
    index_stats = None
    if fresh or not snapshot_ready(url, repo_name, sha, embedder.model_name):
        index_stats = run_index(corpus, repo_name, url, provider)
    queries = queries_within(load_queries(), packages)
    text = CorpusText(corpus)

    ranked: dict[str, dict[str, list[Result]]] = {}
    latency: dict[str, list[float]] = {}
    search = CodeatlasSearch(url, [repo_name], embedder)
    try:
        for mode in MODES:
            ranked[f"codeatlas-{mode}"] = {}
            latency[mode] = []
            for q in queries:
                started = time.perf_counter()
                ranked[f"codeatlas-{mode}"][q["id"]] = search.results(q["query"], mode, DEPTH)
                latency[mode].append(time.perf_counter() - started)
    finally:
        search.close()
    build: dict = {}
    if baselines:
        more, build = run_baselines(corpus, queries, embedder, cache)
        ranked.update(more)
        build["codeatlas"] = {"over_model_window": codeatlas_over_window(url, repo_name, embedder)}
    scores = {name: score_run(queries, r, text.tokens) for name, r in ranked.items()}
    return {
        "corpus": {
            "repository": repo_name,
            "commit": sha,
            "packages": packages,
            "queries": len(queries),
        },
        "embedder": {
            "provider": provider,
            "model": embedder.model_name,
            "real": embedders.is_real(embedder),
        },
        "index": index_stats,
        "baseline_build": build,
        "systems": {name: SYSTEMS[name] for name in ranked},
        "scores": scores,
        "latency_seconds": latency,
        "cli_contract": check_cli(
            url,
            repo_name,
            queries[0]["query"],
            provider,
            ranked["codeatlas-hybrid"][queries[0]["id"]],
        ),
    }


def check_cli(url: str, repo: str, query: str, provider: str, expected: list[Result]) -> dict:
    """`codeatlas search --json` answers the same as the library, with the contract's keys."""
    try:
        payload = cli_search(url, repo, query, provider, "hybrid", DEPTH)
    except Exception as exc:  # noqa: BLE001 - reported, not fatal: the library results stand
        return {"ok": False, "error": str(exc)[:300]}
    keys = {"path", "start_line", "end_line", "symbol", "kind", "score", "retrievers", "commit"}
    results = payload.get("results", [])
    same = [Result(r["path"], r["start_line"], r["end_line"]) for r in results] == expected
    return {
        "ok": bool(results) and all(set(r) == keys for r in results) and same,
        "same_as_library": same,
        "results": len(results),
    }
