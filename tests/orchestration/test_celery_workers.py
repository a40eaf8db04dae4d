"""Runs spread over real celery workers (CODEATLAS_RUN_LAUNCHER=celery): a backfill of eight
repositories' partitions goes through the daemon's run queue, Dagster's CeleryRunLauncher, a
real Redis broker and two separate worker processes; every repository ends up searchable with
the right rows, and every run is in Dagster's run storage (what the UI lists)."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import redis
from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

from assets.partitions import partition_key, snapshot_partitions
from core.database import connect
from orchestration.jobs import BACKGROUND_PRIORITY, PRIORITY_TAG, REPOSITORY_TAG
from orchestration.runtime.dagster_internals import engine_event_pid
from orchestration.runtime.run_tags import PARTITION_TAG
from retrieval.principals import Principal
from retrieval.scope import resolve_scope
from retrieval.search import search_code
from tests.assets.pipeline_helpers import register
from tests.conftest import GitRepo
from tests.orchestration.daemon import ROOT, daemon_running, diagnosis, make_dagster_home

pytestmark = pytest.mark.slow

REPOSITORIES = 8
WORKERS = 2
WAIT_SECONDS = 900  # eight runs on a loaded 2-core machine; a healthy backfill takes ~2 min
CELERY_TASK_TAG = "dagster-celery/task_id"


def free_port(ports: range) -> int:
    """The first port of `ports` nothing listens on (this project's tests use 33xx)."""
    for port in ports:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError(f"no free port in {ports}")


@pytest.fixture
def broker_url(tmp_path: Path) -> Iterator[str]:
    """A real Redis server (Debian's redis-server, `make redis`) on a free 33xx port."""
    server = shutil.which("redis-server")
    if server is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed: `make redis` installs it (as root)")
        pytest.skip("no redis-server here: `sudo apt-get install redis-server` (or `make redis`)")
    port = free_port(range(3379, 3400))
    args = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    with (tmp_path / "redis.log").open("wb") as log:
        proc = subprocess.Popen([server, *args, "--dir", str(tmp_path)], stdout=log, stderr=log)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(redis.ConnectionError):
                if redis.Redis.from_url(url).ping():
                    break
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"redis-server did not start: {(tmp_path / 'redis.log').read_text()}")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.fixture
def celery_home(settings_env, database_url, pg_server, broker_url, tmp_path, monkeypatch) -> Path:
    """The daemon's and the workers' settings: the celery run launcher on the test's broker."""
    monkeypatch.setenv("CODEATLAS_RUN_LAUNCHER", "celery")
    monkeypatch.setenv("CODEATLAS_CELERY_BROKER_URL", broker_url)
    monkeypatch.setenv("CODEATLAS_MAX_CONCURRENT_RUNS", "4")  # two for the backfill
    return make_dagster_home(database_url, pg_server, tmp_path, monkeypatch)


