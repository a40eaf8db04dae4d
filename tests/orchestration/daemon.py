"""A real `dagster-daemon` on the project's workspace, and what to say when it did not do its work
(shared by the end-to-end tests of the daemon and of the celery workers)."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
from dagster import DagsterInstance
from psycopg.conninfo import conninfo_to_dict

from core.config import load_settings
from core.database import connect, dagster_storage_url, with_database
from orchestration.instance import prepare_dagster_home
from orchestration.webhooks.launch import Webserver

ROOT = Path(__file__).resolve().parents[2]


def make_dagster_home(database_url: str, pg_server: str, tmp_path: Path, monkeypatch) -> Path:
    """A DAGSTER_HOME like `codeatlas dev` writes, on a Dagster database of this test's own."""
    storage = f"{conninfo_to_dict(database_url)['dbname']}_dagster"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{storage}"')
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setenv(
        "CODEATLAS_DAGSTER_STORAGE_URL",
        with_database(dagster_storage_url(database_url), storage),
    )
    return prepare_dagster_home(load_settings())


@contextlib.contextmanager
def group_running(command: list[str], log: Path) -> Iterator[subprocess.Popen]:
    """A Dagster process on the project's workspace, in a process group of its own, stopped
    with everything it started (code servers, run processes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", *command, "-w", str(ROOT / "workspace.yaml")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def daemon_running(log: Path) -> contextlib.AbstractContextManager[subprocess.Popen]:
    """`dagster-daemon run` on the project's workspace."""
    return group_running(["dagster._daemon", "run"], log)


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def webserver_running(log: Path, timeout: float = 240.0) -> Iterator[str]:
    """`dagster-webserver` on the project's workspace; its base URL once it answers."""
    import time

    import httpx

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = ["dagster_webserver", "-h", "127.0.0.1", "-p", str(port)]
    with group_running(command, log) as proc:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the Dagster webserver did not start:\n{tail}")
            try:
                if httpx.get(f"{base}/server_info", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        yield base


def stop_sensor(webserver: Webserver, name: str) -> None:
    """Stop a sensor through the webserver (its runs then come from elsewhere only)."""
    found = webserver.query(
        "query ($s: SensorSelector!) { sensorOrError(sensorSelector: $s) {"
        " ... on Sensor { id } } }",
        {"s": {**webserver.selector(), "sensorName": name}},
    )
    stopped = webserver.query(
        "mutation ($id: String) { stopSensor(id: $id) { __typename } }",
        {"id": found["sensorOrError"]["id"]},
    )
    assert stopped["stopSensor"]["__typename"] == "StopSensorMutationResult", stopped


def failed_ticks(instance: DagsterInstance) -> list[str]:
    """The newest failed tick of each sensor and schedule, with its error."""
    failures = []
    for state in instance.all_instigator_state():
        ticks = instance.get_ticks(state.instigator_origin_id, state.selector_id, limit=50)
        failed = [t for t in ticks if t.status.value == "FAILURE"][:1]
        failures += [f"{state.instigator_name}: {t.error and t.error.message}" for t in failed]
    return failures


def diagnosis(url: str, instance: DagsterInstance, log: Path) -> str:
    """What the events, the runs and the daemon's log say, for a failure message."""
    with connect(url) as conn:
        rows = conn.execute("SELECT status, detail, run_key FROM webhook_events").fetchall()
    runs = [(r.run_id[:8], r.status.value, r.tags) for r in instance.get_runs()]
    tail = log.read_text(errors="replace")[-4000:]
    ticks = failed_ticks(instance)
    return f"events: {rows}\nruns: {runs}\nfailed ticks: {ticks}\ndaemon log (tail):\n{tail}"


def wait_until_found(
    url: str, instance: DagsterInstance, daemon: subprocess.Popen, log: Path, query: str
) -> None:
    """Wait (up to 300 s) until lexical search finds `query`; fail at once with the diagnosis
    when a run or a tick failed or the daemon exited."""
    import time

    import pytest
    from dagster import DagsterRunStatus, RunsFilter

    from tests.orchestration.pushes import lexical_hits

    deadline = time.monotonic() + 300  # a generous bound for a loaded 2-core machine
    while not lexical_hits(url, query):
        failed = instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.FAILURE]))
        stuck = failed or failed_ticks(instance) or daemon.poll() is not None
        if stuck or time.monotonic() > deadline:
            pytest.fail(
                "the push was not indexed by the daemon"
                + (" (daemon exited)" if daemon.poll() is not None else "")
                + "\n"
                + diagnosis(url, instance, log)
            )
        time.sleep(0.5)
