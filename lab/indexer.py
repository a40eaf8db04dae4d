"""Index a repository the way a user does: `codeatlas index` in a child process, timed, with its
peak memory (the embedded PostgreSQL server runs in this process's tree, not the child's)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.embedder import environment
from benchmarks.workspace import WORK

_DONE = re.compile(r"indexed \S+: (\d+) files, (\d+) chunks, (\d+) symbols in ([\d.]+)s")


_PUBLISHED = re.compile(r"^\d\d:\d\d:\d\d snapshot: published ", re.MULTILINE)
_PUBLISHED_COUNTS = re.compile(r"snapshot: published \S+: (\d+) chunks, (\d+) symbols")
_LISTED = re.compile(r"source_files: \S+: (\d+) files")


def run_index(
    repo: Path,
    name: str,
    database_url: str,
    provider: str,
    ref: str | None = None,
    *,
    until_published: bool = False,
    watch: bool = False,
) -> dict:
    """`codeatlas index REPO --name NAME [--ref REF]` against `database_url` with the embedder.

    The command's log is written to `logs/` as it runs (`tail -f` follows a long run).
    `until_published` ends the command (SIGTERM: it exits cleanly) once its snapshot is
    published, i.e. searchable, before the vectors: for trees whose vectors would take hours.
    `watch` records when it was published (`published_seconds`) and lets it run to the end.
    """
    env = {**os.environ, "CODEATLAS_DATABASE_URL": database_url, **environment(provider)}
    logs = WORK / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    # a repository name may hold folders (mined/go-test/corpus), a provider a model's folder
    label = f"{name}-{provider}".replace("/", "_")
    path = logs / f"index-{label}-{time.strftime('%H%M%S')}.log"
    published_after = None
    with path.open("wb") as err:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "codeatlas.cli", "index", str(repo), "--name", name]
            + (["--ref", ref] if ref else []),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        # os.wait4, never proc.poll(): that would reap the child and lose its resource usage
        deadline = None
        while True:
            polling = until_published or (watch and published_after is None)
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG if polling else 0)
            if pid:
                break
            time.sleep(0.2)
            if published_after is None and _PUBLISHED.search(path.read_text(errors="replace")):
                published_after = time.monotonic() - started
                if not until_published:
                    continue
                time.sleep(3)  # the step records its success after the log line
                # os.kill, not proc.send_signal: that polls first and would reap a child that
                # ended meanwhile (a small run), which the wait4 above then no longer finds
                os.kill(proc.pid, signal.SIGTERM)
                deadline = time.monotonic() + 120
            elif deadline is not None and time.monotonic() > deadline:  # stuck: end it for good
                proc.kill()
                deadline = None
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
    log = path.read_text(errors="replace")
    if published_after is not None and until_published:
        proc.returncode = 0  # published, then ended by us (SIGTERM: 143, 130 or -15), as asked
    if proc.returncode != 0:
        raise RuntimeError(f"codeatlas index {name} failed ({proc.returncode}):\n{log[-3000:]}")
    match = _DONE.search(log)
    files, chunks, symbols, inner = (
        (int(match[1]), int(match[2]), int(match[3]), float(match[4])) if match else (0, 0, 0, 0.0)
    )
    if not match and (published := _PUBLISHED_COUNTS.search(log)):  # ended after publishing
        listed = _LISTED.search(log)
        files = int(listed[1]) if listed else 0
        chunks, symbols = int(published[1]), int(published[2])
    return {
        "repository": name,
        "provider": provider,
        "files": files,
        "chunks": chunks,
        "symbols": symbols,
        "wall_seconds": round(wall, 2),  # process start, imports, model load, Dagster run
        # process start until its log said published (None: not asked, or ran to the end)
        "published_seconds": None if published_after is None else round(published_after, 2),
        "job_seconds": round(inner, 2),  # the Dagster run as `codeatlas index` reports it
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "log": str(path),
    }