@contextlib.contextmanager
def workers_running(tmp_path: Path, count: int) -> Iterator[list[subprocess.Popen]]:
    """`count` celery workers (one run at a time each), as README "Scaling out" starts them."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = []
    try:
        for n in range(count):
            command = [
                *(sys.executable, "-m", "celery", "-A", "orchestration.celery_app", "worker"),
                *("--concurrency", "1", "--hostname", f"worker{n}@%h", "--loglevel", "INFO"),
            ]
            with (tmp_path / f"worker{n}.log").open("wb") as log:
                procs.append(
                    subprocess.Popen(
                        command,
                        cwd=ROOT,
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        yield procs
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def make_repositories(database_url: str, tmp_path: Path) -> dict[str, tuple[str, int]]:
    """Eight registered local repositories; repository i has i % 3 + 1 Python files of one
    function each. {name: (head commit, files)}."""
    heads = {}
    for i in range(REPOSITORIES):
        repo = GitRepo(tmp_path / f"repo{i}")
        files = i % 3 + 1
        for f in range(files):
            repo.write(
                f"billing/ledger_{f}.py",
                f"def settle_invoice_{i}_{f}(invoice):\n"
                f'    """Settle invoice {f} of ledger {i}."""\n'
                "    return invoice.total\n",
            )
        name = f"team/service-{i}"
        register(database_url, name, str(repo.path))
        heads[name] = (repo.commit("ledger"), files)
    return heads


def searchable(url: str, repository: str, query: str) -> list[str]:
    """Symbols lexical search finds in `repository` for an all-repositories principal."""
    with connect(url) as conn:
        row = conn.execute(
            "INSERT INTO principals (name, all_repositories) VALUES ('op', true)"
            " ON CONFLICT (name) DO UPDATE SET all_repositories = true RETURNING id"
        ).fetchone()
        scope = resolve_scope(conn, Principal(row["id"], "op", True), [repository])
        return [h.symbol for h in search_code(conn, scope, query, mode="lexical").hits]


def test_a_backfill_of_eight_repositories_runs_on_two_celery_workers(
    celery_home, database_url, tmp_path
):
    heads = make_repositories(database_url, tmp_path)
    keys = [partition_key(name, sha) for name, (sha, _files) in heads.items()]
    log = tmp_path / "daemon.log"
    with (
        DagsterInstance.get() as instance,
        workers_running(tmp_path, WORKERS) as workers,
        daemon_running(log) as daemon,
    ):
        assert snapshot_partitions.name is not None
        instance.add_dynamic_partitions(snapshot_partitions.name, keys)
        backfill = subprocess.run(
            [
                *(sys.executable, "-m", "dagster", "job", "backfill", "--noprompt"),
                *("-w", str(ROOT / "workspace.yaml"), "-j", "index_snapshot"),
                *("--partitions", ",".join(keys)),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
        )
        assert backfill.returncode == 0, backfill.stdout + backfill.stderr

        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            runs = instance.get_runs(RunsFilter(job_name="index_snapshot"))
            failed = [r for r in runs if r.status == DagsterRunStatus.FAILURE]
            if len(runs) == REPOSITORIES and all(r.is_finished for r in runs) or failed:
                break
            if time.monotonic() > deadline or daemon.poll() is not None:
                break
            time.sleep(1)
        worker_logs = "".join(
            (tmp_path / f"worker{n}.log").read_text(errors="replace")[-3000:]
            for n in range(WORKERS)
        )
        why = diagnosis(database_url, instance, log) + "\nworker logs (tails):\n" + worker_logs
        assert len(runs) == REPOSITORIES, why
        assert {r.status for r in runs} == {DagsterRunStatus.SUCCESS}, why
        # each run is the backfill's, behind pushes in the queue, one repository, a celery task
        assert {r.tags[PARTITION_TAG] for r in runs} == set(keys)
        for run in runs:
            assert "dagster/backfill" in run.tags
            assert run.tags[PRIORITY_TAG] == BACKGROUND_PRIORITY
            assert run.tags[REPOSITORY_TAG] == run.tags[PARTITION_TAG].split("@")[0]
            assert run.tags[CELERY_TASK_TAG]
        # every run executed in a pool process of one of the two workers, and both took runs
        pids = {engine_event_pid(instance, r.run_id) for r in runs}
        parents = {psutil.Process(pid).ppid() for pid in pids if pid is not None}
        assert parents == {w.pid for w in workers}, why

    for name, (sha, files) in heads.items():
        with connect(database_url) as conn:
            row = conn.execute(
                "SELECT s.commit_sha, s.stats, (SELECT count(*) FROM snapshot_files f"
                " JOIN code_chunks c ON c.file_version_id = f.file_version_id"
                " WHERE f.snapshot_id = s.id) AS chunks FROM repositories r"
                " JOIN snapshots s ON s.id = r.current_snapshot_id WHERE r.name = %s",
                (name,),
            ).fetchone()
        assert (row["commit_sha"], row["stats"]["files"], row["chunks"]) == (sha, files, files)
        i = name.rsplit("-", 1)[1]
        found = searchable(database_url, name, "settle invoice ledger")
        assert sorted(found) == [f"settle_invoice_{i}_{f}" for f in range(files)]
