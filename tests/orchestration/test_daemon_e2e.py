"""End to end through the real `dagster-daemon` (what `codeatlas dev` runs): a push and its signed
webhook become a sensor tick, a queued run, a launched run process, and a searchable function.

Nothing here is called in-process: the daemon loads `workspace.yaml` on its own, so a run request
its job rejects, a code location that fails to load or a run that fails all show up here."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from dagster import DagsterInstance, DagsterRunStatus, RunsFilter
from dagster._core.scheduler.instigation import TickStatus

from codeatlas.core.config import load_settings
from codeatlas.core.database import connect, dagster_storage_url, with_database
from orchestration.instance import prepare_dagster_home
from orchestration.webhooks.app import build_app
from orchestration.webhooks.background import serving
from tests.orchestration.pushes import headers, lexical_hits, push_payload, pushed_repository

ROOT = Path(__file__).resolve().parents[2]
# a generous bound for a loaded 2-core machine; a healthy run takes about 20 s
WAIT_SECONDS = 300


@pytest.fixture
def dagster_home(settings_env, database_url, pg_server, tmp_path, monkeypatch) -> Path:
    """A DAGSTER_HOME like `codeatlas dev` writes, on a Dagster database of this test's own."""
    storage = f"{database_url.rsplit('/', 1)[1]}_dagster"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{storage}"')
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setenv(
        "CODEATLAS_DAGSTER_STORAGE_URL",
        with_database(dagster_storage_url(database_url), storage),
    )
    return prepare_dagster_home(load_settings())


@contextlib.contextmanager
def daemon_running(log: Path) -> Iterator[subprocess.Popen]:
    """`dagster-daemon run` on the project's workspace, in its own process group."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dagster._daemon", "run", "-w", str(ROOT / "workspace.yaml")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            # the daemon's code server and run processes share its group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def failed_ticks(instance: DagsterInstance) -> list[str]:
    """The newest failed tick of each sensor and schedule, with its error."""
    failures = []
    for state in instance.all_instigator_state():
        ticks = instance.get_ticks(
            state.instigator_origin_id, state.selector_id, statuses=[TickStatus.FAILURE], limit=1
        )
        failures += [f"{state.instigator_name}: {t.error and t.error.message}" for t in ticks]
    return failures


def diagnosis(url: str, instance: DagsterInstance, log: Path) -> str:
    """What the events, the runs and the daemon's log say, for a failure message."""
    with connect(url) as conn:
        rows = conn.execute("SELECT status, detail, run_key FROM webhook_events").fetchall()
    runs = [(r.run_id[:8], r.status.value, r.tags) for r in instance.get_runs()]
    tail = log.read_text(errors="replace")[-4000:]
    ticks = failed_ticks(instance)
    return f"events: {rows}\nruns: {runs}\nfailed ticks: {ticks}\ndaemon log (tail):\n{tail}"


def test_the_real_daemon_indexes_a_signed_push_until_the_new_function_is_searchable(
    dagster_home, database_url, tmp_path
):
    pushed = pushed_repository(database_url, tmp_path)
    assert lexical_hits(database_url, "store credit") == []
    log = tmp_path / "daemon.log"
    body = push_payload(pushed["origin"], pushed["first"], pushed["second"])
    with (
        DagsterInstance.get() as instance,
        daemon_running(log) as daemon,
        serving(build_app(database_url)) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        accepted = client.post("/webhooks", content=body, headers=headers(body, "delivery-1"))
        assert accepted.status_code == 202, accepted.text

        deadline = time.monotonic() + WAIT_SECONDS
        while not lexical_hits(database_url, "store credit"):
            failed = instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.FAILURE]))
            stuck = failed or failed_ticks(instance) or daemon.poll() is not None
            if stuck or time.monotonic() > deadline:
                pytest.fail(
                    "the push was not indexed by the daemon"
                    + (" (daemon exited)" if daemon.poll() is not None else "")
                    + "\n"
                    + diagnosis(database_url, instance, log)
                )
            time.sleep(0.5)

        [hit, *_] = lexical_hits(database_url, "store credit")
        assert (hit.path, hit.symbol, hit.commit) == (
            "shop/refunds.py",
            "issue_store_credit",
            pushed["second"],
        )
        [run] = instance.get_runs(RunsFilter(tags={"dagster/run_key": "webhook:github:delivery-1"}))
        assert run.tags["codeatlas/trigger"] == "webhook"
