"""End to end through the real `dagster-daemon`: `codeatlas models upgrade` launches a backfill of
`chunk_embeddings` that the daemon's backfill loop runs, partition by partition, until the new
model is active; nothing here executes a run in-process."""

import time
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

from assets.vectors import MODEL_TAG
from codeatlas.cli import main
from core.database import connect
from indexing import embedding_registry
from orchestration.runtime.dagster_internals import backfills_tagged
from orchestration.runtime.run_tags import PARTITION_TAG
from tests.assets.pipeline_helpers import register, run_index
from tests.orchestration.daemon import daemon_running, diagnosis, failed_ticks, make_dagster_home

# a generous bound for a loaded 2-core machine
WAIT_SECONDS = 400


@pytest.fixture
def dagster_home(settings_env, database_url, pg_server, tmp_path, monkeypatch) -> Path:
    """A DAGSTER_HOME like `codeatlas dev` writes, on a Dagster database of this test's own."""
    return make_dagster_home(database_url, pg_server, tmp_path, monkeypatch)


def models(url: str) -> tuple[str, str | None]:
    with connect(url) as conn:
        row = conn.execute(
            "SELECT active_embedding_model AS a, upgrading_embedding_model AS u FROM repositories"
        ).fetchone()
    return row["a"], row["u"]


def test_the_real_daemon_runs_the_upgrade_backfill_until_the_new_model_is_active(
    dagster_home, database_url, git_repo, tmp_path
):
    embedding_registry._cache.clear()
    git_repo.write("pay.py", "def refund(order):\n    return order.total\n")
    first = git_repo.commit("one")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    git_repo.write("pay.py", "def refund(order):\n    return -order.total\n")
    second = git_repo.commit("two")
    run_index(database_url, "shop", second)

    assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16"]) == 0
    assert models(database_url) == ("fake-hash-384", "fake-hash-16")
    log = tmp_path / "daemon.log"
    with DagsterInstance.get() as instance, daemon_running(log) as daemon:
        [backfill] = backfills_tagged(instance, MODEL_TAG, "fake-hash-16")
        deadline = time.monotonic() + WAIT_SECONDS
        while models(database_url) != ("fake-hash-16", None):
            failed = instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.FAILURE]))
            stuck = failed or failed_ticks(instance) or daemon.poll() is not None
            if stuck or time.monotonic() > deadline:
                pytest.fail(
                    "the upgrade backfill did not switch the model\n"
                    + diagnosis(database_url, instance, log)
                )
            time.sleep(1)

        runs = instance.get_runs(RunsFilter(tags={"dagster/backfill": backfill.backfill_id}))
        assert sorted(r.tags[PARTITION_TAG] for r in runs) == sorted(
            [f"shop@{first}", f"shop@{second}"]
        )
        assert {r.tags[MODEL_TAG] for r in runs} == {"fake-hash-16"}
        assert {r.job_name for r in runs} == {"embed_for_model"}  # not __ASSET_JOB
    embedding_registry._cache.clear()
