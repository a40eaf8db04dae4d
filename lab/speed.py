"""Speed: full index throughput (fake and local embedder), one-file incremental reindex,
storage per chunk, peak memory of an index run, and query latency as the index grows."""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks import embedder as embedders
from benchmarks.eval_sets import EVAL_SETS
from benchmarks.scoring import load_queries
from benchmarks.workspace import WORK, as_git_repo, database, eval_corpus, git
from lab import latency, scale
from lab.baselines import naive_build
from lab.indexer import run_index
from lab.quality import database_name, snapshot_ready

INCREMENTAL_BRANCH = "bench-incremental"
INCREMENTAL_FILE = "flask/helpers.py"
STORAGE_TABLES = (
    "code_chunks",
    "chunk_embeddings",
    "code_symbols",
    "code_edges",
    "snapshot_files",
    "file_versions",
)


def one_file_change(corpus: Path) -> str:
    """A new commit on INCREMENTAL_BRANCH (off main) that changes one file; returns its sha."""
    worktree = WORK / "incremental-worktree"
    if not worktree.is_dir():
        git(corpus, "worktree", "prune")
        git(corpus, "worktree", "add", "-q", "-B", INCREMENTAL_BRANCH, str(worktree), "main")
    else:
        git(worktree, "reset", "-q", "--hard", "main")
    target = worktree / INCREMENTAL_FILE
    stamp = time.time_ns()
    target.write_text(
        target.read_text()
        + f"\n\ndef _benchmark_probe_{stamp}(value: int) -> int:\n"
        + '    """Added by the incremental benchmark."""\n    return value + 1\n'
    )
    git(worktree, "commit", "-q", "-am", "benchmark: change one file")
    return git(worktree, "rev-parse", "HEAD")


def incremental(corpus: Path, name: str, url: str, provider: str) -> dict:
    """Reindex after a one-file commit, then go back to main (nothing new to parse or embed)."""
    one_file_change(corpus)
    changed = run_index(corpus, name, url, provider, ref=INCREMENTAL_BRANCH)
    unchanged = run_index(corpus, name, url, provider, ref="main")
    return {"one_file": changed, "back_to_main_no_new_blobs": unchanged}


def storage(url: str) -> dict:
    """Bytes of each index table (heap + indexes + TOAST) and per chunk."""
    from core.database import connection

    with connection(url) as conn:
        sizes = {
            t: conn.execute("SELECT pg_total_relation_size(%s) AS b", (t,)).fetchone()["b"]
            for t in STORAGE_TABLES
        }
        chunks = conn.execute("SELECT count(*) AS n FROM code_chunks").fetchone()["n"]
        vectors = conn.execute("SELECT count(*) AS n FROM chunk_embeddings").fetchone()["n"]
        source = conn.execute(
            "SELECT coalesce(sum(size_bytes), 0) AS b FROM file_versions"
        ).fetchone()["b"]
    total = sum(sizes.values())
    return {
        "chunks": chunks,
        "vectors": vectors,
        "table_bytes": sizes,
        "total_bytes": total,
        "bytes_per_chunk": round(total / chunks) if chunks else None,
        "source_bytes": int(source),
        "source_bytes_per_chunk": round(int(source) / chunks) if chunks else None,
    }


def throughput(stats: dict) -> dict:
    """files/s and chunks/s of an index run, by wall time of the whole command."""
    wall = stats["wall_seconds"] or float("nan")
    return {
        **stats,
        "files_per_s": round(stats["files"] / wall, 2),
        "chunks_per_s": round(stats["chunks"] / wall, 2),
    }


def run(
    *,
    fresh: bool = True,
    fresh_scale: bool = False,
    quality_result: dict | None = None,
    scale_levels: tuple[str, ...] = ("20k", "100k"),
) -> dict:
    """Every speed measurement; `quality_result` supplies the local-embedder index run."""
    corpus = eval_corpus()
    sha = as_git_repo(corpus)
    queries = [q["query"] for q in load_queries()]
    out: dict = {"index": {}, "incremental": {}, "storage": {}, "latency": {}}

    fake_url = database("bench_speed_fake", fresh=fresh)
    if fresh or not snapshot_ready(fake_url, "corpus", sha, "fake-hash-384"):
        out["index"]["fake"] = throughput(run_index(corpus, "corpus", fake_url, "fake"))
    out["incremental"]["fake"] = incremental(corpus, "corpus", fake_url, "fake")
    out["storage"]["eval-corpus (fake vectors)"] = storage(fake_url)

    local_url = database(database_name(EVAL_SETS["py"], "local"), fresh=False)
    from_quality = quality_result or {}
    if from_quality.get("index") and from_quality["embedder"]["provider"] == "local":
        out["index"]["local"] = throughput(from_quality["index"])
        # naive RAG's indexing with the same model, in a process of its own, this run
        out["index"]["naive_rag_in_memory"] = naive_build.run_in_child(corpus, "local")
    if snapshot_ready(local_url, "corpus", sha):
        out["incremental"]["local"] = incremental(corpus, "corpus", local_url, "local")
        out["storage"]["eval-corpus (local vectors)"] = storage(local_url)
        local = embedders.make("local")
        out["latency"]["eval-corpus, local embedder"] = latency.measure(
            local_url, ["corpus"], local, queries, baselines=True
        )
    fake = embedders.make("fake")
    out["latency"]["eval-corpus, fake embedder"] = latency.measure(
        fake_url, ["corpus"], fake, queries, baselines=True
    )
    for level in scale_levels:
        built = scale.ensure_level(level, fresh=fresh_scale)
        out["latency"][f"{level} level, fake embedder"] = {
            **latency.measure(
                built["database_url"], built["repositories"], fake, queries, baselines=True
            ),
            "index_runs": built["index_runs"],
        }
        out["storage"][f"{level} level (fake vectors)"] = storage(built["database_url"])
    return out
