"""Databases of several real repositories for measuring query latency as the index grows.

Indexed with the deterministic fake embedder: embedding ~100k chunks with the local model on a
2-core machine would take hours, and HNSW search cost depends on the number and size of vectors,
not on where they came from. Each level is its own database, so its HNSW and GIN indexes hold
exactly that level's chunks.
"""

from __future__ import annotations

from benchmarks.workspace import as_git_repo, database, eval_corpus, scale_repo
from lab.indexer import run_index
from lab.quality import snapshot_ready

FAKE_MODEL = "fake-hash-384"
LEVELS = {
    "20k": ["corpus", "django"],
    "100k": ["corpus", "django", "sqlalchemy", "sympy"],
}


def repo_path(name: str):
    """Where the repository's git checkout is."""
    return eval_corpus() if name == "corpus" else scale_repo(name)


def ensure_level(level: str, *, fresh: bool = False) -> dict:
    """The level's database with every repository indexed; index runs that were needed."""
    url = database(f"bench_scale_{level}", fresh=fresh)
    runs = []
    for name in LEVELS[level]:
        path = repo_path(name)
        if fresh or not snapshot_ready(url, name, as_git_repo(path), FAKE_MODEL):
            runs.append(run_index(path, name, url, "fake"))
    return {"database_url": url, "repositories": LEVELS[level], "index_runs": runs}


if __name__ == "__main__":
    import json
    import sys

    from benchmarks.workspace import prepare_environment

    prepare_environment()
    for lvl in sys.argv[1:] or list(LEVELS):
        print(json.dumps(ensure_level(lvl), indent=1), flush=True)
