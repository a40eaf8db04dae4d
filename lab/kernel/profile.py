"""`python -m lab.kernel.profile [FOLDER...]`: where the indexer's time goes, in-process.

Indexes a slice of the kernel sample (default `fs/ext4`) into a fresh database, calling the
indexing library directly (no Dagster run, no embedding), with the wall time of each stage
(reading blobs, parsing, storing symbols/chunks/edges, the BM25 postings) and cProfile's top
functions. Stages overlap nothing: the library runs them one after another in one process.
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks.workspace import WORK, database, git, prepare_environment, subset_repo
from lab.kernel.corpus import kernel_repo

STAGE_SECONDS: dict[str, float] = defaultdict(float)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            STAGE_SECONDS[name] += time.perf_counter() - started

    return wrapper


def _instrument() -> None:
    """Wrap each stage where its callers look it up (module attributes)."""
    from indexing import git_source, lexical_index, parse_step, storage
    from indexing.parsing import parser

    read_blobs = git_source.read_blobs  # a generator: timed as it is consumed
    git_source.read_blobs = _timed("read blobs", lambda repo, shas: list(read_blobs(repo, shas)))
    parser.parse_file = _timed("parse (tree-sitter, chunks)", parser.parse_file)
    storage.store_parsed_file = _timed("store symbols/chunks/edges", storage.store_parsed_file)
    storage.claim_file_version = _timed("claim file version", storage.claim_file_version)
    lexical_index.index_file_terms = _timed("BM25 chunk terms", lexical_index.index_file_terms)
    lexical_index.write_new_file_terms = _timed(
        "BM25 chunk terms (with the parse)", lexical_index.write_new_file_terms
    )
    lexical_index.build_blocks = _timed("BM25 blocks (publish)", lexical_index.build_blocks)
    lexical_index.chunk_document = _timed("tokenize", lexical_index.chunk_document)
    parse_step.analyze = _timed("analyze", parse_step.analyze)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Profile one index of the slice and print the stages and the top functions; with
    `--cpu`, no profiler and no wrappers: the CPU seconds of this process, of its parse
    workers and of the database server (the server must have no other user meanwhile)."""
    cpu_only = "--cpu" in sys.argv
    folders = [a for a in sys.argv[1:] if a != "--cpu"] or ["fs/ext4"]
    prepare_environment()
    source = kernel_repo(sample=True)
    label = "-".join(f.replace("/", "_") for f in folders)
    repo = subset_repo(source, folders, WORK / "kernel" / f"slice-{label}")
    url = database(f"bench_kernel_profile_{label}"[:60], fresh=True)

    from core import embedded_server
    from core.config import load_settings
    from core.database import transaction
    from indexing import repositories
    from indexing.parse_step import parse_snapshot
    from indexing.snapshot_files import record_source_files
    from lab.kernel.measure import server_cpu_seconds

    if not cpu_only:
        _instrument()
    settings = load_settings()
    postmaster = embedded_server.postmaster(settings.state_dir / "postgres")
    assert postmaster is not None
    sha = git(repo, "rev-parse", "HEAD")
    with transaction(url) as conn:
        repositories.register(conn, "linux-slice", str(repo), "main")
    profiler = cProfile.Profile()
    server = server_cpu_seconds(postmaster)
    started, cpu, workers = time.perf_counter(), time.process_time(), _children_cpu()
    if not cpu_only:
        profiler.enable()
    listed = record_source_files(url, settings, "linux-slice", sha)
    parsed = parse_snapshot(url, settings, "linux-slice", sha)
    profiler.disable()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    workers = _children_cpu() - workers
    server = server_cpu_seconds(postmaster) - server
    if not cpu_only:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
        print(out.getvalue())
    print(
        json.dumps(
            {
                "folders": folders,
                "files": listed["indexable"],
                "chunks": parsed["chunks"],
                "wall_seconds": round(wall, 2),
                "client_cpu_seconds": round(cpu, 2),
                "parse_worker_cpu_seconds": round(workers, 2),
                "server_cpu_seconds": round(server, 2),
                "cpu_ms_per_chunk": round(1000 * (cpu + workers + server) / parsed["chunks"], 3),
                "chunks_per_second": round(parsed["chunks"] / wall, 1),
                "stages": {k: round(v, 2) for k, v in STAGE_SECONDS.items()},
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
