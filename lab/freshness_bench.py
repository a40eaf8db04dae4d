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

    python -m lab.freshness_bench [--pushes 5] [--provider local|fake]

`--daemon --corpus kernel-sample --files 50` pushes to the Linux kernel's sample instead
(lab/kernel: `kernel/`, `mm/`, `fs/ext4/`), each push changing that many C files.
"""

import argparse
import contextlib
import json
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.workspace import WORK, eval_corpus, git, prepare_environment
from lab import machine

RESULTS = Path(__file__).resolve().parent / "results" / "freshness.md"
RESULTS_DAEMON = RESULTS.with_name("freshness_daemon.json")  # + _<label>
REPOSITORY = "eval/corpus"
SECRET = "freshness-bench-secret"
TARGET_FILE = "flask/helpers.py"
SENSOR_INTERVAL = 5  # the sensor daemon's fixed loop: a push waits for the next pass
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


@dataclass(frozen=True)
class Corpus:
    """A repository the daemon benchmark pushes to, and how a push changes its files."""

    repository: str
    path: Callable[[], Path]  # its git repository (built on first use)
    targets: Callable[[Path, int], list[str]]  # the clone, n -> n files a push changes
    probe: Callable[[str], str]  # a new function's name -> its text, appended to a file
    # a benchmark database on the benchmarks' own server that holds the corpus indexed at its
    # head (`python -m lab.kernel --full`), used as it is instead of a fresh index
    index: str | None = None


def _kernel_sample() -> Path:
    from lab.kernel.corpus import kernel_repo

    return kernel_repo(sample=True)


def _kernel_tree() -> Path:
    from lab.kernel.corpus import kernel_repo

    return kernel_repo(sample=False)


def _kernel_targets(clone: Path, n: int) -> list[str]:
    """kernel/fork.c, then the first C files of kernel/ (as the kernel benchmark's commits)."""
    from lab.kernel.corpus import FIFTY_FROM, ONE_FILE

    rest = sorted(p.relative_to(clone).as_posix() for p in (clone / FIFTY_FROM).rglob("*.c"))
    return [ONE_FILE, *[p for p in rest if p != ONE_FILE]][:n]


CORPORA = {
    "eval": Corpus(
        REPOSITORY,
        eval_corpus,
        lambda _clone, n: [TARGET_FILE][:n],
        lambda name: f"\n\ndef {name}(value):\n    return value\n",
    ),
    "kernel-sample": Corpus(
        "linux",
        _kernel_sample,
        _kernel_targets,
        lambda name: f"\n\nint {name}(void)\n{{\n\treturn 0;\n}}\n",
    ),
    # the whole tree, on the index of `lab.kernel --full --label whole8` (`--index` names
    # another)
    "kernel": Corpus(
        "linux",
        _kernel_tree,
        _kernel_targets,
        lambda name: f"\n\nint {name}(void)\n{{\n\treturn 0;\n}}\n",
        index="bench_kernel_whole8",
    ),
}


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
        elif kind == "PIPELINE_STARTING":  # dequeued: the run launcher is being called
            marks["run_launched"] = entry.timestamp
        elif kind in ("STEP_START", "STEP_SUCCESS") and event.step_key:
            edge = "start" if kind == "STEP_START" else "end"
            marks.setdefault(f"{event.step_key}:{edge}", entry.timestamp)
            if edge == "end":
                marks[f"{event.step_key}:{edge}"] = entry.timestamp
    return marks


def _tick_started(instance, run_id: str) -> float | None:
    """When the `webhook_push_sensor` tick that requested the run began (None: not found)."""
    from orchestration.runtime.dagster_internals import sensor_tick_started

    return sensor_tick_started(instance, "webhook_push_sensor", run_id)


def _setup(
    work: Path, provider: str, fresh: bool = True, corpus: Corpus = CORPORA["eval"]
) -> tuple[str, Path, Path]:
    from benchmarks.workspace import database

    prepare_environment(None if corpus.index else work / "state")
    os.environ["CODEATLAS_EMBEDDING_PROVIDER"] = provider
    url = database(corpus.index or "codeatlas_freshness", fresh=fresh and not corpus.index)
    os.environ["CODEATLAS_DATABASE_URL"] = url
    source = corpus.path()
    bare, clone = work / "origin.git", work / "clone"
    for path in (bare, clone, work / "state" / "repos"):
        shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)
    subprocess.run(["git", "clone", "-q", str(bare), str(clone)], check=True)
    return url, bare, clone


