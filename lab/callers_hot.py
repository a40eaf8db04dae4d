"""`python -m lab.callers_hot [--files N] [--hot N] [--compare CHECKOUT]`: find_callers of
a very hot name at the kernel's scale, without the kernel.

A generated C repository: `--files` files of small functions, `--hot` of them calling `kfree`
three times each (and `mutex_lock` / `mutex_unlock` twice each in a third of them), indexed
by `codeatlas index` with the fake embedder until published, then two more commits that change
one file each (so the repository has three snapshots, as an indexed repository has over time).
Then warm latencies of `find_callers` for the hot names and for cold ones, measured by each
checkout given (`--compare /work/main` measures main's `retrieval/` against this checkout's in
the same run, rounds interleaved, on the same database; with `--own-database` each checkout reads
a copy of it migrated by that checkout's own `sql/migrations/`, so a branch that adds an index is
measured with it and main without it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.workspace import REPO_ROOT, WORK, database, git, prepare_environment
from lab import RESULTS
from lab.indexer import run_index
from lab.machine import describe

REPOSITORY = "hotcalls"
HOT_NAMES = ["kfree", "mutex_lock", "kmalloc"]
COLD_NAMES = ["helper_17", "helper_4242", "helper_9001", "release_slab"]

# measured in a child process per checkout: its `retrieval/` is imported from that checkout
_MEASURE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from core.database import connect
from retrieval.graph import find_callers
from retrieval.principals import ensure_operator
from retrieval.scope import resolve_scope

url, names, runs = sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
conn = connect(url)
schema = {
    "migration": conn.execute("SELECT max(version) AS v FROM schema_migrations").fetchone()["v"],
    "code_edges_indexes": sorted(
        r["indexdef"].split(" USING ")[-1] for r in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'code_edges'").fetchall()),
}
principal = ensure_operator(conn)
scope = resolve_scope(conn, principal, [sys.argv[5]])
conn.commit()
out = {}
for name in names:
    answer = find_callers(conn, scope, name)
    conn.commit()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        find_callers(conn, scope, name)
        conn.commit()
        samples.append((time.perf_counter() - started) * 1000)
    sites = answer[1]
    out[name] = {"ms": samples, "sites": len(sites),
                 "certain": sum(1 for s in sites if s.certainty == "certain"),
                 "more": getattr(sites, "more", None)}
import retrieval
assert retrieval.__file__.startswith(sys.argv[1]), retrieval.__file__
print(json.dumps({"names": out, "schema": schema}))
"""


def _file(index: int, hot: bool, rng: random.Random) -> str:
    """One generated C file: four small functions, the hot calls in the first two."""
    lines = ["#include <linux/slab.h>", "#include <linux/mutex.h>", ""]
    for f in range(4):
        lines.append(f"static int fn_{index}_{f}(struct item *it, int n)")
        lines.append("{")
        lines.append(f"\tint r = helper_{rng.randrange(10_000)}(it, n);")
        if hot and f < 2:
            if index % 3 == 0:
                lines.append("\tmutex_lock(&it->lock);")
            lines.append("\tkfree(it->buf);")
            if f == 0:
                lines.append("\tit->buf = kmalloc(n, GFP_KERNEL);")
                lines.append("\tkfree(it->old);")
            if index % 3 == 0:
                lines.append("\tmutex_unlock(&it->lock);")
        lines.append(f"\tr += helper_{rng.randrange(10_000)}(it, r);")
        lines.append("\treturn r;")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def build_repo(path: Path, files: int, hot: int) -> list[str]:
    """The generated repository and its three commits (oldest first)."""
    if path.exists():
        shutil.rmtree(path)
    rng = random.Random(30)
    hot_files = set(rng.sample(range(files), hot))
    (path / "mm").mkdir(parents=True)
    (path / "mm" / "slab.c").write_text(
        "void kfree(const void *p)\n{\n\trelease_slab(p);\n}\n\n"
        "void *kmalloc(unsigned long n, int flags)\n{\n\treturn alloc_slab(n, flags);\n}\n\n"
        "void mutex_lock(struct mutex *m)\n{\n\tacquire(m);\n}\n"
    )
    for i in range(files):
        folder = path / "drivers" / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:05d}.c").write_text(_file(i, i in hot_files, rng))
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "generated")
    commits = [git(path, "rev-parse", "HEAD")]
    for step in (1, 2):
        changed = path / "drivers" / "d000" / f"f{step:05d}.c"
        changed.write_text(changed.read_text() + f"\nint added_{step}(void)\n{{\n\treturn 0;\n}}\n")
        git(path, "commit", "-q", "-am", f"change {step}")
        commits.append(git(path, "rev-parse", "HEAD"))
    return commits


