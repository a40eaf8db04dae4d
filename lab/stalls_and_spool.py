"""Issue 47's figures for the resident query process and the webhook spool.

Resident: `codeatlas search` wall time (a new process each, as a user types it) with nobody else
connected, then while one client holds the socket mid-request and trickles a byte every 0.2 s,
and how long the process takes to bind its socket again after the file was replaced by a
regular file. Spool: pushes posted while PostgreSQL is stopped (answer and time per post), and
the time from PostgreSQL accepting connections again to every spooled push being stored.

    python -m lab.stalls_and_spool --searches 5 --pushes 20 \
        --out lab/results/stalls_and_spool.json

Everything runs in throwaway state dirs (embedded PostgreSQL, fake embedder).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from lab.machine import describe, summary
from lab.soak import Postgres

SECRET = "bench-secret"


def _wait(condition: Any, seconds: float) -> float:
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > seconds:
            raise RuntimeError(f"not within {seconds} s")
        time.sleep(0.01)
    return time.monotonic() - began


def _is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(path.lstat().st_mode)
    except OSError:
        return False


def resident(searches: int) -> dict[str, Any]:
    """Search times alone and beside a stalled client; the socket's repair time."""
    from core import embedded_server, query_socket

    work = Path(tempfile.mkdtemp(prefix="ca-stall-"))
    state = work / "state"
    env = dict(os.environ)  # this user's environment without its codeatlas settings
    for name in [k for k in env if k.startswith(("CODEATLAS_", "DAGSTER_"))]:
        del env[name]
    env.update(
        CODEATLAS_STATE_DIR=str(state),
        CODEATLAS_EMBEDDING_PROVIDER="fake",
        CODEATLAS_SERVER_IDLE_SECONDS="600",
    )
    repo = work / "repo"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "refunds.py").write_text(
        "def approve_refund(order):\n    '''Approve a refund of an order.'''\n"
        "    return check_refund(order)\n\n\ndef check_refund(order):\n    return order.total > 0\n"
    )
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=b@x", "-c", "user.name=b",
                    "commit", "-qm", "x"], check=True)  # fmt: skip
    cli = [sys.executable, "-m", "codeatlas.cli"]
    search = [*cli, "search", "refund approval", "--repo", "shop", "--json"]

    def timed() -> float:
        began = time.monotonic()
        subprocess.run(search, env=env, check=True, capture_output=True, timeout=300)
        return time.monotonic() - began

    try:
        subprocess.run([*cli, "index", str(repo), "--name", "shop"], env=env, check=True,
                       capture_output=True, timeout=600)  # fmt: skip
        timed()  # starts the resident process
        path = query_socket.socket_path(state)
        _wait(lambda: query_socket.resident_pid(state) and _is_socket(path), 120)
        alone = [timed() for _ in range(searches)]

        stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        finished = threading.Event()
        beside: list[float] = []
        for _ in range(searches):
            stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            stalled.connect(os.fspath(path))
            stalled.sendall(b'{"config": ')
            finished.clear()

            def trickle(held: socket.socket = stalled) -> None:
                while not finished.wait(0.2):
                    try:
                        held.sendall(b" ")
                    except OSError:
                        return

            thread = threading.Thread(target=trickle)
            thread.start()
            beside.append(timed())
            finished.set()
            thread.join()
            stalled.close()

        path.unlink()
        path.write_text("not a socket\n")
        repaired = _wait(lambda: _is_socket(path), 30)
        after_repair = timed()
    finally:
        with contextlib.suppress(Exception):
            query_socket.stop(state)
            embedded_server.stop(state / "postgres")
        shutil.rmtree(work, ignore_errors=True)
    return {
        "search_seconds_alone": [round(t, 3) for t in alone],
        "search_seconds_beside_a_stalled_client": [round(t, 3) for t in beside],
        "median_alone": round(statistics.median(alone), 3),
        "median_beside_a_stalled_client": round(statistics.median(beside), 3),
        "socket_rebound_seconds": round(repaired, 3),
        "search_after_the_repair_seconds": round(after_repair, 3),
    }


def spool(pushes: int) -> dict[str, Any]:
    """Pushes posted while PostgreSQL is stopped, and how soon they are stored after it is back."""
    import psycopg

    from core.database import connect_plain, create_database_if_missing, transaction, with_database
    from core.migrations import migrate
    from indexing import repositories
    from orchestration.webhooks import events
    from orchestration.webhooks.app import build_app
    from orchestration.webhooks.background import serving
    from orchestration.webhooks.providers import sign
    from orchestration.webhooks.spool import DeliverySpool

    work = Path(tempfile.mkdtemp(prefix="ca-spool-"))
    pg = Postgres(work)
    try:
        create_database_if_missing(pg.url, "codeatlas")
        url = with_database(pg.url, "codeatlas")
        conn = connect_plain(url)
        migrate(conn)
        conn.close()
        with transaction(url) as tx:
            origin = "https://github.com/acme/shop.git"
            repo = repositories.register(tx, "acme/shop", origin, "main")
            events.set_secret(tx, repo.id, "github", SECRET, None)
        kept = DeliverySpool(work / "spool")
        answers: list[int] = []
        post_seconds: list[float] = []
        with serving(build_app(url, spool=kept)) as base, httpx.Client(timeout=30) as http:
            pg.stop()
            for i in range(pushes):
                body = json.dumps({
                    "ref": "refs/heads/main", "before": "0" * 40, "after": f"{i + 1:040x}",
                    "repository": {"full_name": "acme/shop",
                                   "clone_url": "https://github.com/acme/shop.git"},
                }).encode()  # fmt: skip
                headers = {
                    "X-GitHub-Event": "push",
                    "X-GitHub-Delivery": f"bench-{i}",
                    "X-Hub-Signature-256": "sha256=" + sign(SECRET, body),
                    "Content-Type": "application/json",
                }
                began = time.monotonic()
                answer = http.post(base + "/webhooks", content=body, headers=headers)
                post_seconds.append(time.monotonic() - began)
                answers.append(answer.status_code)
            health = http.get(base + "/healthz").json()
            pg.start()
            back = time.monotonic()
            _wait(lambda: kept.count() == 0, 60)
            drained = time.monotonic() - back
        with psycopg.connect(url) as check:
            rows = check.execute("SELECT count(*) FROM webhook_events").fetchone()[0]
    finally:
        pg.close()
    return {
        "pushes_while_down": pushes,
        "answers": {str(code): answers.count(code) for code in sorted(set(answers))},
        "post_seconds_median": round(statistics.median(post_seconds), 4),
        "post_seconds_max": round(max(post_seconds), 4),
        "healthz_while_down": health,
        "stored_seconds_after_the_database_is_back": round(drained, 3),
        "stored_events": rows,
    }


def main() -> None:
    """Command line: measure and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=5)
    parser.add_argument("--pushes", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = {
        "resident": resident(args.searches),
        "spool": spool(args.pushes),
        "machine": describe(),
    }
    text = json.dumps(report, indent=2, default=str)
    if args.out is not None:
        args.out.write_text(text + "\n")
    print(text)
    print(summary(report["machine"]), file=sys.stderr)


if __name__ == "__main__":
    main()
