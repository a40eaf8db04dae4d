"""Scale-out figures measurable on one machine: how long a commit on the primary takes to show on
a real streaming replica, what the lag check adds to a read, and what concurrent requests give
the OpenAI-compatible embedder against a server that answers each request after a fixed delay
(a stand-in for a GPU server's round trip; no GPU here).

    python -m lab.scale_out_bench [--commits 200] [--delay-ms 40] [--rounds 3]

Writes lab/results/scale_out.json and scale_out.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import psycopg

from lab import machine
from lab.embedding_endpoint import EmbeddingEndpoint
from lab.streaming_replica import start_replication

RESULTS = Path(__file__).resolve().parent / "results"
CONCURRENCY = (1, 2, 4, 8)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values) * 1000, 2),
        "p95_ms": round(_percentile(values, 0.95) * 1000, 2),
        "max_ms": round(max(values) * 1000, 2),
    }


def replica_visibility(commits: int) -> dict:
    """Commit a row on the primary, then poll the replica until it shows it; and time the lag
    check the read tools run (replica_lag), caught up."""
    from retrieval.status import replica_lag

    base = Path(tempfile.mkdtemp(prefix="ca-scale-out-"))
    pair = start_replication(base)
    try:
        with (
            psycopg.connect(pair.primary_url, autocommit=True) as primary,
            psycopg.connect(pair.replica_url, autocommit=True) as replica,
        ):
            primary.execute("CREATE TABLE pushes (id int PRIMARY KEY, at timestamptz)")
            pair.wait_replayed()
            delays = []
            for i in range(commits):
                primary.execute("INSERT INTO pushes VALUES (%s, clock_timestamp())", (i,))
                committed = time.perf_counter()
                while not replica.execute("SELECT 1 FROM pushes WHERE id = %s", (i,)).fetchone():
                    time.sleep(0.0005)
                delays.append(time.perf_counter() - committed)
            primary.row_factory = replica.row_factory = psycopg.rows.dict_row  # type: ignore[assignment]
            checks = []
            for _ in range(commits):
                started = time.perf_counter()
                replica_lag(replica, primary)  # type: ignore[arg-type]
                checks.append(time.perf_counter() - started)
    finally:
        pair.stop()
        shutil.rmtree(base, ignore_errors=True)
    return {"commits": commits, "visible_on_replica": _ms(delays), "lag_check": _ms(checks)}


class _DelayedEmbeddings(EmbeddingEndpoint):
    """Answers /v1/embeddings after `delay` seconds per request, many requests at once."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def answering(self, texts: list[str]) -> None:
        time.sleep(self.delay)


SCENARIOS = (  # (name, texts per call, texts per request)
    ("group of 512 (what the pipeline hands over), 96 per request", 512, 96),
    ("group of 512, 32 per request (TEI's default limit)", 512, 32),
    ("64 texts, 96 per request (one request)", 64, 96),
)


def embedding_concurrency(delay_ms: float, rounds: int, calls: int = 4) -> dict:
    """Chunks/s per scenario and concurrency level, the levels interleaved in each round."""
    from indexing.embedding.openai_provider import OpenAIEmbedder

    server = _DelayedEmbeddings(delay_ms / 1000).start()
    rates: dict[tuple[str, int], list[float]] = {}
    try:
        for _ in range(rounds):
            for name, size, batch in SCENARIOS:
                texts = [f"def function_{i}(value):\n    return value * {i}\n" for i in range(size)]
                for level in CONCURRENCY:
                    embedder = OpenAIEmbedder(
                        "stand-in",
                        base_url=server.base_url,
                        dimensions=4,
                        batch_size=batch,
                        concurrency=level,
                    )
                    started = time.perf_counter()
                    for _call in range(calls):
                        embedder.embed_documents(texts)
                    rate = calls * size / (time.perf_counter() - started)
                    rates.setdefault((name, level), []).append(rate)
    finally:
        server.close()
    return {
        "delay_ms": delay_ms,
        "scenarios": [
            {
                "scenario": name,
                "concurrency": level,
                "chunks_per_s": round(max(rates[(name, level)]), 1),
                "rounds_chunks_per_s": [round(x, 1) for x in rates[(name, level)]],
            }
            for name, _size, _batch in SCENARIOS
            for level in CONCURRENCY
        ],
    }


def _markdown(result: dict) -> str:
    info = result["machine"]
    replica = result["replica"]
    embedding = result["embedding"]
    lines = [
        "#### Scale out: replica visibility and concurrent embedding requests",
        "",
        f"`python -m lab.scale_out_bench` on {info.get('date')}, {info.get('nproc')} cores"
        f" ({info.get('cpu_model')}), load average {info.get('load_average')},"
        f" git {str(info.get('git_commit'))[:12]}.",
        "",
        f"A real streaming replica (the embedded wheel's `pg_basebackup -R`, same machine):"
        f" {replica['commits']} one-row commits on the primary, each polled on the replica"
        " until it shows (0.5 ms polls). The lag check is `retrieval.status.replica_lag`, which"
        " every read tool answered from a replica runs (one query on each server).",
        "",
        "| | p50 ms | p95 ms | max ms |",
        "|---|---|---|---|",
    ]
    for name, key in (
        ("commit visible on the replica", "visible_on_replica"),
        ("lag check", "lag_check"),
    ):
        row = replica[key]
        lines.append(f"| {name} | {row['p50_ms']} | {row['p95_ms']} | {row['max_ms']} |")
    lines += [
        "",
        "The OpenAI-compatible embedder against a local server answering every request after"
        f" {embedding['delay_ms']:g} ms whatever its size, many at once (a GPU server's round"
        " trip while the GPU is far from full); levels interleaved, best of the rounds:",
        "",
        "| call | `CODEATLAS_OPENAI_CONCURRENCY` | chunks/s | vs 1 | rounds |",
        "|---|---|---|---|---|",
    ]
    base: dict[str, float] = {}
    for row in embedding["scenarios"]:
        first = base.setdefault(row["scenario"], row["chunks_per_s"])
        lines.append(
            f"| {row['scenario']} | {row['concurrency']} | {row['chunks_per_s']}"
            f" | {row['chunks_per_s'] / first:.2f}x | {row['rounds_chunks_per_s']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    """Measure, print and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=40.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    result = {
        "machine": machine.describe(),
        "replica": replica_visibility(args.commits),
        "embedding": embedding_concurrency(args.delay_ms, args.rounds),
    }
    (RESULTS / "scale_out.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
    markdown = _markdown(result)
    (RESULTS / "scale_out.md").write_text(markdown)
    print(markdown)


if __name__ == "__main__":
    main()
