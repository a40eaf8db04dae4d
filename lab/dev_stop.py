"""How long `codeatlas dev` takes to stop on SIGTERM (issue 48: 23 s; Dagster's own shutdown of
its webserver, daemon and code servers took 8-13 s on two busy cores).

    python -m lab.dev_stop [--runs 3]

Each run starts `codeatlas dev` on a fresh state dir (its own embedded server), waits until the
UI answers and five seconds more, sends SIGTERM, and times until `codeatlas dev` exits and until
the last process it started is gone. The test (tests/codeatlas/test_dev.py) checks that it stops
and leaves nothing behind; the time is measured here, not asserted. Results go to
lab/results/dev_stop.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

RESULTS = Path(__file__).resolve().parent / "results" / "dev_stop.json"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _running(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def one_stop(state: Path) -> dict[str, float]:
    """Start `codeatlas dev` in `state`, stop it with SIGTERM; seconds to its exit and to the
    last process it started being gone."""
    port = _free_port()
    env = {
        **os.environ,
        "CODEATLAS_STATE_DIR": str(state),
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
        "CODEATLAS_SERVER_IDLE_SECONDS": "0",
    }
    with (state.parent / f"{state.name}.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "codeatlas.cli", "dev", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    began = time.monotonic()
    while True:
        if proc.poll() is not None or time.monotonic() - began > 300:
            raise RuntimeError(f"codeatlas dev did not serve its UI: {state}.log")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/server_info", timeout=2).is_success:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    started_in = time.monotonic() - began
    time.sleep(5)
    # the keeper of the embedded server is not one of them: it outlives commands by design
    started = {
        p.pid
        for p in psutil.Process(proc.pid).children(recursive=True)
        if "core.embedded_server" not in " ".join(p.cmdline())
    }
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    exited = None
    while True:
        if exited is None and proc.poll() is not None:
            exited = time.monotonic() - sent
        if exited is not None and not _running(started):
            break
        if time.monotonic() - sent > 120:
            raise RuntimeError(f"processes left after 120 s: {_running(started)}")
        time.sleep(0.05)
    return {
        "ui_answered_s": round(started_in, 1),
        "exit_s": round(exited, 2),
        "all_gone_s": round(time.monotonic() - sent, 2),
        "processes": len(started),
    }


def main(argv: list[str] | None = None) -> int:
    """Measure, write the results, print a line per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory(prefix="ca-dev-stop-") as folder:
        for i in range(args.runs):
            load_before = os.getloadavg()[0]
            run = one_stop(Path(folder) / f"state{i}")
            run["load_1min_before"] = round(load_before, 2)
            run["load_1min_after"] = round(os.getloadavg()[0], 2)
            runs.append(run)
            print(json.dumps(run), flush=True)
    summary = {
        "runs": runs,
        "exit_s_median": statistics.median(r["exit_s"] for r in runs),
        "all_gone_s_max": max(r["all_gone_s"] for r in runs),
        "cpus": os.cpu_count(),
    }
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
