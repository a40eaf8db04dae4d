"""Retrieval quality on the public dev sets (Python, PHP, TypeScript): codeatlas (hybrid,
semantic, lexical) side by side with naive RAG, the eval READMEs' BM25 reference and the cAST
chunker, all with the same embedder.

The quick check after a retrieval change (indexes each corpus once, then only searches):

    python -m lab.quality --sets py,php,ts --modes lexical,hybrid --embedder fake --reuse

Each set has its own database on the benchmark's embedded server; with --reuse an index is
rebuilt only when the corpus commit, the parser version or the embedder changed, or a migration
was applied after it was built (--reindex forces it). Retrieval code is imported in this
process, so a change to retrieval/ is measured without re-indexing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

from benchmarks import embedder as embedders
from benchmarks.codeatlas_search import CodeatlasSearch, cli_search
from benchmarks.eval_sets import EVAL_SETS, EvalSet
from benchmarks.scoring import CorpusText, Result, intervals, score_run
from benchmarks.workspace import WORK, as_git_repo, database, prepare_environment
from lab.baselines.suite import SYSTEMS as BASELINE_SYSTEMS
from lab.baselines.suite import over_window, run_baselines
from lab.indexer import run_index
from lab.mined import sets as mined_sets
from lab.mined.sets import select
from lab.quality_table import print_intervals, print_summary, print_table

DEPTH = 10  # results scored per query (Recall@10, MRR@10, nDCG@10, token budgets)
MODES = ("hybrid", "semantic", "lexical")

SYSTEMS = {
    "codeatlas-hybrid": "codeatlas hybrid (semantic, lexical, symbol rankings, learned order)",
    "codeatlas-fused": "codeatlas hybrid in the rank-fusion order (RRF), no learned ranker",
    "codeatlas-semantic": "codeatlas semantic only (HNSW, symbol chunks)",
    "codeatlas-lexical": "codeatlas lexical only (symbol chunks)",
    **BASELINE_SYSTEMS,
}


def database_name(eval_set: EvalSet, provider: str) -> str:
    """The set's quality database for an embedder spec. The packaged local models share one (an
    index holds vectors of several models side by side); a model folder (`local:<path>`, e.g. a
    fine-tuned model) gets its own, named by the folder, so measuring it does not rebuild the
    packaged model's index."""
    kind, folder = embedders.split(provider)[0], embedders.model_folder(provider)
    if folder is not None:
        kind += "_" + re.sub(r"[^a-z0-9]+", "_", folder.name.lower())[:16]
    return f"bench_quality_{kind}_{eval_set.name}"


def index_status(
    database_url: str,
    repository: str,
    sha: str,
    model: str | None = None,
    *,
    current: bool = True,
    keep_migrated: bool = False,
) -> str | None:
    """Why `repository@sha` must be (re)indexed in that database, or None when it is current:
    same commit (the repository's current snapshot, or with `current=False` any of its ready
    snapshots: a release among several), parser and tokenizer version, no migration applied
    since (unless `keep_migrated`: a migration keeps what search reads, so only an index's
    timing is lost), and (given a model) a vector of that model for every chunk."""
    from core.config import load_settings
    from core.database import connection
    from core.terms import LEXICAL_VERSION
    from indexing.parse_version import effective_parser_version

    with connection(database_url) as conn:
        row = conn.execute(
            "SELECT s.id, s.parser_version, s.ready_at, r.id AS repository_id FROM repositories r"
            " JOIN snapshots s ON s.repository_id = r.id"
            "  AND (s.id = r.current_snapshot_id OR NOT %s)"
            " WHERE r.name = %s AND s.commit_sha = %s AND s.status = 'ready'",
            (current, repository, sha),
        ).fetchone()
        if row is None:
            return "not indexed at this commit"
        parser = effective_parser_version(load_settings())
        if row["parser_version"] != parser:
            return f"parsed with {row['parser_version']}, the parser is now {parser}"
        stale = conn.execute(
            "SELECT min(fv.lexical_version) AS version FROM snapshot_files sf"
            " JOIN file_versions fv ON fv.id = sf.file_version_id"
            " WHERE sf.snapshot_id = %s AND fv.lexical_version IS DISTINCT FROM %s",
            (row["id"], LEXICAL_VERSION),
        ).fetchone()
        if stale is not None and stale["version"] is not None:
            return f"tokenized with {stale['version']}, the tokenizer is now {LEXICAL_VERSION}"
        newer = conn.execute(
            "SELECT string_agg(name, ', ') AS names FROM schema_migrations WHERE applied_at > %s",
            (row["ready_at"],),
        ).fetchone()
        if newer["names"] and not keep_migrated:
            return f"migrations applied after it was indexed: {newer['names']}"
        if model is None:
            return None
        missing = conn.execute(
            "SELECT count(*) AS n FROM snapshot_files sf JOIN code_chunks c"
            " ON c.file_version_id = sf.file_version_id WHERE sf.snapshot_id = %s"
            " AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e"
            "  WHERE e.embedding_model = %s AND e.content_hash = c.content_hash)",
            (row["id"], model),
        ).fetchone()
        return f"{missing['n']} chunks without a {model} vector" if missing["n"] else None


