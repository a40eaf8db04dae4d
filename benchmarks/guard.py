"""The quick quality check CI runs, one per eval set (Python, PHP, TypeScript): a slice of the
set's corpus (`EvalSet.guard_prefixes`) indexed by the Dagster index job (in process, as the
CLI runs it) with the deterministic fake embedder; hybrid search;
Recall@5 and tight@5 against the set's floor in `benchmarks/quality_floor.json`.

Record new floors for every set (after a deliberate change) with
`python -m benchmarks.guard --record` (`--sets php` records only that one).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

from benchmarks.embedder import make as make_embedder
from benchmarks.eval_sets import EVAL_SETS, EvalSet, fetch_corpus, queries_within, select
from benchmarks.scoring import CorpusText, score_run
from benchmarks.workspace import as_git_repo
from corpora.languages import cache_root

FLOOR_FILE = Path(__file__).resolve().parent / "quality_floor.json"
MODE = "hybrid"
GUARDED = ("recall@5", "tight@5")  # metrics with a floor
KEPT = ("recall@1", "recall@5", "recall@10", "tight@5", "mrr@10", "ndcg@10", "recall@2000tok")


def cached_corpus(eval_set: EvalSet = EVAL_SETS["py"]) -> Path:
    """The set's full corpus, fetched once into the test cache (shared with the test suite)."""
    return fetch_corpus(eval_set, cache_root() / eval_set.corpus_dir)


def subset_corpus(eval_set: EvalSet, dest: Path) -> Path:
    """A git repository with only the guard's slice of the set's corpus."""
    source = cached_corpus(eval_set)
    dest.mkdir(parents=True, exist_ok=True)
    for prefix in eval_set.guard_prefixes:
        folder = prefix.rstrip("/")
        shutil.copytree(source / folder, dest / folder)
    as_git_repo(dest)
    return dest


def guard_queries(eval_set: EvalSet) -> list[dict]:
    """Questions whose every gold answer lies in the guard's slice."""
    return queries_within(eval_set.queries(), eval_set.guard_prefixes)


def measure(database_url: str, workdir: Path, eval_set: EvalSet = EVAL_SETS["py"]) -> dict:
    """Index the set's slice into `database_url` (fake embedder) and score hybrid search."""
    from dagster import DagsterInstance

    from assets.resources import EmbeddingProvider, IndexDatabase
    from benchmarks.codeatlas_search import CodeatlasSearch
    from core.config import load_settings
    from core.database import transaction
    from indexing import repositories
    from orchestration.definitions import build_definitions
    from orchestration.index_run import index_commit

    repo = subset_corpus(eval_set, workdir / f"guard-{eval_set.name}")
    embedder = make_embedder("fake")  # the same factory call the index job makes
    name = f"guard-{eval_set.name}"
    with transaction(database_url) as conn:
        repositories.register(conn, name, str(repo), "main")
    index_commit(
        load_settings(),
        name,
        as_git_repo(repo),
        instance=DagsterInstance.ephemeral(),
        definitions=build_definitions(
            IndexDatabase(url=database_url), EmbeddingProvider(provider="fake")
        ),
    )
    queries = guard_queries(eval_set)
    search = CodeatlasSearch(database_url, [name], embedder)
    try:
        ranked = {q["id"]: search.results(q["query"], MODE, 10) for q in queries}
    finally:
        search.close()
    scores = score_run(queries, ranked, CorpusText(repo).tokens)
    return {
        "set": eval_set.name,
        "prefixes": list(eval_set.guard_prefixes),
        "mode": MODE,
        "embedder": embedder.model_name,
        "queries": scores["queries"],
        **{k: scores[k] for k in KEPT},
    }


def load_floor(eval_set: EvalSet = EVAL_SETS["py"]) -> dict | None:
    """The set's recorded floor: a value per guarded metric and the `margin` allowed below it
    (None: no floor recorded for the set yet, e.g. a newly added held-out set)."""
    return json.loads(FLOOR_FILE.read_text())["sets"].get(eval_set.name)


def shortfalls(result: dict, floor: dict) -> list[str]:
    """The guarded metrics that fell more than the margin below their floor."""
    return [
        f"{metric} {result[metric]:.3f} < floor {floor[metric]:.3f} - margin {floor['margin']}"
        for metric in GUARDED
        if result[metric] < floor[metric] - floor["margin"] - 1e-9
    ]


def margin_for(queries: int) -> float:
    """Room for one question to flip (a second one fails the guard)."""
    return round(1.0 / queries + 0.005, 3)


def record(results: dict[str, dict]) -> None:
    """Write the measured values as the floors of the measured sets (others are kept)."""
    current = json.loads(FLOOR_FILE.read_text()) if FLOOR_FILE.is_file() else {}
    sets = current.get("sets", {})
    for name, result in results.items():
        sets[name] = {
            **{m: result[m] for m in GUARDED},
            "margin": margin_for(result["queries"]),
            "measured": result,
        }
    floor = {
        "how": "python -m benchmarks.guard --record (fake embedder, the Dagster index job)",
        "note": "margin = one question of the slice may flip; two lost fail the test",
        "sets": {name: sets[name] for name in EVAL_SETS if name in sets},
    }
    FLOOR_FILE.write_text(json.dumps(floor, indent=2) + "\n")


def main() -> None:
    """Measure on scratch databases of the benchmark's embedded server; --record saves them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", action="store_true", help="write quality_floor.json")
    parser.add_argument("--sets", default="all", help="comma-separated names (all: every set)")
    args = parser.parse_args()
    import tempfile

    from benchmarks.workspace import database, prepare_environment

    prepare_environment()
    os.environ["CODEATLAS_EMBEDDING_PROVIDER"] = "fake"
    results: dict[str, dict] = {}
    failed = False
    for eval_set in select(args.sets):
        url = database(f"bench_guard_{eval_set.name}", fresh=True)
        os.environ["CODEATLAS_DATABASE_URL"] = url
        with tempfile.TemporaryDirectory() as tmp:
            results[eval_set.name] = measure(url, Path(tmp), eval_set)
        print(json.dumps(results[eval_set.name], indent=2), flush=True)
        if not args.record and FLOOR_FILE.is_file():
            floor = load_floor(eval_set)
            if floor is None:
                print(f"{eval_set.name}: no floor recorded (--record --sets {eval_set.name})")
                continue
            below = shortfalls(results[eval_set.name], floor)
            print(f"{eval_set.name}: " + ("; ".join(below) if below else "above the floor"))
            failed = failed or bool(below)
    if args.record:
        record(results)
        print(f"recorded {FLOOR_FILE} for {', '.join(results)}")
    elif failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