def measure(checkout: Path, url: str, names: list[str], runs: int) -> dict:
    """Warm latencies (ms per call) of `find_callers` as `checkout`'s retrieval answers them."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _MEASURE,
            str(checkout),
            url,
            json.dumps(names),
            str(runs),
            REPOSITORY,
        ],
        capture_output=True,
        text=True,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    if out.returncode != 0:
        raise RuntimeError(f"measuring {checkout} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# each checkout's copy of the database migrated by that checkout (`--own-database`)
_MIGRATE = r"""
import sys
sys.path.insert(0, sys.argv[1])
from core.database import connect_plain
from core.migrations import available_migrations, migrate

conn = connect_plain(sys.argv[2])
mine = {m.version for m in available_migrations()}
done = {r["version"] for r in conn.execute("SELECT version FROM schema_migrations").fetchall()}
if done - mine:
    sys.exit(f"the database has migrations {sorted(done - mine)} that {sys.argv[1]} lacks:"
             " build it with the oldest checkout compared, then measure with --measure-only")
print(migrate(conn))
"""


def own_copy(checkout: Path, server: str, base: str, copy: str) -> str:
    """URL of a fresh copy of database `base` (CREATE DATABASE … TEMPLATE), migrated by
    `checkout`'s own migrations: what that checkout would run against."""
    import psycopg

    from core.database import with_database

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{base}"')
    url = with_database(server, copy)
    out = subprocess.run(
        [sys.executable, "-c", _MIGRATE, str(checkout), url],
        capture_output=True,
        text=True,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    if out.returncode != 0:
        raise RuntimeError(f"migrating the copy for {checkout} failed:\n{out.stderr[-3000:]}")
    # the new indexes' statistics and visibility map, as autovacuum leaves a table at rest
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE code_edges")
    return url


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def main() -> None:
    """Build (unless --measure-only), index, measure; print and write the JSON."""
    parser = argparse.ArgumentParser(prog="python -m lab.callers_hot")
    parser.add_argument("--files", type=int, default=12_000)
    parser.add_argument("--hot", type=int, default=4_000)
    parser.add_argument("--runs", type=int, default=10, help="warm calls per name per round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per checkout")
    parser.add_argument(
        "--compare",
        type=Path,
        action="append",
        default=[],
        help="another checkout to measure too (e.g. /work/main)",
    )
    parser.add_argument("--measure-only", action="store_true")
    parser.add_argument(
        "--own-database",
        action="store_true",
        help="each checkout reads its own copy of the database, migrated by its own migrations"
        " (the copy is bench_DB_1, _2, … in the order measured)",
    )
    parser.add_argument("--label", default="hot_callers", help="names the result file")
    parser.add_argument("--db", default="hot_callers", help="names the database (bench_DB)")
    args = parser.parse_args()

    prepare_environment()
    from core.config import load_settings  # after the environment points at the work area
    from core.database import server_url, with_database

    repo = WORK / "hotcalls"
    base = f"bench_{args.db}"
    if args.own_database and args.measure_only:
        # as built: this checkout's migrations are applied to its own copy only
        url = with_database(server_url(load_settings()), base)
    else:
        url = database(base, fresh=not args.measure_only)
    result: dict = {"machine": describe(url), "files": args.files, "hot_files": args.hot}
    if not args.measure_only:
        commits = build_repo(repo, args.files, args.hot)
        result["index"] = [
            run_index(repo, REPOSITORY, url, "fake", ref, until_published=True) for ref in commits
        ]
    checkouts = [*args.compare, REPO_ROOT]
    urls = {str(c): url for c in checkouts}
    if args.own_database:
        server = with_database(url, "postgres")
        for n, checkout in enumerate(checkouts, 1):
            urls[str(checkout)] = own_copy(checkout, server, base, f"{base}_{n}")
    schemas: dict[str, dict] = {}
    names = HOT_NAMES + COLD_NAMES
    samples: dict[str, dict[str, list[float]]] = {str(c): {n: [] for n in names} for c in checkouts}
    answers: dict[str, dict] = {}
    started = time.strftime("%H:%M:%S", time.gmtime())
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for checkout in checkouts:
            got = measure(checkout, urls[str(checkout)], names, args.runs)
            schemas[str(checkout)] = got["schema"]
            for name, figures in got["names"].items():
                samples[str(checkout)][name] += figures["ms"]
            answers[str(checkout)] = {
                n: {k: v for k, v in f.items() if k != "ms"} for n, f in got["names"].items()
            }
            loads.append(os.getloadavg()[0])
    result["measured"] = {
        "utc": f"{started}–{time.strftime('%H:%M:%S', time.gmtime())}",
        "load": [round(min(loads), 1), round(max(loads), 1)],
        "databases": {c: {"url": u, **schemas[c]} for c, u in urls.items()},
        "checkouts": {
            c: {
                n: {"p50": _p(s, 0.5), "p95": _p(s, 0.95), **answers[c][n]}
                for n, s in by_name.items()
            }
            for c, by_name in samples.items()
        },
    }
    text = json.dumps(result, indent=2)
    print(text)
    (RESULTS / f"{args.label}.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
