"""A push's run launched by the receiver through the Dagster webserver (no wait for the sensor's
pass), and the sensor taking over whatever the receiver could not launch."""

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from dagster import DagsterInstance, RunsFilter

from assets.partitions import snapshot_partitions
from core.config import load_settings
from core.database import connect, transaction
from orchestration.jobs import index_snapshot_job
from orchestration.runtime.run_tags import PARTITION_TAG
from orchestration.sensors import plan_pushes
from orchestration.webhooks import launch
from orchestration.webhooks.app import build_app
from orchestration.webhooks.background import serving
from orchestration.webhooks.launch import DirectLauncher, LaunchError, Webserver, launch_pushes
from tests.orchestration.daemon import (
    daemon_running,
    free_port,
    make_dagster_home,
    stop_sensor,
    wait_until_found,
    webserver_running,
)
from tests.orchestration.pushes import headers, lexical_hits, push_payload, pushed_repository


@pytest.fixture
def dagster_home(settings_env, database_url, pg_server, tmp_path, monkeypatch) -> Path:
    return make_dagster_home(database_url, pg_server, tmp_path, monkeypatch)


def event_rows(url: str) -> list[dict]:
    with connect(url) as conn:
        return conn.execute("SELECT status, run_key, detail FROM webhook_events").fetchall()


def test_the_names_the_launcher_sends_are_the_definitions():
    assert index_snapshot_job.name == launch.JOB
    assert snapshot_partitions.name == launch.PARTITIONS


def test_the_receiver_launches_a_pushs_run_through_the_webserver_without_a_sensor_tick(
    dagster_home, database_url, tmp_path
):
    pushed = pushed_repository(database_url, tmp_path)
    body = push_payload(pushed["origin"], pushed["first"], pushed["second"])
    launched: list[str] = []
    with (
        DagsterInstance.get() as instance,
        webserver_running(tmp_path / "webserver.log") as webserver_url,
    ):
        webserver = Webserver(webserver_url)
        stop_sensor(webserver, "webhook_push_sensor")  # only the receiver can launch the run
        launcher = DirectLauncher(
            load_settings(), database_url, webserver, on_launch=launched.extend
        )
        with (
            daemon_running(tmp_path / "daemon.log") as daemon,
            serving(build_app(database_url, launcher=launcher)) as base,
            httpx.Client(base_url=base, timeout=10) as client,
        ):
            accepted = client.post("/webhooks", content=body, headers=headers(body, "d-1"))
            assert accepted.status_code == 202, accepted.text
            wait_until_found(
                database_url, instance, daemon, tmp_path / "daemon.log", "store credit"
            )
        [run] = instance.get_runs(RunsFilter(tags={"dagster/run_key": "webhook:github:d-1"}))
        assert launched == [run.run_id]
        assert run.tags[launch.LAUNCHED_BY_TAG] == "webhook receiver"
        assert run.tags[PARTITION_TAG] == f"acme/shop@{pushed['second']}"
        assert run.tags["dagster/priority"] == "0"
        assert "dagster/sensor_name" not in run.tags
        assert event_rows(database_url) == [
            {"status": "queued", "run_key": "webhook:github:d-1", "detail": None}
        ]
    [hit, *_] = lexical_hits(database_url, "store credit")
    assert (hit.path, hit.symbol, hit.commit) == (
        "shop/refunds.py",
        "issue_store_credit",
        pushed["second"],
    )


def test_a_push_the_webserver_does_not_launch_is_left_pending_for_the_sensor(
    settings_env, database_url, tmp_path, caplog
):
    pushed = pushed_repository(database_url, tmp_path)
    with transaction(database_url) as conn:
        conn.execute(
            "INSERT INTO webhook_events (provider, delivery_id, repository, repository_id, event,"
            " ref, after_sha) SELECT 'github', 'd-2', name, id, 'push', 'refs/heads/main', %s"
            " FROM repositories",
            (pushed["second"],),
        )
    dead = Webserver("http://127.0.0.1:9", timeout=2)  # the discard port: nobody listens
    with connect(database_url) as conn:
        assert launch_pushes(conn, load_settings(), dead) == []
    [row] = event_rows(database_url)
    assert row["status"] == "pending" and row["run_key"] is None
    assert "did not answer" in row["detail"] and "left to the sensor" in row["detail"]
    assert "left to the sensor" in caplog.text
    with connect(database_url) as conn:  # the sensor's next tick plans it as any other push
        plan = plan_pushes(conn, load_settings())
    assert [r.run_key for r in plan.runs] == ["webhook:github:d-2"]
    assert event_rows(database_url)[0]["status"] == "queued"


def test_codeatlas_webhooks_with_a_dagster_url_launches_at_once_or_leaves_it_to_the_sensor(
    settings_env, database_url, tmp_path
):
    """The command wires the launcher: with nobody at the URL, a stored push goes back to
    pending with the reason, and the receiver keeps answering."""
    pushed = pushed_repository(database_url, tmp_path)
    body = push_payload(pushed["origin"], pushed["first"], pushed["second"])
    port = free_port()
    command = [sys.executable, "-m", "codeatlas.cli", "webhooks", "--listen", f"127.0.0.1:{port}"]
    with subprocess.Popen(
        [*command, "--dagster-url", "http://127.0.0.1:9"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    ) as proc:
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, "no receiver"
                time.sleep(0.2)
            accepted = httpx.post(
                f"{base}/webhooks", content=body, headers=headers(body, "d-3"), timeout=10
            )
            assert accepted.status_code == 202, accepted.text
            while "left to the sensor" not in (event_rows(database_url)[0]["detail"] or ""):
                assert time.monotonic() < deadline, event_rows(database_url)
                time.sleep(0.2)
            assert event_rows(database_url)[0]["status"] == "pending"
        finally:
            proc.terminate()
        output = proc.communicate(timeout=30)[0].decode()
    assert "launching their runs through the Dagster webserver at http://127.0.0.1:9" in output
    assert "left to the sensor" in output


def test_a_webserver_without_the_job_refuses_in_words_and_is_asked_again_next_time(
    dagster_home, tmp_path, monkeypatch
):
    with webserver_running(tmp_path / "webserver.log") as url:
        webserver = Webserver(url)
        assert webserver.selector()["repositoryName"] == "__repository__"
        monkeypatch.setattr(launch, "JOB", "no_such_job")  # as if the location were reloaded
        with pytest.raises(LaunchError, match="launching acme/shop@abc"):
            webserver.launch("acme/shop@abc", {})
        with pytest.raises(LaunchError, match="has no job 'no_such_job'"):
            webserver.selector()  # asked again, not the location cached before
        webserver.close()
