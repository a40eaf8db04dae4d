"""`python -m lab.commit_scaling [--files N ...] [--compare CHECKOUT] [--rounds R]`: what
one commit costs as the tree grows (issue 30: a one-file commit of the whole kernel took 32.6 s).

For each N, a generated C repository of N small files (five functions each, calling functions of
other files, identifiers drawn from a vocabulary so the BM25 terms are many), plus a Makefile per
folder of 100 files (a file codeatlas skips, as the kernel's assembly and Kconfig files). It is
indexed once by `codeatlas index` (fake embedder, to the end); then, per round and per checkout
(`--compare /work/main` first, then this checkout: the same database, the same load, turn about),
a commit that changes one file and a commit that changes 50, each indexed by that checkout's own
`codeatlas index` (`PYTHONPATH` = the checkout). Each run records wall time, the time until its
log said published (searchable), the command's CPU (with its parse workers) and the server's
(the embedded PostgreSQL of this benchmark's own work area: no other user), and the seconds of
each step from the log's timestamps. Writes `lab/results/<label>.json`.

`--profile` instead runs a one-file and a fifty-file commit of the largest N once per checkout
with `log_min_duration_statement` set on its database, and prints the statements that took
longest (from the server's log) and the steps' seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

from benchmarks.workspace import REPO_ROOT, WORK, database, git, prepare_environment
from lab import RESULTS
from lab.indexer import run_index
from lab.kernel.measure import run_stages, server_cpu_seconds
from lab.machine import describe

REPOSITORY = "scaling"
FUNCTIONS = 5
FILES_PER_FOLDER = 100
_VOCABULARY = (
    "alloc free lock unlock read write open close init exit probe remove queue dequeue map unmap"
    " page buf dev irq dma clk reg bus net skb sock inode file dentry super block bio req cmd"
    " ctx state flags mode size count index node list head tail entry table hash cache pool"
    " timer work event notify reset power suspend resume enable disable start stop update get"
    " put ref sync flush load store parse check valid error status config setup attach detach"
)
_WORDS = _VOCABULARY.split()


def _name(rng: random.Random) -> str:
    return "_".join(rng.sample(_WORDS, 3))


def _function(file_index: int, f: int, rng: random.Random, files: int) -> list[str]:
    other = rng.randrange(files)
    return [
        f"static int {_name(rng)}_{file_index}_{f}(struct {_name(rng)} *p, int n)",
        "{",
        f"\tint r = {_name(rng)}(p, n);",
        f"\tif (p->{_name(rng)} > n)",
        f"\t\tr += fn_{other}_{rng.randrange(FUNCTIONS)}(p, r);",
        f"\tp->{_name(rng)} = r;",
        "\treturn r;",
        "}",
        "",
    ]


def _file(index: int, rng: random.Random, files: int) -> str:
    lines = ["#include <linux/kernel.h>", ""]
    for f in range(FUNCTIONS):
        lines += _function(index, f, rng, files)
        lines += [f"int fn_{index}_{f}(void *p, int n)", "{", "\treturn n + 1;", "}", ""]
    return "\n".join(lines)


def _path(root: Path, index: int) -> Path:
    return root / "drivers" / f"d{index // FILES_PER_FOLDER:04d}" / f"f{index:06d}.c"


def build_repo(path: Path, files: int) -> str:
    """The generated repository (once: kept with its later commits); returns HEAD."""
    if (path / ".git").is_dir():
        return git(path, "rev-parse", "HEAD")
    if path.exists():
        shutil.rmtree(path)
    rng = random.Random(files)
    for i in range(files):
        target = _path(path, i)
        if i % FILES_PER_FOLDER == 0:
            target.parent.mkdir(parents=True, exist_ok=True)
            (target.parent / "Makefile").write_text(f"obj-y += d{i // FILES_PER_FOLDER}.o\n")
        target.write_text(_file(i, rng, files))
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "generated")
    return git(path, "rev-parse", "HEAD")


def commit_change(path: Path, files: int, changed: int, serial: int) -> str:
    """A commit that adds a small function to `changed` files spread over the tree."""
    rng = random.Random(serial)
    for index in rng.sample(range(files), changed):
        target = _path(path, index)
        target.write_text(
            target.read_text() + f"\nint added_{serial}_{index}(int n)\n{{\n\treturn n * 2;\n}}\n"
        )
    git(path, "commit", "-q", "-am", f"change {serial}: {changed} files")
    return git(path, "rev-parse", "HEAD")


def _steps(log: str) -> dict:
    """Seconds of each step from the log (1 s resolution): listing, parse + tokenize, publish."""
    stamps = {}
    for line in log.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0].count(":") == 2:
            stamps.setdefault(parts[1].rstrip(":"), parts[0])
    stages = run_stages(log)
    listed = re.search(r"source_files: \S+: (\d+) files, (\d+) to index \((\d+) already", log)
    return {
        "source_files_at": stamps.get("source_files"),
        "parse_store_tokenize_seconds": stages["parse_store_tokenize_seconds"],
        "index_without_vectors_seconds": stages["index_without_vectors_seconds"],
        "vectors_seconds": stages["vectors_seconds"],
        "listed_files": int(listed[1]) if listed else None,
        "already_parsed": int(listed[3]) if listed else None,
    }


def index_with(checkout: Path, repo: Path, url: str, ref: str, postmaster: int) -> dict:
    """`codeatlas index` of `ref` as `checkout`'s code runs it; its CPU and the server's."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(checkout)
    cwd = Path.cwd()
    os.chdir(checkout)
    load = os.getloadavg()[0]
    server = server_cpu_seconds(postmaster)
    try:
        run = run_index(repo, REPOSITORY, url, "fake", ref, until_published=False, watch=True)
    finally:
        os.chdir(cwd)
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    run["server_cpu_seconds"] = round(server_cpu_seconds(postmaster) - server, 2)
    run["load_average_1m"] = round(load, 2)
    run["checkout"] = str(checkout)
    run.update(_steps(Path(run.pop("log")).read_text(errors="replace")))
    return run


