"""`python -m lab.kernel [--full] [--label NAME]`: index the kernel (its sample by
default) with the fake embedder, then the one-file and fifty-file commits, and write what was
measured to `lab/results/kernel_<label>.json` (lab/LOG.md, "Linux kernel")."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from benchmarks.workspace import WORK, database, eval_corpus, git, prepare_environment
from lab import RESULTS
from lab.indexer import run_index
from lab.kernel.corpus import TAGS, fetch_package, kernel_repo, more_commits, tree_stats
from lab.kernel.measure import (
    PeakMemory,
    latencies,
    run_stages,
    server_cpu_seconds,
    source_bytes,
    storage,
)
from lab.kernel.partial import partial_commits
from lab.machine import describe

REPOSITORY = "linux"
SECOND = "corpus"


def _mtime(path: Path) -> float:
    return path.stat().st_mtime


def main() -> None:
    """Run the benchmark and print its JSON."""
    parser = argparse.ArgumentParser(prog="python -m lab.kernel")
    parser.add_argument("--full", action="store_true", help="the whole tree, not the sample")
    parser.add_argument("--label", default="sample", help="names the database and result file")
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument(
        "--provider",
        default="fake",
        choices=("fake", "local"),
        help="the embedder (local: the vectors' time on this machine, for the sample)",
    )
    parser.add_argument(
        "--partial",
        action="store_true",
        help="after an interrupted --full index (with --resume): index and measure the files"
        " parsed so far as a commit of their own (lab/kernel/partial.py)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the label's database: an index run that failed part way resumes where it"
        " stopped (the result then times only the rest)",
    )
    parser.add_argument(
        "--until-published",
        action="store_true",
        help="end each index run once it is searchable, before its vectors (the whole tree's"
        " fake vectors take hours); a small second repository then gives the 'all' scope",
    )
    parser.add_argument(
        "--measure-only",
        action="store_true",
        help="measure the label's database as it is (storage, latency), without indexing",
    )
    parser.add_argument(
        "--more-commits",
        action="store_true",
        help="on the label's database as it is: three more commits (a one-file warm-up, then a"
        " one-file and a fifty-file change) indexed by the code checked out now, into"
        " kernel_<label>_more.json (commit cost of this code against an index built earlier)",
    )
    args = parser.parse_args()

    from core import embedded_server
    from core.config import load_settings

    state = prepare_environment()
    package = fetch_package()
    repo = kernel_repo(sample=not args.full)
    keep = args.measure_only or args.resume or args.more_commits
    url = database(f"bench_kernel_{args.label}", fresh=not keep)
    refs = {tag: git(repo, "rev-parse", tag) for tag in TAGS}
    if args.more_commits:
        refs = more_commits(repo)
    if args.partial:
        refs = partial_commits(repo, url, REPOSITORY)
    postmaster = embedded_server.postmaster(load_settings().state_dir / "postgres")
    assert postmaster is not None, f"no embedded PostgreSQL running under {state}"
    result: dict = {
        "machine": describe(url),
        "package": {"name": package.path.name, "sha256": package.sha256, "bytes": package.size},
        "corpus": {
            "sample": not args.full,
            "partial": args.partial,
            **tree_stats(repo, next(iter(refs.values()))),
        },
        "runs": {},
    }
    out = RESULTS / f"kernel_{args.label}{'_more' if args.more_commits else ''}.json"

    def save() -> None:  # after every step: a run stopped part way keeps what it measured
        out.write_text(json.dumps(result, indent=1, default=str) + "\n")

    if args.measure_only:
        result["storage"] = storage(url)
        result["source"] = source_bytes(url, REPOSITORY)
        result["latency"] = _latencies(url)
        out = out.with_name(f"kernel_{args.label}_measured.json")
        save()
        print(json.dumps(result, indent=1, default=str))
        return
    with PeakMemory(postmaster, os.getpid()) as memory:
        for tag, ref in refs.items():
            started = time.monotonic()
            server_cpu = server_cpu_seconds(postmaster)
            run = run_index(
                repo,
                REPOSITORY,
                url,
                args.provider,
                ref=ref,
                until_published=args.until_published,
            )
            # the server's CPU for the run: its backends exit with their connections; other
            # users of this benchmark's own server (none during a run) would count too
            run["server_cpu_seconds"] = round(server_cpu_seconds(postmaster) - server_cpu, 2)
            run["tag"] = tag
            log = max((WORK / "logs").glob(f"index-{REPOSITORY}-{args.provider}-*.log"), key=_mtime)
            run.update(run_stages(log.read_text()))
            result["runs"][tag] = run
            print(f"{tag}: {run} ({time.monotonic() - started:.0f}s)", flush=True)
            result["server_memory"] = memory.report()
            save()
            if tag == "base":
                result["storage"] = storage(url)
                result["source"] = source_bytes(url, REPOSITORY)
                save()
        if args.more_commits:
            return
        if args.until_published:
            # a second, small repository (the Python eval corpus), so that the scope of all
            # repositories is more than the kernel's
            result["runs"]["second repository"] = run_index(
                eval_corpus(), SECOND, url, "fake", until_published=True
            )
        result["server_memory"] = memory.report()
        save()
    base = result["runs"]["base"]
    result["rates"] = {
        # the index without vectors (parse, symbols, call graph, BM25, publish): issue 30's target
        "files_per_second": round(base["files"] / base["index_without_vectors_seconds"], 2),
        "chunks_per_second": round(base["chunks"] / base["index_without_vectors_seconds"], 1),
        "cpu_ms_per_chunk": round(
            1000 * (base["cpu_seconds"] + base["server_cpu_seconds"]) / base["chunks"], 2
        ),
        "storage_over_source": round(
            result["storage"]["all_tables_bytes"] / result["source"]["bytes"], 2
        ),
    }
    save()
    if not args.no_latency:
        result["latency"] = _latencies(url)
    save()
    print(json.dumps(result, indent=1, default=str))


def _latencies(url: str) -> dict:
    """The kernel's scope, then all repositories' (the same when the kernel is alone)."""
    return {"one repository": latencies(url, [REPOSITORY]), "all": latencies(url, None)}


if __name__ == "__main__":
    main()