def _register(url: str, origin: str, repository: str = REPOSITORY) -> None:
    from core.database import transaction
    from indexing import repositories
    from orchestration.webhooks import events

    with transaction(url) as conn:
        repo = repositories.register(conn, repository, origin, "main")
        events.set_secret(conn, repo.id, "github", SECRET, None)
        conn.execute(
            "INSERT INTO principals (name, all_repositories) VALUES ('bench', true)"
            " ON CONFLICT DO NOTHING"
        )


def _found(url: str, name: str, repository: str = REPOSITORY) -> bool:
    from core.database import connect
    from retrieval.principals import Principal
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    with connect(url) as conn:
        pid = conn.execute("SELECT id FROM principals WHERE name = 'bench'").fetchone()["id"]
        scope = resolve_scope(conn, Principal(pid, "bench", True), [repository])
        # hybrid without a query embedder: lexical + the exact-symbol hit an agent would get
        hits = search_code(conn, scope, name, mode="hybrid", limit=5).hits
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


def run(
    pushes: int = 5, provider: str = "local", write: bool = True, reuse_db: bool = False
) -> dict:
    """Index the corpus, then time `pushes` one-file pushes to searchable; return the numbers."""
    import httpx
    from dagster import DagsterInstance, build_sensor_context

    from assets.resources import EmbeddingProvider, IndexDatabase
    from core.config import load_settings
    from orchestration.definitions import build_definitions
    from orchestration.index_run import index_commit
    from orchestration.sensors import webhook_push_sensor
    from orchestration.webhooks.app import build_app
    from orchestration.webhooks.background import serving

    work = WORK / "freshness"
    url, bare, clone = _setup(work, provider, fresh=not reuse_db)
    origin = bare.as_uri()
    _register(url, origin)
    embeddings = EmbeddingProvider(provider=provider)
    defs = build_definitions(IndexDatabase(url=url), embeddings)
    job = defs.resolve_job_def("index_snapshot")
    rounds: list[dict] = []
    with DagsterInstance.ephemeral() as instance:
        head = git(clone, "rev-parse", "HEAD")
        started = time.perf_counter()
        initial = index_commit(
            load_settings(), REPOSITORY, head, instance=instance, definitions=defs
        )
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
                after, t_push, t_pushed, t_received = _push_and_notify(
                    client, clone, origin, i, time.perf_counter
                )
                with build_sensor_context(
                    instance=instance, cursor=cursor, resources={"index_db": IndexDatabase(url=url)}
                ) as context:
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
        "machine": machine.summary(),
        "provider": provider,
        "model": embeddings.embedder.model_name,
        "corpus_files": int(initial.get("files", 0)),
        "corpus_chunks": int(initial.get("chunks", 0)),
        "initial_index_seconds": round(initial_seconds, 2),
        "reused_db": reuse_db,
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
        RESULTS.with_name("freshness_inprocess.json").write_text(json.dumps(report, indent=2))
        write_page()
    return report


