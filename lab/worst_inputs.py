"""Worst inputs: pathological texts of the largest size the tools take (65,536 characters), of
several shapes, sent to `locate` and `search_code` of a real `codeatlas serve-mcp --http`
(loopback only), each shape four at once, next to a normal bug report, while another principal
searches.

What it reports, per tool and shape: the four calls' wall times (and their answers: ok, a tool
error, a timeout), the server's peak RSS during them and its RSS once they are answered (is the
memory handed back), and the other principal's search latency meanwhile against its latency
when the server is idle.

    nice -n 10 python -m lab.worst_inputs --out lab/results/worst_inputs.json
    # the tree before the fix, extracted from git, for the "before" figures:
    git archive 3beb8bb | tar -x -C /tmp/before
    nice -n 10 python -m lab.worst_inputs --tree /tmp/before --shapes dotted,parens \\
        --at-once 1 --timeout 120 --out lab/results/worst_inputs_before.json

Everything runs on a throwaway embedded PostgreSQL of its own, over a copy of this project's
own `retrieval/`, `core/` and `mcp_app/` folders indexed with the fake embedder.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from benchmarks.workspace import REPO_ROOT
from lab.machine import describe, summary
from lab.soak import HEADERS, Postgres, _environment, _free_port, _parse, _rpc

REPOSITORY = "atlas"
SIZE = 65_536
# the folders indexed: real code of a few thousand lines, enough for the lookups to find things
INDEXED = ("retrieval", "core", "mcp_app")
NORMAL_REPORT = """locate ranks a test file above the module the traceback names

When I paste a report that quotes a frame, the test file comes first:

