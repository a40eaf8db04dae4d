"""End to end through the real `dagster-daemon` (what `codeatlas dev` runs): a push and its signed
webhook become a sensor tick, a queued run, a launched run process, and a searchable function.

Nothing here is called in-process: the daemon loads `workspace.yaml` on its own, so a run request
its job rejects, a code location that fails to load or a run that fails all show up here."""

import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

from core.database import connect, transaction
from orchestration.webhooks.app import build_app
from orchestration.webhooks.background import serving
from tests.orchestration.daemon import daemon_running, make_dagster_home, wait_until_found
from tests.orchestration.pushes import (
    git,
    headers,
    lexical_hits,
    push_payload,
    pushed_repository,
)


@pytest.fixture
def dagster_home(settings_env, database_url, pg_server, tmp_path, monkeypatch) -> Path:
    """A DAGSTER_HOME like `codeatlas dev` writes, on a Dagster database of this test's own."""
    return make_dagster_home(database_url, pg_server, tmp_path, monkeypatch)


def test_the_real_daemon_indexes_a_signed_push_until_the_new_function_is_searchable(
    dagster_home, database_url, tmp_path
):
    pushed = pushed_repository(database_url, tmp_path)
    assert lexical_hits(database_url, "store credit") == []
    # the repository's posting rows as if many commits had been published since its blocks were
    # built: the push's run folds them (and its own) into new blocks after publishing
    with transaction(database_url) as conn:
        conn.execute("UPDATE lexical_blocks_built SET row_postings = 1000000000")
    body = push_payload(pushed["origin"], pushed["first"], pushed["second"])
    with _push_delivered(database_url, tmp_path, body, "delivery-1") as (instance, run):
        [hit, *_] = lexical_hits(database_url, "store credit")
        assert (hit.path, hit.symbol, hit.commit) == (
            "shop/refunds.py",
            "issue_store_credit",
            pushed["second"],
        )
        assert run.tags["codeatlas/trigger"] == "webhook"
        # the tick that requested the run is found (the freshness benchmark times pickup by it)
        from orchestration.runtime.dagster_internals import sensor_tick_started

        tick = sensor_tick_started(instance, "webhook_push_sensor", run.run_id)
        created = instance.get_run_record_by_id(run.run_id).create_timestamp.timestamp()
        assert tick is not None and tick <= created + 1.0
        assert sensor_tick_started(instance, "webhook_push_sensor", "no-such-run") is None

        finished = _wait_until_finished(instance, run.run_id)
        assert finished.status == DagsterRunStatus.SUCCESS
    with connect(database_url) as conn:
        assert conn.execute("SELECT count(*) AS n FROM lexical_postings").fetchone() == {"n": 0}
        built = conn.execute("SELECT block_postings, row_postings FROM lexical_blocks_built")
        [state] = built.fetchall()
        assert state["row_postings"] == 0 and state["block_postings"] > 0
    [hit, *_] = lexical_hits(database_url, "store credit")  # found in the new blocks
    assert hit.symbol == "issue_store_credit"


def test_the_real_daemon_indexes_a_force_push_whose_indexed_commit_is_gone(
    dagster_home, database_url, tmp_path
):
    """The indexed commit rewritten away by a force-push and collected from the mirror (as git's
    automatic gc does): the push's run has nothing to diff against and lists the whole tree."""
    from core.config import load_settings
    from indexing import repositories

    pushed = pushed_repository(database_url, tmp_path)
    work = tmp_path / "work"
    git(work, "reset", "-q", "--soft", pushed["first"])
    git(work, "commit", "-q", "--amend", "-m", "cart and store credit, one root commit")
    rewritten = git(work, "rev-parse", "HEAD")
    git(work, "push", "-q", "--force", "origin", "main")
    mirror = repositories.git_dir(load_settings(), pushed["origin"], fetch=True)
    git(mirror, "reflog", "expire", "--expire=now", "--all")
    git(mirror, "gc", "-q", "--prune=now")
    gone = subprocess.run(
        ["git", "-C", str(mirror), "cat-file", "-e", f"{pushed['first']}^{{commit}}"]
    )
    assert gone.returncode != 0

    body = push_payload(pushed["origin"], pushed["second"], rewritten)
    with _push_delivered(database_url, tmp_path, body, "delivery-2") as (instance, run):
        assert _wait_until_finished(instance, run.run_id).status == DagsterRunStatus.SUCCESS
    [hit, *_] = lexical_hits(database_url, "store credit")
    assert (hit.path, hit.commit) == ("shop/refunds.py", rewritten)
    assert [h.path for h in lexical_hits(database_url, "add item cart")][:1] == ["shop/cart.py"]


@contextmanager
def _push_delivered(database_url: str, tmp_path: Path, body: bytes, delivery: str):
    """The signed push `body` posted to the webhook app while the real daemon runs, until its
    run has made "store credit" searchable: (the Dagster instance, the run), daemon still up."""
    log = tmp_path / "daemon.log"
    with (
        DagsterInstance.get() as instance,
        daemon_running(log) as daemon,
        serving(build_app(database_url)) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        accepted = client.post("/webhooks", content=body, headers=headers(body, delivery))
        assert accepted.status_code == 202, accepted.text
        wait_until_found(database_url, instance, daemon, log, "store credit")
        [run] = instance.get_runs(
            RunsFilter(tags={"dagster/run_key": f"webhook:github:{delivery}"})
        )
        yield instance, run


def _wait_until_finished(instance: DagsterInstance, run_id: str):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run = instance.get_run_by_id(run_id)
        if run is not None and run.is_finished:
            return run
        time.sleep(0.5)
    pytest.fail(f"run {run_id} did not finish")