def _push_and_notify(
    client, clone: Path, origin: str, i: int, clock, repository: str = REPOSITORY
) -> tuple:
    """Commit, push and POST the signed GitHub webhook; (sha, t_push, t_pushed, t_received)."""
    from orchestration.webhooks.providers import sign

    before = git(clone, "rev-parse", "HEAD")
    git(clone, "commit", "-q", "-am", f"probe {i}")
    after = git(clone, "rev-parse", "HEAD")
    t_push = clock()
    git(clone, "push", "-q", "origin", "main")
    t_pushed = clock()
    body = json.dumps(
        {
            "ref": "refs/heads/main",
            "before": before,
            "after": after,
            "repository": {"full_name": repository, "clone_url": origin},
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
    t_received = clock()
    assert answer.status_code == 202, answer.text
    return after, t_push, t_pushed, t_received


def _wait(predicate, timeout: float, what: str, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not happen within {timeout:.0f}s")
        time.sleep(every)


def _as_embedded(url: str, settings, repository: str, head: str) -> dict:
    """An index built without its vectors (`lab.kernel --until-published`: 2 M chunks
    take hours even with the fake embedder) is marked as having them all, as an index whose
    vectors are complete is, so each push's vectors step embeds the push's own files only."""
    from core.database import transaction
    from indexing import repositories, snapshots
    from indexing.embedding.factory import make_embedder

    model = make_embedder(settings).model_name
    with transaction(url) as conn:
        repo = repositories.get(conn, repository)
        snapshot = snapshots.id_of(conn, repo.id, head)
        assert snapshot is not None, f"{repository}@{head} is not indexed in {url}"
        snapshots.mark_vectors_complete(conn, snapshot, model)
        return snapshots.stats_of(conn, repository, head)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _current_commit(url: str, repository: str = REPOSITORY) -> str | None:
    from core.database import connect

    with connect(url) as conn:
        row = conn.execute(
            "SELECT s.commit_sha FROM repositories r JOIN snapshots s"
            " ON s.id = r.current_snapshot_id WHERE r.name = %s",
            (repository,),
        ).fetchone()
    return row["commit_sha"] if row else None


def run_daemon(
    pushes: int = 5,
    provider: str = "local",
    write: bool = True,
    reuse_db: bool = False,
    launcher: str = "warm",
    label: str | None = None,
    corpus: str = "eval",
    files: int = 1,
    dagster_yaml: Path | None = None,
    direct: bool = False,
    index: str | None = None,
) -> dict:
    """The same pushes through a real `dagster-daemon` (sensor ticks, run queue, run launcher).

    `direct` also starts a Dagster webserver and alternates the pushes between two receivers:
    one that leaves the push to the sensor and one that launches its run at once through the
    webserver (orchestration/webhooks/launch.py); each round records its `mode`.

    `reuse_db` keeps the last run's index (the initial index is then only a re-publish);
    `launcher="default"` replaces the project's warm run launcher by Dagster's default one (a new
    interpreter per run) to compare them; `label` names the result file and column; `corpus`
    (CORPORA) is the repository pushed to and `files` how many of its files each push changes;
    `dagster_yaml` replaces the project's instance settings by that file's (an earlier
    dagster.yaml, measured against the current one in the same session); `index` names the
    benchmark database a corpus indexed ahead is read from (the kernel's: another label).
    """
    import httpx
    import psycopg
    from dagster import DagsterInstance, RunsFilter

    from core.config import load_settings
    from core.database import server_url
    from orchestration.index_run import index_commit
    from orchestration.instance import prepare_dagster_home
    from orchestration.webhooks.app import build_app
    from orchestration.webhooks.background import serving
    from orchestration.webhooks.launch import LAUNCHED_BY_TAG, DirectLauncher, Webserver

    work = WORK / "freshness-daemon"
    source = CORPORA[corpus]
    if index is not None:
        if source.index is None:
            raise SystemExit(f"--index: the {corpus} corpus is indexed by the run, not ahead")
        source = replace(source, index=index)
    repository = source.repository
    url, bare, clone = _setup(work, provider, fresh=not reuse_db, corpus=source)
    origin = bare.as_uri()
    _register(url, origin, repository)
    targets = source.targets(clone, files)
    assert len(targets) == files, f"the {corpus} corpus has {len(targets)} files to change"
    settings = load_settings()
    with psycopg.connect(server_url(settings), autocommit=True) as conn:
        conn.execute('DROP DATABASE IF EXISTS "dagster" WITH (FORCE)')
    shutil.rmtree(work / "state" / "dagster", ignore_errors=True)
    home = prepare_dagster_home(settings)
    config = home / "dagster.yaml"
    if dagster_yaml is not None:
        config.write_text(dagster_yaml.read_text())
    text = config.read_text()
    if launcher == "default" and "class: WarmRunLauncher" in text:
        start = text.index("run_launcher:\n")
        end = text.index("\n", text.index("class: WarmRunLauncher", start)) + 1
        config.write_text(text[:start] + text[end:])
    instance = DagsterInstance.get()
    root = Path(__file__).resolve().parent.parent
    started = time.perf_counter()
    head = git(clone, "rev-parse", "HEAD")
    if source.index:
        initial = _as_embedded(url, settings, repository, head)
    else:
        initial = index_commit(settings, repository, head, instance=instance)
    initial_seconds = time.perf_counter() - started
    env = {**os.environ, "PYTHONPATH": str(root), "DAGSTER_HOME": str(home)}
    log = (work / "daemon.log").open("wb")
    daemon = subprocess.Popen(
        [sys.executable, "-m", "dagster._daemon", "run", "-w", str(root / "workspace.yaml")],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    webserver = None
    if direct:
        port = _free_port()
        webserver = subprocess.Popen(
            [sys.executable, "-m", "dagster_webserver", "-w", str(root / "workspace.yaml")]
            + ["-h", "127.0.0.1", "-p", str(port)],
            cwd=root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        _wait(lambda: _answers(f"http://127.0.0.1:{port}/server_info"), 300, "the webserver")
    rounds: list[dict] = []
    load_at_start = os.getloadavg()
    warm_up = 2 if direct else 1  # the first push of each mode warms up what it goes through
    try:
        with contextlib.ExitStack() as stack:
            bases = {"sensor": stack.enter_context(serving(build_app(url)))}
            if webserver is not None:
                direct_launcher = DirectLauncher(
                    settings, url, Webserver(f"http://127.0.0.1:{port}")
                )
                bases["direct"] = stack.enter_context(
                    serving(build_app(url, launcher=direct_launcher))
                )
            clients = {
                mode: stack.enter_context(httpx.Client(base_url=base, timeout=30))
                for mode, base in bases.items()
            }
            for i in range(pushes + warm_up):
                mode = "direct" if direct and i % 2 == 1 else "sensor"
                client = clients[mode]
                # a push lands anywhere in the sensor daemon's 5 s loop, not just after a run
                time.sleep(random.uniform(0, SENSOR_INTERVAL))
                probe = f"freshness_probe_d{i}_{secrets.token_hex(3)}"
                for k, target in enumerate(targets):  # a function of its own in every file
                    with (clone / target).open("a") as fh:
                        fh.write(source.probe(f"{probe}_{k}" if k else probe))
                after, _, t_pushed, t_received = _push_and_notify(
                    client, clone, origin, i, time.time, repository
                )
                _wait(
                    lambda a=after: _current_commit(url, repository) == a, 600, f"push {i} indexed"
                )
                t_searchable = time.time()
                # the first and the last file's new function
                found = _found(url, probe, repository) and _found(
                    url, f"{probe}_{files - 1}" if files > 1 else probe, repository
                )
                key = f"webhook:github:bench-{after}"
                [record] = instance.get_run_records(RunsFilter(tags={"dagster/run_key": key}))
                # the step's success event is written just after its transaction commits
                marks = _wait(
                    lambda r=record: (lambda m: m if "snapshot:end" in m else None)(
                        _step_times(instance, r.dagster_run.run_id)
                    ),
                    30,
                    "publish event",
                )
                created = record.create_timestamp.timestamp()
                ticked = _tick_started(instance, record.dagster_run.run_id) or created
                launched = marks.get("run_launched", created)
                if i < warm_up:
                    continue
                rounds.append(
                    {
                        "mode": mode,
                        # in direct mode the sensor can still take a push first
                        "launched_by": record.dagster_run.tags.get(LAUNCHED_BY_TAG, "sensor"),
                        "receive": t_received - t_pushed,
                        "pickup": created - t_received,
                        # the sensor daemon's loop until the tick began, then the tick until
                        # it created the run (evaluation in the code server, the run's record)
                        "pickup_wait": ticked - t_received,
                        "pickup_tick": created - ticked,
                        "run_start": marks["run_start"] - created,
                        # in the queue until the queue daemon launched it, then the launcher and
                        # the run's process until its first event
                        "run_queued": launched - created,
                        "run_process": marks["run_start"] - launched,
                        "index": marks["code_index:end"] - marks["source_files:start"],
                        "publish": marks["snapshot:end"] - marks["snapshot:start"],
                        "push_to_searchable": t_searchable - t_pushed,
                        "found": found,
                    }
                )
    finally:
        if webserver is not None:
            os.killpg(webserver.pid, 15)
            with contextlib.suppress(subprocess.TimeoutExpired):
                webserver.wait(30)
        os.killpg(daemon.pid, 15)
        with contextlib.suppress(subprocess.TimeoutExpired):
            daemon.wait(30)
        # the daemon's code server can outlive it: end the rest of the session's group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(daemon.pid, 9)
        log.close()
    parts = [
        "receive",
        "pickup",
        "pickup_wait",
        "pickup_tick",
        "run_start",
        "run_queued",
        "run_process",
        "index",
        "publish",
        "push_to_searchable",
    ]
    label = label or f"{launcher}_launcher"
    report = {
        "mode": "daemon",
        "label": label,
        "launcher": launcher,
        "dagster_yaml": str(dagster_yaml) if dagster_yaml else "the project's",
        "load": " / ".join(f"{x:.1f}" for x in os.getloadavg()),
        "load_at_start": " / ".join(f"{x:.1f}" for x in load_at_start),
        "corpus": corpus,
        "files_per_push": files,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine.summary(),
        "provider": provider,
        "corpus_files": int(initial.get("files", 0)),
        "corpus_chunks": int(initial.get("chunks", 0)),
        "initial_index_seconds": round(initial_seconds, 2),
        "pushes": pushes,
        "all_found": all(r["found"] for r in rounds),
        "median_seconds": {p: round(statistics.median(r[p] for r in rounds), 3) for p in parts},
        "max_seconds": {p: round(max(r[p] for r in rounds), 3) for p in parts},
        "by_mode": {
            mode: {
                "pushes": len(those),
                "median_seconds": {
                    p: round(statistics.median(r[p] for r in those), 3) for p in parts
                },
                "max_seconds": {p: round(max(r[p] for r in those), 3) for p in parts},
            }
            for mode in ("sensor", "direct")
            if (those := [r for r in rounds if r["mode"] == mode])
        },
        "rounds": [
            {k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()} for r in rounds
        ],
    }
    if write:
        slug = "_".join("".join(c if c.isalnum() else " " for c in label.lower()).split())
        if corpus == "eval":
            name = f"freshness_daemon_{slug}.json"
            RESULTS_DAEMON.with_name(name).write_text(json.dumps(report, indent=2) + "\n")
            write_page()
        else:  # another corpus: its own file, read by its own page (results/kernel.md)
            name = f"freshness_{corpus.replace('-', '_')}_{slug}.json"
            RESULTS_DAEMON.with_name(name).write_text(json.dumps(report, indent=2) + "\n")
    return report


def write_page() -> None:
    """Render `freshness.md` from the stored in-process and daemon reports."""
    parts = ["# Freshness: push to searchable\n"]
    inprocess = RESULTS.with_name("freshness_inprocess.json")
    if inprocess.exists():
        parts.append(render_inprocess(json.loads(inprocess.read_text())))
    daemon = [json.loads(p.read_text()) for p in sorted(RESULTS.parent.glob("freshness_daemon_*"))]
    daemon = sorted((r for r in daemon if "label" in r), key=lambda r: r["date"])
    if daemon:
        parts.append(render_daemon(daemon))
    # the kernel sample's runs that split the waits (the older ones are in results/kernel.md)
    kernel = [json.loads(p.read_text()) for p in RESULTS.parent.glob("freshness_kernel_sample_*")]
    kernel = sorted(
        (r for r in kernel if "pickup_wait" in r.get("median_seconds", {})),
        key=lambda r: (r["files_per_push"], r["date"]),
    )
    if kernel:
        parts.append(render_waits(kernel))
    RESULTS.write_text("\n".join(parts))


def render_waits(reports: list[dict]) -> str:
    """What the daemon's waits are made of, on the kernel sample, per instance configuration."""
    names = list(reports[0]["median_seconds"])
    head = " | ".join(
        f"{r['label']}, {r['pushes']} pushes, load {r['load'].split(' / ')[0]}" for r in reports
    )
    rows = "\n".join(
        f"| {n} | "
        + " | ".join(f"{r['median_seconds'][n]:.2f} ({r['max_seconds'][n]:.2f})" for r in reports)
        + " |"
        for n in names
    )
    first = reports[0]
    return f"""## What the daemon's waits are (the kernel sample)

`python -m lab.freshness_bench --daemon --reuse-db --corpus kernel-sample --provider fake
[--files 50] [--dagster-yaml FILE]`: pushes to the Linux kernel's sample (789 files, 49,708
chunks), one file (`kernel/fork.c`) or fifty, through a real `dagster-daemon`; *before* runs
main's instance settings (`--dagster-yaml lab/baselines/dagster_yaml_main_20045eb.yaml`),
*after* the project's own; the runs alternate. Median (max) seconds after one warm-up push;
{first["date"][:10]}, {first["machine"]} (at the first run):

| part | {head} |
|---|{"---|" * len(reports)}
{rows}

- pickup_wait: the webhook's 202 until the sensor's tick began. The sensor daemon passes over
  the sensors every 5 s (`MIN_INTERVAL_LOOP_TIME = 5` in `dagster/_daemon/sensor.py`: it sleeps
  5 s minus the pass's own time; no setting or environment variable changes it), and
  `minimum_interval_seconds=1` only lets this sensor tick on every pass: a push waits for the
  next pass, 2.5 s on average, up to 5.
- pickup_tick: the tick until the run was created: the sensor evaluated in the code server over
  gRPC (the mirror fetched, the plan, the events marked), the partition added, the run's plan
  asked of the code server, the run stored and queued.
- run_queued: until the queue daemon launched it (PIPELINE_STARTING). It polls every
  `dequeue_interval_seconds` (whole seconds; 1 is the least that is not a busy loop querying the
  run storage back to back) and waits in steps of 0.5 s after each pass
  (`IntervalDaemon.core_loop`): 0.5–1.5 s.
- run_process: the warm launcher's fork until the run's first event (RUN_START).
- index, publish: the run's steps (`source_files` to `code_index`; `snapshot`).

What the instance settings can change, and what this branch sets:
- `sensors: use_threads: true, num_workers: 2` (set): ticks run in a thread pool, so a slow
  tick of the other sensor (`local_commit_sensor`'s git checks, when it is on) no longer holds
  back the webhook sensor's in the same pass. With one sensor on, as here, no change.
- `auto_materialize` and `freshness` off (set): two daemons fewer (declarative automation and
  freshness policies, which nothing here uses) polling in the daemon process. No measurable
  change in these times.
- `DefaultRunCoordinator` instead of the queue would remove run_queued (~1 s) but also the run
  limits (one run per repository at a time, backfills at most half the slots): not taken.
- Nothing configures the sensor loop. The fixed waits (pickup_wait ~2.5 s on average, run_queued
  ~1 s) are over half of a one-file push at this load; what would reach 5 s is taking the push
  out of the sensor's loop: the receiver launching the run itself through Dagster's GraphQL API
  (`launchRun` on the webserver of `codeatlas dev`: the same queue and limits), the sensor kept
  for events nobody launched. Not done yet.
"""


def render_inprocess(report: dict) -> str:
    """The in-process section: every part measured without daemon waits."""
    m = report["median_seconds"]
    extra = report["daemon_extra_seconds"]
    rows = "\n".join(f"| {part} | {m[part]:.3f} |" for part in m)
    return f"""## In-process (parts without daemon waits)

`python -m lab.freshness_bench --pushes {report["pushes"]} --provider {report["provider"]}`

- date: {report["date"]}
- machine: {report["machine"]}
- corpus: the eval corpus (flask, werkzeug, click, jinja2, itsdangerous) as a git repository,
  {report["corpus_files"]} files, {report["corpus_chunks"]} chunks; served as a `file://` remote
  (bare repository) fetched into a mirror, like any remote
- embedder: provider `{report["provider"]}`, model `{report["model"]}`
- initial index (in-process): {report["initial_index_seconds"]} s{
        " (the index of an earlier run was reused: only re-published)"
        if report.get("reused_db")
        else ""
    }
- change per push: one new function appended to `{TARGET_FILE}`; found by search (exact symbol
  + lexical, as an agent's `search_code`) after every push: {report["all_found"]}
- a fresh initial index of this corpus with the local model took 340 s on this machine under
  the same load (embedding 4368 chunks on 2 CPUs); later runs reuse it with `--reuse-db`

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

A daemon adds the sensor interval ({extra["sensor_interval_wait_mean"]} s on average), the run
queue's polling and a new process per run ({extra["run_process_launch"]} s to import the
definitions here): see the daemon section for measured numbers.
"""


def render_daemon(reports: list[dict]) -> str:
    """The daemon section: one table column per measured setup (`--label`)."""
    names = list(max((r["median_seconds"] for r in reports), key=len))  # later runs split more
    head = " | ".join(r["label"] for r in reports)
    rows = "\n".join(
        f"| {n} | "
        + " | ".join(
            f"{r['median_seconds'][n]:.2f} (max {r['max_seconds'][n]:.2f})"
            if n in r["median_seconds"]
            else "–"
            for r in reports
        )
        + " |"
        for n in names
    )
    setups = "\n".join(
        f"- {r['label']}: {r.get('setup', r['launcher'] + ' run launcher')}; {r['date']}, load"
        f" average {r.get('load', '?')}"
        for r in reports
    )
    first = reports[0]
    return f"""## Through a real `dagster-daemon` (what a user of `codeatlas dev` sees)

`python -m lab.freshness_bench --daemon --reuse-db [--launcher default] --label L`: the
project's `dagster.yaml` (QueuedRunCoordinator polled every second), the `webhook_push_sensor`
ticking on its own, runs requested with the in-process executor. Each push waits a random 0-5 s
first, so pushes land anywhere in the sensor daemon's 5 s loop. Median (max) over
{first["pushes"]} pushes after one warm-up push, seconds:

| part | {head} |
|---|{"---|" * len(reports)}
{rows}

{setups}

- pickup: 202 until the sensor created the run (the sensor daemon's 5 s loop + the tick).
- run_start: run created until RUN_START (queue polling + the run launcher starting a process).
- push_to_searchable: `git push` returned until the new commit is the current snapshot.
- machine: {first["machine"]}; embedder provider `{first["provider"]}` (the
  new function is searchable once published; its vectors come in the step after).
- Runs are measured interleaved, since the shared machine's load moves: compare columns of
  the same load. What remains at a moderate load is mostly the sensor daemon's loop: Dagster
  evaluates sensors once every 5 s (fixed in its sensor daemon), so a push waits 2.5 s on
  average before its tick; the warm launcher brought the run's start from a new interpreter
  (5-15 s here) to a fork, and its steps run warm too (index and publish at in-process speed).
"""


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushes", type=int, default=5)
    parser.add_argument("--provider", default="local", choices=("local", "fake", "openai"))
    parser.add_argument(
        "--daemon",
        action="store_true",
        help="through a real dagster-daemon instead of in-process ticks and runs",
    )
    parser.add_argument("--reuse-db", action="store_true", help="keep the last run's index")
    parser.add_argument(
        "--launcher",
        default="warm",
        choices=("warm", "default"),
        help="daemon mode: the project's warm run launcher, or Dagster's default one",
    )
    parser.add_argument("--label", help="daemon mode: name of the result file and column")
    parser.add_argument(
        "--corpus", default="eval", choices=sorted(CORPORA), help="daemon mode: pushed to"
    )
    parser.add_argument(
        "--index",
        help="daemon mode, kernel corpus: the benchmark database holding the whole tree's index"
        " (default bench_kernel_whole8; `python -m lab.kernel --full --label NAME`)",
    )
    parser.add_argument("--files", type=int, default=1, help="daemon mode: files per push")
    parser.add_argument(
        "--dagster-yaml",
        type=Path,
        help="daemon mode: this instance configuration instead of the project's (to compare)",
    )
    parser.add_argument(
        "--direct",
        action="store_true",
        help="daemon mode: alternate pushes left to the sensor with pushes whose run the"
        " receiver launches through a Dagster webserver",
    )
    args = parser.parse_args(argv)
    if args.daemon:
        report = run_daemon(
            args.pushes,
            args.provider,
            reuse_db=args.reuse_db,
            launcher=args.launcher,
            label=args.label,
            corpus=args.corpus,
            files=args.files,
            dagster_yaml=args.dagster_yaml,
            direct=args.direct,
            index=args.index,
        )
    else:
        report = run(args.pushes, args.provider, reuse_db=args.reuse_db)
    print(json.dumps({k: v for k, v in report.items() if k != "rounds"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
