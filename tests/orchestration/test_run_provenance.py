"""What the Dagster UI shows is true (issue 48): a run names what launched it, and a no-op re-run
does not make a partition's latest materialization read "chunks 0"."""

from __future__ import annotations

from dagster import AssetKey, DagsterInstance

from assets.code_index import NO_CHANGE as NO_NEW_FILES
from assets.vectors import NO_CHANGE as NO_NEW_VECTORS
from core.database import connect
from orchestration.model_upgrade import upgrade_tags
from orchestration.runtime.run_tags import LAUNCHED_BY_TAG, PRIORITY_TAG, TRIGGER_TAG, launcher_of
from tests.assets.pipeline_helpers import register, run_index


def _latest(instance: DagsterInstance, asset: str) -> dict:
    event = instance.get_latest_materialization_event(AssetKey(asset))
    assert event is not None and event.asset_materialization is not None
    return {k: v.value for k, v in event.asset_materialization.metadata.items()}


def test_a_cli_run_is_launched_by_the_cli_at_the_priority_of_a_push(
    settings_env, database_url, git_repo
):
    git_repo.write("pay.py", "def refund(order):\n    return order.total\n")
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    with DagsterInstance.ephemeral() as instance:
        run = instance.get_run_by_id(run_index(database_url, "shop", sha, instance)["run_id"])
    assert run is not None
    assert run.tags[TRIGGER_TAG] == "cli"
    assert run.tags[LAUNCHED_BY_TAG].startswith("codeatlas CLI (")  # the UI's "Launched by"
    assert run.tags[PRIORITY_TAG] == "0"  # ahead of backfills (-1) for the embedding slot
    assert run.job_name == "index_snapshot"


def test_a_model_upgrades_runs_name_the_upgrade_as_their_launcher():
    tags = upgrade_tags("bge-small")
    assert tags[LAUNCHED_BY_TAG] == "codeatlas model upgrade to bge-small"
    assert tags[TRIGGER_TAG] == "model-upgrade" and tags[PRIORITY_TAG] == "-1"
    assert launcher_of({**tags, "dagster/backfill": "b1"}) == (
        "model upgrade to bge-small, backfill b1"
    )
    assert launcher_of({TRIGGER_TAG: "webhook"}) == "webhook push"
    assert launcher_of({}) == "launched from the Dagster UI or API"


def test_a_no_op_rerun_keeps_the_snapshots_counts_and_says_no_change(
    settings_env, database_url, git_repo
):
    for i in range(3):
        git_repo.write(f"mod{i}.py", f"def f{i}(x):\n    return x + {i}\n")
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    with DagsterInstance.ephemeral() as instance:
        run_index(database_url, "shop", sha, instance)
        first = _latest(instance, "code_chunks")
        run_index(database_url, "shop", sha, instance)  # the same commit again: nothing to do
        chunks, symbols = _latest(instance, "code_chunks"), _latest(instance, "code_symbols")
        vectors = _latest(instance, "chunk_embeddings")
    with connect(database_url) as conn:
        stored = conn.execute(
            "SELECT (stats->>'chunks')::int AS chunks, (stats->>'symbols')::int AS symbols"
            " FROM snapshots"
        ).fetchone()
    assert first["files_parsed"] == 3 and first["chunks_parsed"] > 0 and "change" not in first
    assert chunks["files_parsed"] == 0 and chunks["chunks_parsed"] == 0
    assert chunks["change"] == NO_NEW_FILES
    assert chunks["chunks_in_snapshot"] == stored["chunks"] > 0  # the truth, not 0
    assert symbols["symbols_in_snapshot"] == stored["symbols"] == 3
    assert vectors["embedded"] == 0 and vectors["change"] == NO_NEW_VECTORS
