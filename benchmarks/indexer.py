"""Index a repository the way a user does: `codeatlas index` in a child process, timed, with its
peak memory (the embedded PostgreSQL server runs in this process's tree, not the child's)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.embedder import environment
from benchmarks.workspace import WORK

_DONE = re.compile(r"indexed \S+: (\d+) files, (\d+) chunks, (\d+) symbols in ([\d.]+)s")


def run_index(
    repo: Path, name: str, database_url: str, provider: str, ref: str | None = None
) -> dict:
    """`codeatlas index REPO --name NAME [--ref REF]` against `database_url` with the embedder."""
    env = {**os.environ, "CODEATLAS_DATABASE_URL": database_url, **environment(provider)}
    with tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "codeatlas.cli", "index", str(repo), "--name", name]
            + (["--ref", ref] if ref else []),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        err.seek(0)
        log = err.read().decode(errors="replace")
    logs = WORK / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    label = name.replace("/", "_")  # a repository name may hold folders (mined/go-test/corpus)
    (logs / f"index-{label}-{provider}-{time.strftime('%H%M%S')}.log").write_text(log)
    if proc.returncode != 0:
        raise RuntimeError(f"codeatlas index {name} failed ({proc.returncode}):\n{log[-3000:]}")
    match = _DONE.search(log)
    files, chunks, symbols, inner = (
        (int(match[1]), int(match[2]), int(match[3]), float(match[4])) if match else (0, 0, 0, 0.0)
    )
    return {
        "repository": name,
        "provider": provider,
        "files": files,
        "chunks": chunks,
        "symbols": symbols,
        "wall_seconds": round(wall, 2),  # process start, imports, model load, Dagster run
        "job_seconds": round(inner, 2),  # the Dagster run as `codeatlas index` reports it
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
    }
