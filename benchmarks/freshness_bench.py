"""Push-to-searchable latency: a one-file change pushed to an indexed real repository.

The eval corpus (flask, werkzeug, click, jinja2, itsdangerous from pinned wheels) becomes a bare
"remote" (`file://`, fetched into a mirror like any remote) with a working clone. After the
initial index, each round appends a new function to one file, commits, pushes, POSTs a signed
GitHub webhook to the receiver over real HTTP, evaluates one tick of `webhook_push_sensor`,
executes the requested run in-process (recorded in a Dagster instance), and checks the new
function is found by lexical search. Parts (median over the rounds):

  receive   POST → 202 (verify + store)          pickup   one sensor tick (fetch + plan)
  run_start job launch → RUN_START event          index    source_files + code_index steps
  publish   snapshot step (searchable after it)   vectors  chunk_embeddings step (after publish)

Under `codeatlas dev` two waits come on top and are reported separately: the sensor interval
(minimum_interval_seconds=5, on average half of it) and the run launcher starting a process for
the run (measured here as the time to import the code location in a fresh interpreter).

    python -m benchmarks.freshness_bench [--pushes 5] [--provider local|fake]
"""

import argparse
import json
import os
import platform
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.workspace import WORK, eval_corpus, git, prepare_environment

RESULTS = Path(__file__).resolve().parent / "results" / "freshness.md"
REPOSITORY = "eval/corpus"
SECRET = "freshness-bench-secret"
TARGET_FILE = "flask/helpers.py"
SENSOR_INTERVAL = 5
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def _machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs{mem}, {platform.system()} {platform.release()}"


def _step_times(instance, run_id: str) -> dict[str, float]:
    """Timestamps of run start and each step's start/end, from the run's event log."""
    marks: dict[str, float] = {}
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None:
            continue
        kind = event.event_type_value
        if kind == "PIPELINE_START":
            marks["run_start"] = entry.timestamp
        elif kind in ("STEP_START", "STEP_SUCCESS") and event.step_key:
            edge = "start" if kind == "STEP_START" else "end"
            marks.setdefault(f"{event.step_key}:{edge}", entry.timestamp)
            if edge == "end":
                marks[f"{event.step_key}:{edge}"] = entry.timestamp
    return marks


def _setup(work: Path, provider: str) -> tuple[str, Path, Path]:
    from benchmarks.workspace import database

    prepare_environment(work / "state")
    os.environ["CODEATLAS_EMBEDDING_PROVIDER"] = provider
    url = database("codeatlas_freshness", fresh=True)
    os.environ["CODEATLAS_DATABASE_URL"] = url
    corpus = eval_corpus()
    bare, clone = work / "origin.git", work / "clone"
    for path in (bare, clone, work / "state" / "repos"):
        shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(corpus), str(bare)], check=True)
    subprocess.run(["git", "clone", "-q", str(bare), str(clone)], check=True)
    return url, bare, clone


def _register(url: str, origin: str) -> None:
    from assets import repositories
    from codeatlas.database import transaction
    from orchestration.webhooks import events

    with transaction(url) as conn:
        repo = repositories.register(conn, REPOSITORY, origin, "main")
        events.set_secret(conn, repo.id, "github", SECRET)
        conn.execute(
            "INSERT INTO principals (name, all_repositories) VALUES ('bench', true)"
            " ON CONFLICT DO NOTHING"
        )


def _found(url: str, name: str) -> bool:
    from codeatlas.database import connect
    from retrieval.principals import Principal
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    with connect(url) as conn:
        pid = conn.execute("SELECT id FROM principals WHERE name = 'bench'").fetchone()["id"]
        scope = resolve_scope(conn, Principal(pid, "bench", True), [REPOSITORY])
        hits = search_code(conn, scope, name, mode="lexical", limit=3).hits
    return any(h.symbol and h.symbol.endswith(name) for h in hits)