def snapshot_ready(database_url: str, repository: str, sha: str, model: str | None = None) -> bool:
    """True when `repository@sha` is indexed and current in that database."""
    return index_status(database_url, repository, sha, model) is None


def ensure_index(
    eval_set: EvalSet, provider: str, embedder, *, fresh: bool, keep_migrated: bool = False
) -> dict:
    """The set's corpus indexed by `codeatlas index` into its database (only when needed; with
    `keep_migrated` an index a migration was applied to since is kept, see `index_status`)."""
    corpus = mined_sets.corpus(eval_set)
    sha = as_git_repo(corpus)
    repo = eval_set.corpus_dir
    url = database(database_name(eval_set, provider), fresh=fresh)
    why = (
        "--reindex"
        if fresh
        else index_status(url, repo, sha, embedder.model_name, keep_migrated=keep_migrated)
    )
    stats = None
    if why:
        print(f"[quality] indexing {eval_set.name} ({why})", file=sys.stderr, flush=True)
        # always into an empty database: the run is a full index, timed as one, and a stale
        # index (a migration since, say) cannot leave rows that make it stale again
        url = database(database_name(eval_set, provider), fresh=True)
        stats = run_index(corpus, repo, url, provider)
    return {"url": url, "repository": repo, "corpus": corpus, "commit": sha, "index": stats}


def codeatlas_runs(
    url: str, repository: str, queries: list[dict], modes: tuple[str, ...], embedder
) -> tuple[dict, dict]:
    """Ranked results and per-query seconds of codeatlas search in each mode."""
    ranked: dict[str, dict[str, list[Result]]] = {}
    latency: dict[str, list[float]] = {}
    search = CodeatlasSearch(url, [repository], embedder)
    try:
        for mode in modes:
            ranked[f"codeatlas-{mode}"] = {}
            latency[mode] = []
            for q in queries:
                started = time.perf_counter()
                ranked[f"codeatlas-{mode}"][q["id"]] = search.results(q["query"], mode, DEPTH)
                latency[mode].append(time.perf_counter() - started)
    finally:
        search.close()
    return ranked, latency


def codeatlas_over_window(database_url: str, repository: str, embedder) -> float:
    """Share of the stored chunks of the current snapshot longer than the model's window."""
    from core.database import connection

    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT DISTINCT c.content_hash,"
            " codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content FROM repositories r"
            " JOIN snapshot_files sf ON sf.snapshot_id = r.current_snapshot_id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id WHERE r.name = %s",
            (repository,),
        ).fetchall()
    return over_window(embedder, [r["content"] for r in rows])