def _summary(runs: list[dict]) -> dict:
    keys = (
        "wall_seconds",
        "published_seconds",
        "cpu_seconds",
        "server_cpu_seconds",
        "parse_store_tokenize_seconds",
        "index_without_vectors_seconds",
    )
    out = {}
    for key in keys:
        values = [r[key] for r in runs if r.get(key) is not None]
        if values:
            out[key] = {"median": round(statistics.median(values), 2), "all": values}
    return out


def _statement_log(server_log: Path, offset: int) -> list[tuple[float, str]]:
    """(ms, statement) of the server log's lines written after `offset`, slowest first."""
    with server_log.open("rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    found = []
    for match in re.finditer(
        r"duration: ([\d.]+) ms  (?:statement|execute [^:]*): (.*?)(?=\n\d{4}-|\Z)", text, re.S
    ):
        found.append((float(match[1]), " ".join(match[2].split())[:400]))
    return sorted(found, reverse=True)


def main() -> None:
    """Build, index, commit and measure; print and write the JSON."""
    parser = argparse.ArgumentParser(prog="python -m lab.commit_scaling")
    parser.add_argument("--files", type=int, action="append", default=[])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--compare", type=Path, action="append", default=[])
    parser.add_argument("--label", default="commit_scaling")
    parser.add_argument("--build-only", action="store_true", help="index the bases, no commits")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--min-ms", type=int, default=20, help="--profile: statements logged")
    args = parser.parse_args()
    sizes = args.files or [5_000, 40_000]
    state = prepare_environment()

    from core import embedded_server
    from core.config import load_settings
    from core.database import connection

    checkouts = [*args.compare, REPO_ROOT]
    result: dict = {"sizes": {}, "checkouts": [str(c) for c in checkouts]}
    out = RESULTS / f"{args.label}.json"
    serial = int(time.time())
    for files in sizes:
        repo = WORK / "commit_scaling" / f"n{files}"
        fresh = not (repo / ".git").is_dir()
        head = build_repo(repo, files)
        url = database(f"bench_commit_scaling_{files}", fresh=fresh)
        postmaster = embedded_server.postmaster(load_settings().state_dir / "postgres")
        assert postmaster is not None, f"no embedded PostgreSQL under {state}"
        entry: dict = {"files": files, "runs": []}
        result["sizes"][str(files)] = entry
        if fresh:
            entry["base"] = index_with(checkouts[0], repo, url, head, postmaster)
            print(f"N={files} base: {entry['base']}", flush=True)
        if args.build_only:
            continue
        if args.profile:
            if files != max(sizes):
                continue
            with connection(url, autocommit=True) as conn:
                conn.execute(
                    f"ALTER DATABASE bench_commit_scaling_{files}"
                    f" SET log_min_duration_statement = {int(args.min_ms)}"
                )
            server_log = state / "postgres" / "log"
            try:
                for checkout, changed in [(c, n) for c in checkouts for n in (0, 1, 50)]:
                    since = server_log.stat().st_size
                    serial += 1
                    ref = commit_change(repo, files, max(changed, 1), serial)
                    run = index_with(checkout, repo, url, ref, postmaster)
                    print(f"== {checkout}, {max(changed, 1)} file(s){' (warm-up)' * (not changed)}")
                    print(json.dumps(run, indent=1))
                    statements = _statement_log(server_log, since)
                    print(
                        f"{len(statements)} statements >= {args.min_ms} ms,"
                        f" {sum(ms for ms, _ in statements) / 1000:.2f} s in all"
                    )
                    for ms, text in statements[:30]:
                        print(f"{ms:10.1f} ms  {text}")
            finally:
                with connection(url, autocommit=True) as conn:
                    conn.execute(
                        f"ALTER DATABASE bench_commit_scaling_{files}"
                        " RESET log_min_duration_statement"
                    )
            continue
        for round_ in range(args.rounds):
            for checkout in checkouts:
                # a first, unmeasured one-file commit by each checkout in turn: the current
                # snapshot is then one it published itself (a snapshot published by main does
                # not record the file size limit, so this branch would list its whole tree once)
                for changed in (0, 1, 50):
                    serial += 1
                    ref = commit_change(repo, files, max(changed, 1), serial)
                    run = index_with(checkout, repo, url, ref, postmaster)
                    run.update({"round": round_, "changed_files": max(changed, 1)})
                    run["warm_up"] = changed == 0
                    entry["runs"].append(run)
                    print(
                        f"N={files} {checkout.name} {changed} file(s)"
                        f"{' (warm-up)' if run['warm_up'] else ''}: wall {run['wall_seconds']}"
                        f" published {run['published_seconds']} cpu {run['cpu_seconds']}"
                        f" server {run['server_cpu_seconds']} load {run['load_average_1m']}",
                        flush=True,
                    )
        entry["summary"] = {
            str(c): {
                str(changed): _summary(
                    [
                        r
                        for r in entry["runs"]
                        if r["checkout"] == str(c)
                        and r["changed_files"] == changed
                        and not r["warm_up"]
                    ]
                )
                for changed in (1, 50)
            }
            for c in checkouts
        }
        result["machine"] = describe(url)
        out.write_text(json.dumps(result, indent=1) + "\n")
    if not args.profile and not args.build_only:
        print(json.dumps(result, indent=1))
    sys.exit(0)


if __name__ == "__main__":
    main()