def _launch_seconds() -> float:
    """What a run launcher pays before a run starts: a fresh process loading the definitions."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import orchestration.definitions"],
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    return time.perf_counter() - started


def run(pushes: int = 5, provider: str = "local", write: bool = True) -> dict:
    """Index the corpus, then time `pushes` one-file pushes to searchable; return the numbers."""
    import httpx
    from dagster import DagsterInstance, build_sensor_context

    from assets.resources import EmbeddingProvider, IndexDatabase
    from orchestration.definitions import build_definitions
    from orchestration.indexing import index_commit
    from orchestration.sensors import webhook_push_sensor
    from orchestration.webhooks.app import build_app
    from orchestration.webhooks.background import serving
    from orchestration.webhooks.providers import sign

    work = WORK / "freshness"
    url, bare, clone = _setup(work, provider)
    origin = bare.as_uri()
    _register(url, origin)
    embeddings = EmbeddingProvider(provider=provider)
    defs = build_definitions(IndexDatabase(url=url), embeddings)
    job = defs.resolve_job_def("index_snapshot")
    rounds: list[dict] = []
    with DagsterInstance.ephemeral() as instance:
        head = git(clone, "rev-parse", "HEAD")
        started = time.perf_counter()
        initial = index_commit(REPOSITORY, head, instance=instance, definitions=defs)
        initial_seconds = time.perf_counter() - started
        cursor = None
        with serving(build_app(url)) as base, httpx.Client(base_url=base, timeout=30) as client:
            for i in range(pushes):
                probe = f"freshness_probe_{i}_{secrets.token_hex(3)}"
                with (clone / TARGET_FILE).open("a") as fh:
                    fh.write(
                        f'\n\ndef {probe}(value):\n    """Benchmark probe {i}."""\n'
                        f"    return value\n"
                    )
                before = git(clone, "rev-parse", "HEAD")
                git(clone, "commit", "-q", "-am", f"probe {i}")
                after = git(clone, "rev-parse", "HEAD")
                t_push = time.perf_counter()
                git(clone, "push", "-q", "origin", "main")
                t_pushed = time.perf_counter()
                body = json.dumps(
                    {
                        "ref": "refs/heads/main",
                        "before": before,
                        "after": after,
                        "repository": {"full_name": REPOSITORY, "clone_url": origin},
                    }
                ).encode()
                answer = client.post(
                    "/webhooks",
                    content=body,
                    headers={
                        "X-GitHub-Event": "push",
                        "X-GitHub-Delivery": f"bench-{after}",
                        "Content-Type": "application/json",
                        "X-Hub-Signature-256": "sha256=" + sign(SECRET, body),
                    },
                )
                t_received = time.perf_counter()
                assert answer.status_code == 202, answer.text
                context = build_sensor_context(
                    instance=instance, cursor=cursor, resources={"index_db": IndexDatabase(url=url)}
                )
                tick = webhook_push_sensor(context)
                cursor = tick.cursor
                [request] = tick.run_requests
                for req in tick.dynamic_partitions_requests:
                    instance.add_dynamic_partitions(req.partitions_def_name, req.partition_keys)
                t_picked = time.perf_counter()
                wall_launch = time.time()
                result = job.execute_in_process(
                    instance=instance,
                    partition_key=request.partition_key,
                    tags={**request.tags, "dagster/run_key": request.run_key},
                )
                t_done = time.perf_counter()
                assert result.success
                marks = _step_times(instance, result.run_id)
                found = _found(url, probe)
                searchable = (t_picked - t_pushed) + (marks["snapshot:end"] - wall_launch)
                rounds.append(
                    {
                        "push": t_pushed - t_push,
                        "receive": t_received - t_pushed,
                        "pickup": t_picked - t_received,
                        "run_start": marks["run_start"] - wall_launch,
                        "index": marks["code_index:end"] - marks["source_files:start"],
                        "publish": marks["snapshot:end"] - marks["snapshot:start"],
                        "vectors": marks["chunk_embeddings:end"] - marks["chunk_embeddings:start"],
                        "run_total": t_done - t_picked,
                        "push_to_searchable": searchable,
                        "found": found,
                    }
                )
    launch = _launch_seconds()
    parts = [
        "push",
        "receive",
        "pickup",
        "run_start",
        "index",
        "publish",
        "vectors",
        "run_total",
        "push_to_searchable",
    ]
    medians = {p: round(statistics.median(r[p] for r in rounds), 3) for p in parts}
    report = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": _machine(),
        "provider": provider,
        "model": embeddings.embedder.model_name,
        "corpus_files": int(initial.get("files", 0)),
        "corpus_chunks": int(initial.get("chunks", 0)),
        "initial_index_seconds": round(initial_seconds, 2),
        "pushes": pushes,
        "all_found": all(r["found"] for r in rounds),
        "median_seconds": medians,
        "daemon_extra_seconds": {
            "sensor_interval_wait_mean": SENSOR_INTERVAL / 2,
            "run_process_launch": round(launch, 2),
        },
        "daemon_estimate_push_to_searchable": round(
            medians["push_to_searchable"] + SENSOR_INTERVAL / 2 + launch, 2
        ),
        "rounds": [
            {k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()} for r in rounds
        ],
    }
    if write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(render(report))
    return report


def render(report: dict) -> str:
    """The results page."""
    m = report["median_seconds"]
    extra = report["daemon_extra_seconds"]
    rows = "\n".join(f"| {part} | {m[part]:.3f} |" for part in m)
    return f"""# Freshness: push to searchable

`python -m benchmarks.freshness_bench --pushes {report["pushes"]} --provider {report["provider"]}`

- date: {report["date"]}
- machine: {report["machine"]}
- corpus: the eval corpus (flask, werkzeug, click, jinja2, itsdangerous) as a git repository,
  {report["corpus_files"]} files, {report["corpus_chunks"]} chunks; served as a `file://` remote
  (bare repository) fetched into a mirror, like any remote
- embedder: provider `{report["provider"]}`, model `{report["model"]}`
- initial index (in-process): {report["initial_index_seconds"]} s
- change per push: one new function appended to `{TARGET_FILE}`; found by lexical search after
  every push: {report["all_found"]}

Median over {report["pushes"]} pushes, seconds:

| part | median s |
|---|---|
{rows}

- receive: signed POST to the receiver over HTTP until its 202 (verify + store).
- pickup: one `webhook_push_sensor` tick: fetch of the mirror, plan, events marked.
- run_start: `execute_in_process` call until the run's RUN_START event.
- index: `source_files` start to `code_index` end (only the changed blob is parsed).
- publish: the `snapshot` step; the new function is searchable when it ends.
- vectors: `chunk_embeddings` (runs after publishing; semantic search of the new chunks).
- push_to_searchable: after `git push` returns, through the end of publishing, in-process.

Under `codeatlas dev` (daemon) two waits add to this: the sensor interval
(5 s minimum interval, {extra["sensor_interval_wait_mean"]} s on average) and the run launcher's
new process ({extra["run_process_launch"]} s to import the definitions here), so expect about
**{report["daemon_estimate_push_to_searchable"]} s** from push to searchable.
"""


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushes", type=int, default=5)
    parser.add_argument("--provider", default="local", choices=("local", "fake", "openai"))
    args = parser.parse_args(argv)
    report = run(args.pushes, args.provider)
    print(json.dumps({k: v for k, v in report.items() if k != "rounds"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