def run(
    eval_set: EvalSet = EVAL_SETS["py"],
    *,
    fresh: bool = False,
    provider: str = "local",
    modes: tuple[str, ...] = MODES,
    baselines: bool = True,
    cache: bool = True,
    check_contract: bool = True,
) -> dict:
    """Index the set's corpus with codeatlas (`provider`'s embedder) and score every system."""
    prepare_environment()
    embedder = embedders.make(provider)
    index = ensure_index(eval_set, provider, embedder, fresh=fresh)
    url, repo, corpus = index["url"], index["repository"], index["corpus"]
    queries = eval_set.queries()
    ranked, latency = codeatlas_runs(url, repo, queries, modes, embedder)
    build: dict = {}
    if baselines:
        more, build = run_baselines(eval_set, corpus, queries, embedder, cache)
        ranked.update(more)
        build["codeatlas"] = {"over_model_window": codeatlas_over_window(url, repo, embedder)}
    text = CorpusText(corpus)
    scores = {name: score_run(queries, r, text.tokens) for name, r in ranked.items()}
    result = {
        "set": {
            "name": eval_set.name,
            "language": eval_set.language,
            "description": eval_set.description,
            "folder": str(eval_set.folder),
        },
        "corpus": {"repository": repo, "commit": index["commit"], "queries": len(queries)},
        "database_url": url,
        "embedder": {
            "provider": provider,
            "model": embedder.model_name,
            "real": embedders.is_real(embedder),
        },
        "index": index["index"],
        "baseline_build": build,
        "systems": {name: SYSTEMS[name] for name in ranked},
        "scores": scores,
        "intervals": {name: intervals(s) for name, s in scores.items()},
        "latency_seconds": latency,
    }
    if check_contract and "hybrid" in modes:
        first = queries[0]
        result["cli_contract"] = check_cli(
            url, repo, first["query"], provider, ranked["codeatlas-hybrid"][first["id"]]
        )
    return result


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


def main(argv: list[str] | None = None) -> int:
    """Measure the chosen sets and modes; print one table per set and a summary."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument(
        "--sets",
        default="py,php,ts",
        help="comma-separated: py,php,ts,go,rust,ruby,java,csharp; mined-test, mined-train,"
        " mined-<language>-<split> (lab/mined/)",
    )
    p.add_argument("--modes", default=",".join(MODES), help="codeatlas modes to measure")
    p.add_argument("--embedder", default="fake", help="provider: fake (quick) | local")
    p.add_argument("--reuse", action="store_true", help="keep a current index (default: rebuild)")
    p.add_argument("--reindex", action="store_true", help="rebuild the indexes even with --reuse")
    p.add_argument("--baselines", action="store_true", help="also run naive RAG, BM25, cAST")
    p.add_argument("--json", dest="json_out", help="also write the results to this file")
    args = p.parse_args(argv)
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    fresh = args.reindex or not args.reuse
    started = time.monotonic()
    results = {}
    for eval_set in select(args.sets):
        results[eval_set.name] = run(
            eval_set,
            fresh=fresh,
            provider=args.embedder,
            modes=modes,
            baselines=args.baselines,
            check_contract=False,
        )
    previous_file = WORK / "quick" / f"last-{args.embedder}.json"
    previous = json.loads(previous_file.read_text()) if previous_file.is_file() else {}
    for name, result in results.items():
        print_table(result, previous.get(name, {}))
        print_intervals(result)
    if len(results) > 1:
        print_summary(results)
    print(f"({time.monotonic() - started:.0f} s; Δ against the previous run of this command)")
    merged = {
        **previous,
        **{n: {s: _headline(v) for s, v in r["scores"].items()} for n, r in results.items()},
    }
    previous_file.parent.mkdir(parents=True, exist_ok=True)
    previous_file.write_text(json.dumps(merged, indent=1) + "\n")
    if args.json_out:
        with open(args.json_out, "w") as out:
            json.dump(results, out, indent=1, default=str)
    return 0


def _headline(scores: dict) -> dict:
    return {k: v for k, v in scores.items() if k != "first_hit_rank"}


if __name__ == "__main__":
    sys.exit(main())