Traceback (most recent call last):
  File "/home/u/src/codeatlas/retrieval/locate.py", line 201, in locate
    path_rows, symbol_rows, (terms, text_rows), *semantic = run_concurrently(
  File "/home/u/src/codeatlas/retrieval/concurrency.py", line 44, in run_concurrently
    results = [first(conn)]
  File "/home/u/src/codeatlas/retrieval/lexical.py", line 88, in lexical_candidates
    raise ValueError("no terms")
ValueError: no terms

I expected `retrieval/locate.py` and `report_terms` first; `read_issue` looks right.
"""


def _shapes() -> dict[str, str]:
    """The pathological texts, each exactly SIZE characters, and the normal report."""
    rng = random.Random(47)
    words = " ".join(f"ident_{i}_{rng.randrange(10**6)}" for i in range(SIZE // 8))
    frames = "".join(
        f'  File "/srv/app/pkg{i % 97}/module_{i}.py", line {i}, in handler_{i}\n'
        for i in range(SIZE // 40)
    )
    paths = " ".join(f"src/dir{i}/file_{i}.py:{i}" for i in range(SIZE // 16))
    shapes = {
        "normal": NORMAL_REPORT,
        "dotted": "a." * (SIZE // 2),  # one dotted name of 32,768 parts
        "parens": "(" * SIZE,
        "one_token": "x" * SIZE,
        "identifiers": words,
        "frames": frames,
        "paths": paths,
        "backticks": "`" * SIZE,
        "unicode": "é漢字🙂 " * (SIZE // 5),
        # a lone surrogate in every word: refused by validation (JSON carries it as \\ud800)
        "surrogates": "word\ud800 " * (SIZE // 6),
    }
    return {name: text[:SIZE] for name, text in shapes.items()}


def _prepare(pg: Postgres, work: Path, tree: Path) -> tuple[str, dict[str, str], dict[str, str]]:
    """The index database with this project's code indexed, and a token per principal."""
    from core.database import connect_plain, create_database_if_missing, with_database
    from core.migrations import migrate

    create_database_if_missing(pg.url, "codeatlas")
    url = with_database(pg.url, "codeatlas")
    conn = connect_plain(url)
    migrate(conn)
    conn.close()
    repo = work / "repo"
    for folder in INDEXED:
        shutil.copytree(REPO_ROOT / folder, repo / folder, ignore=shutil.ignore_patterns("*.pyc"))
    git = ["git", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    commit = ["-c", "user.email=w@x", "-c", "user.name=w", "commit", "-qm", "x"]
    for args in (["add", "-A"], commit):
        subprocess.run(git + args, check=True)
    env = _environment(url, work / "state")
    env["PYTHONPATH"] = str(tree)
    cli = [sys.executable, "-m", "codeatlas.cli"]
    run = {"check": True, "env": env, "capture_output": True, "text": True, "cwd": tree}
    subprocess.run(cli + ["index", str(repo), "--name", REPOSITORY], **run)
    tokens = {}
    for principal in ("hostile", "other"):
        subprocess.run(cli + ["principal", "create", principal], **run)
        made = subprocess.run(
            cli + ["token", "create", "--principal", principal, "--grant", REPOSITORY], **run
        )
        tokens[principal] = next(w for w in made.stdout.split() if w.startswith("cat_"))
    return url, env, tokens


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class RssWatch:
    """The server's peak RSS while a batch runs (sampled every 20 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss_mib(self.pid))
            time.sleep(0.02)

    def __enter__(self) -> RssWatch:
        self.peak = _rss_mib(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _call(endpoint: str, token: str, tool: str, args: dict[str, Any], timeout: float) -> dict:
    """One tool call: seconds taken and the kind of answer."""
    body = json.dumps(_rpc("tools/call", {"name": tool, "arguments": args}, 1)).encode(
        "utf-8", "surrogatepass"
    )
    headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    started = time.perf_counter()
    try:
        response = httpx.post(endpoint, content=body, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        return {"seconds": round(time.perf_counter() - started, 3), "answer": "timeout"}
    seconds = round(time.perf_counter() - started, 3)
    if response.status_code != 200:
        return {"seconds": seconds, "answer": f"HTTP {response.status_code}"}
    answer = _parse(response)
    if "error" in answer:
        return {"seconds": seconds, "answer": f"JSON-RPC error {answer['error'].get('code')}"}
    result = answer.get("result", {})
    if result.get("isError"):
        text = result.get("content", [{}])[0].get("text", "")
        return {"seconds": seconds, "answer": "tool error", "message": text[:160]}
    return {"seconds": seconds, "answer": "ok"}


class Bystander:
    """The other principal searching in a loop: its latencies while a batch runs."""

    QUERY = {"query": "where are concurrent lookups run", "limit": 5}

    def __init__(self, endpoint: str, token: str) -> None:
        self.endpoint, self.token = endpoint, token
        self.seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            call = _call(self.endpoint, self.token, "search_code", self.QUERY, 300)
            self.seconds.append(call["seconds"])

    def __enter__(self) -> Bystander:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _latency(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"calls": 0}
    ordered = sorted(seconds)
    return {
        "calls": len(seconds),
        "median": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "max": round(ordered[-1], 3),
    }


def run(
    tree: Path, shapes: list[str], at_once: int, timeout: float, out: Path | None
) -> dict[str, Any]:
    """Run the benchmark; returns (and writes to `out` and its .md) the report."""
    work = Path(tempfile.mkdtemp(prefix="ca-worst-"))
    pg = Postgres(work)
    server = None
    try:
        url, env, tokens = _prepare(pg, work, tree)
        env["CODEATLAS_MCP_MAX_CONCURRENT"] = str(at_once + 1)
        port = _free_port()
        command = [sys.executable, "-m", "codeatlas.cli", "serve-mcp", "--http",
                   f"127.0.0.1:{port}", "--stateless"]  # fmt: skip
        with (work / "server.log").open("ab") as log:
            server = subprocess.Popen(command, env=env, cwd=tree, stdout=log, stderr=log)
        endpoint = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)
        texts = _shapes()
        # warm the server (imports, pools, the ranker) before anything is measured
        for tool, key in (("locate", "issue_text"), ("search_code", "query")):
            _call(endpoint, tokens["other"], tool, {key: texts["normal"]}, timeout)
        with Bystander(endpoint, tokens["other"]) as idle:
            time.sleep(5)
        rows = []
        for tool, key in (("locate", "issue_text"), ("search_code", "query")):
            for shape in shapes:
                before = _rss_mib(server.pid)
                batch = [(tool, {key: texts[shape]})] * at_once
                with (
                    ThreadPoolExecutor(at_once) as threads,
                    RssWatch(server.pid) as rss,
                    Bystander(endpoint, tokens["other"]) as bystander,
                ):
                    calls = list(
                        threads.map(
                            lambda call: _call(endpoint, tokens["hostile"], *call, timeout), batch
                        )
                    )
                time.sleep(0.5)  # the server's own clean-up after the answers
                row = {
                    "tool": tool,
                    "shape": shape,
                    "chars": len(texts[shape]),
                    "at_once": at_once,
                    "seconds": [c["seconds"] for c in calls],
                    "answers": sorted({c["answer"] for c in calls}),
                    "rss_before_mib": round(before, 1),
                    "rss_peak_mib": round(rss.peak, 1),
                    "rss_after_mib": round(_rss_mib(server.pid), 1),
                    "other_principal": _latency(bystander.seconds),
                }
                messages = sorted({c["message"] for c in calls if "message" in c})
                if messages:
                    row["messages"] = messages
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
        report = {
            "tree": str(tree),
            "size_chars": SIZE,
            "at_once": at_once,
            "client_timeout_seconds": timeout,
            "indexed": list(INDEXED),
            "other_principal_idle": _latency(idle.seconds),
            "rows": rows,
            "server_log_tracebacks": (work / "server.log")
            .read_text(errors="replace")
            .count("Traceback"),
            "machine": describe(),
        }
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        pg.close()
        shutil.rmtree(work, ignore_errors=True)
    if out is not None:
        out.write_text(json.dumps(report, indent=2) + "\n")
        out.with_suffix(".md").write_text(markdown(report))
    return report


def markdown(report: dict[str, Any]) -> str:
    """The report as a short table."""
    idle = report["other_principal_idle"]
    lines = [
        "# Worst inputs: pathological 64 KiB texts through locate and search_code",
        "",
        f"`{report['tree']}`, {report['at_once']} calls at once per shape, "
        f"{report['size_chars']:,} characters each (the normal report: a real-sized one), "
        f"client timeout {report['client_timeout_seconds']:g} s; index: this project's "
        f"{', '.join(report['indexed'])} folders, fake embedder.",
        "",
        f"Machine: {summary(report['machine'])} (commit {report['machine']['git_commit']}, "
        f"{report['machine']['date']}).",
        "",
        f"The other principal's search when idle: median {idle.get('median')} s, "
        f"p95 {idle.get('p95')} s ({idle.get('calls')} calls).",
        "",
        "| tool | shape | seconds per call | answers | RSS before / peak / after (MiB) "
        "| other principal median / max (s) |",
        "|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        other = row["other_principal"]
        lines.append(
            f"| {row['tool']} | {row['shape']} | {', '.join(f'{s:.2f}' for s in row['seconds'])}"
            f" | {', '.join(row['answers'])} | {row['rss_before_mib']:.0f} / "
            f"{row['rss_peak_mib']:.0f} / {row['rss_after_mib']:.0f} | "
            f"{other.get('median', '-')} / {other.get('max', '-')} |"
        )
    lines += ["", f"Tracebacks in the server's log: {report['server_log_tracebacks']}.", ""]
    return "\n".join(lines)


def main() -> None:
    """Command line: run the benchmark and print its report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=REPO_ROOT, help="the codeatlas tree to serve")
    parser.add_argument("--shapes", default=",".join(_shapes()), help="comma-separated shapes")
    parser.add_argument("--at-once", type=int, default=4, help="calls at once per shape")
    parser.add_argument("--timeout", type=float, default=300, help="client timeout per call (s)")
    parser.add_argument("--out", type=Path, help="write the report as JSON here (and .md)")
    args = parser.parse_args()
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = set(shapes) - set(_shapes())
    if unknown:
        parser.error(f"unknown shapes: {', '.join(sorted(unknown))}")
    report = run(args.tree.resolve(), shapes, args.at_once, args.timeout, args.out)
    print(markdown(report))


if __name__ == "__main__":
    main()
