"""The quick quality check CI runs: the eval corpus restricted to flask + itsdangerous, indexed
by the Dagster index job (as tests/assets/pipeline_helpers does) with the deterministic fake
embedder; hybrid search; Recall@5 against the floor in `benchmarks/quality_floor.json`.

Record a new floor (after a deliberate change) with `python -m benchmarks.guard --record`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
from pathlib import Path

from benchmarks.embedder import make as make_embedder
from benchmarks.scoring import EVAL_DIR, CorpusText, load_queries, score_run
from benchmarks.workspace import as_git_repo

FLOOR_FILE = Path(__file__).resolve().parent / "quality_floor.json"
PACKAGES = ["flask", "itsdangerous"]
MODE = "hybrid"


def cached_corpus() -> Path:
    """The full eval corpus, fetched once into the test cache (shared with the test suite)."""
    cache = Path(os.environ.get("CODEATLAS_TEST_CACHE") or Path.home() / ".cache/codeatlas-tests")
    corpus = cache / "corpus"
    if not (corpus / "flask" / "__init__.py").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["bash", str(EVAL_DIR / "fetch_corpus.sh"), str(corpus)],
            check=True,
            capture_output=True,
            timeout=600,
        )
    return corpus


def subset_corpus(dest: Path) -> Path:
    """A git repository with only the guard's packages."""
    source = cached_corpus()
    dest.mkdir(parents=True, exist_ok=True)
    for pkg in PACKAGES:
        shutil.copytree(source / pkg, dest / pkg)
    as_git_repo(dest)
    return dest


def guard_queries() -> list[dict]:
    """Questions whose every gold answer lies in the guard's packages."""
    return [
        q for q in load_queries() if all(g["path"].split("/", 1)[0] in PACKAGES for g in q["gold"])
    ]


def measure(database_url: str, workdir: Path) -> dict:
    """Index the subset into `database_url` (fake embedder) and score hybrid search."""
    from benchmarks.codeatlas_search import CodeatlasSearch
    from tests.assets.pipeline_helpers import register, run_index

    repo = subset_corpus(workdir / "guard-corpus")
    embedder = make_embedder("fake")  # the same factory call the index job makes
    register(database_url, "guard", str(repo))
    run_index(database_url, "guard", as_git_repo(repo))
    queries = guard_queries()
    search = CodeatlasSearch(database_url, ["guard"], embedder)
    try:
        ranked = {q["id"]: search.results(q["query"], MODE, 10) for q in queries}
    finally:
        search.close()
    scores = score_run(queries, ranked, CorpusText(repo).tokens)
    scores.pop("first_hit_rank")
    return {"packages": PACKAGES, "mode": MODE, "embedder": embedder.model_name, **scores}


def load_floor() -> dict:
    """The recorded floor: `recall@5` and the `margin` allowed below it."""
    return json.loads(FLOOR_FILE.read_text())


def main() -> None:
    """Measure on a scratch database of the benchmark's embedded server; --record saves it."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", action="store_true", help="write quality_floor.json")
    parser.add_argument("--margin", type=float, default=0.06)
    args = parser.parse_args()
    import tempfile

    from benchmarks.workspace import database, prepare_environment

    prepare_environment()
    os.environ["CODEATLAS_EMBEDDING_PROVIDER"] = "fake"
    url = database("bench_guard", fresh=True)
    os.environ["CODEATLAS_DATABASE_URL"] = url
    with tempfile.TemporaryDirectory() as tmp:
        result = measure(url, Path(tmp))
    print(json.dumps(result, indent=2))
    if args.record:
        floor = {
            "recall@5": result["recall@5"],
            "margin": args.margin,
            "measured": {
                k: result[k]
                for k in (
                    "recall@1",
                    "recall@5",
                    "recall@10",
                    "tight@5",
                    "mrr@10",
                    "queries",
                    "embedder",
                    "mode",
                    "packages",
                )
            },
            "how": "python -m benchmarks.guard --record (fake embedder, the Dagster index job)",
            "note": "margin 0.06 = one of the 20 questions may flip; two lost fail the test",
        }
        FLOOR_FILE.write_text(json.dumps(floor, indent=2) + "\n")
        print(f"recorded {FLOOR_FILE}")


if __name__ == "__main__":
    main()
