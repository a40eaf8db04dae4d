"""`codeatlas models upgrade|list|drop` and `codeatlas prune` from the command line."""

import json

import pytest
from dagster import DagsterInstance, RunsFilter, build_sensor_context

from assets.resources import IndexDatabase
from assets.vectors import MODEL_TAG
from codeatlas.cli import main
from core.config import load_settings
from core.database import connect
from indexing import embedding_registry
from indexing.embedding_step import embed_snapshot, missing_content
from orchestration import model_upgrade
from orchestration.runtime.dagster_internals import backfills_tagged
from orchestration.runtime.run_tags import PARTITION_TAG
from tests.assets.pipeline_helpers import register, run_index
from tests.orchestration.daemon import make_dagster_home
from tests.orchestration.test_model_upgrade import embed_partition


@pytest.fixture(autouse=True)
def fresh_embedders():
    embedding_registry._cache.clear()


@pytest.fixture
def indexed(settings_env, database_url, git_repo):
    git_repo.write("pay.py", "def refund(order):\n    return order.total\n")
    first = git_repo.commit("one")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    git_repo.write("pay.py", "def refund(order):\n    return -order.total\n")
    second = git_repo.commit("two")
    run_index(database_url, "shop", second)
    return first, second


@pytest.fixture
def dagster_home(settings_env, database_url, pg_server, tmp_path, monkeypatch):
    """The Dagster instance the commands open: a database of this test's own."""
    return make_dagster_home(database_url, pg_server, tmp_path, monkeypatch)


def models(url: str) -> tuple[str, str | None]:
    with connect(url) as conn:
        row = conn.execute(
            "SELECT active_embedding_model AS a, upgrading_embedding_model AS u FROM repositories"
        ).fetchone()
    return row["a"], row["u"]


def test_models_upgrade_with_wait_backfills_switches_and_the_old_model_can_be_dropped(
    indexed, database_url, dagster_home, monkeypatch, capsys
):
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", "16")
    assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16", "--wait"]) == 0
    assert "shop: embedded" in capsys.readouterr().out
    assert models(database_url) == ("fake-hash-16", None)
    with DagsterInstance.get() as instance:  # each partition was a recorded run of the asset
        runs = instance.get_runs(RunsFilter(tags={MODEL_TAG: "fake-hash-16"}))
        assert sorted(r.tags[PARTITION_TAG] for r in runs) == sorted(
            f"shop@{sha}" for sha in indexed
        )
        assert {r.status.value for r in runs} == {"SUCCESS"}
        # the UI's "Launched by" names the command, not "Manually launched"
        assert {r.tags["user"] for r in runs} == {"codeatlas models upgrade --wait (fake-hash-16)"}

    assert main(["models", "list"]) == 0
    listing = capsys.readouterr().out
    assert "fake-hash-16  16 dims  fake:default" in listing and "active in: shop" in listing

    assert main(["models", "drop", "fake-hash-16"]) == 1
    assert "still active" in capsys.readouterr().err
    assert main(["models", "drop", "fake-hash-384"]) == 0
    with connect(database_url) as conn:
        left = conn.execute("SELECT DISTINCT embedding_model AS m FROM chunk_embeddings")
        assert [r["m"] for r in left] == ["fake-hash-16"]


def tick_upgrade_sensor(url: str) -> tuple[list, list[str]]:
    """One tick of `model_upgrade_sensor`, as the daemon of `codeatlas dev` runs it."""
    with (
        DagsterInstance.get() as instance,
        build_sensor_context(
            instance=instance, resources={"index_db": IndexDatabase(url=url)}
        ) as context,
    ):
        result = model_upgrade.model_upgrade_sensor(context)
    assert result.cursor is not None
    return result.run_requests or [], json.loads(result.cursor)["events"]


def test_an_upgrade_is_recorded_for_every_process_and_its_switch_is_committed_once(
    indexed, database_url, dagster_home, git_repo, capsys
):
    # Every process here (this CLI, the sensor, the index run) has an environment that
    # configures the old model, fake-hash-384: only the command line names the new one.
    assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16"]) == 0
    assert models(database_url) == ("fake-hash-384", "fake-hash-16")

    runs, events = tick_upgrade_sensor(database_url)
    # the command launched the backfill: the sensor waits for it, and starts no upgrade back
    # to the environment's model
    assert (runs, events) == ([], [])
    # the backfill embedded everything but stopped before its own switch (a killed run)
    with connect(database_url) as conn:
        embedder = embedding_registry.embedder_for_model("fake-hash-16", conn, load_settings())
    for sha in indexed:
        embed_snapshot(database_url, "shop", sha, embedder)

    runs, events = tick_upgrade_sensor(database_url)
    assert (runs, events) == ([], ["shop: switched to fake-hash-16"])
    assert models(database_url) == ("fake-hash-16", None)  # committed, not a lost savepoint
    runs, events = tick_upgrade_sensor(database_url)
    assert (runs, events) == ([], [])  # switched once, and nothing is started again
    assert models(database_url) == ("fake-hash-16", None)

    # a new commit indexed by a process configured for the old model uses the chosen one
    git_repo.write("ship.py", "def ship(order):\n    return order.address\n")
    run_index(database_url, "shop", git_repo.commit("three"))
    with connect(database_url) as conn:
        snap = conn.execute(
            "SELECT id AS repo, current_snapshot_id AS id FROM repositories WHERE name = 'shop'"
        ).fetchone()
        assert missing_content(conn, snap["id"], "fake-hash-16") == []
        # the environment's model got nothing for ship.py's new chunk
        assert len(missing_content(conn, snap["id"], "fake-hash-384")) == 1
    assert models(database_url) == ("fake-hash-16", None)
    assert main(["models", "list"]) == 0
    listing = capsys.readouterr().out
    assert "fake-hash-16  16 dims  fake:default" in listing and "(chosen" in listing


def test_models_upgrade_launches_a_backfill_of_the_embed_job_over_every_partition(
    indexed, database_url, dagster_home, capsys
):
    assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16"]) == 0
    assert "backfill " in capsys.readouterr().err
    partitions = sorted(f"shop@{sha}" for sha in indexed)
    with DagsterInstance.get() as instance:
        [backfill] = backfills_tagged(instance, MODEL_TAG, "fake-hash-16")
        # a backfill of the job: its runs are `embed_for_model` in the UI, not `__ASSET_JOB`
        assert backfill.job == "embed_for_model"
        assert list(backfill.partitions) == partitions
        assert backfill.in_progress and backfill.status == "REQUESTED"
        assert backfill.tags["dagster/priority"] == "-1"  # behind pushes in the run queue
        # the same command again while it runs launches nothing more
        assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16"]) == 0
        assert len(backfills_tagged(instance, MODEL_TAG, "fake-hash-16")) == 1
        assert "in progress for fake-hash-16 covers every partition" in capsys.readouterr().err

        # its runs, as the daemon launches them: the backfill's tags on each partition's run
        first = embed_partition(database_url, f"shop@{indexed[0]}", backfill.tags, instance)
        assert first["model"] == "fake-hash-16" and first["switched"] is False
        assert models(database_url) == ("fake-hash-384", "fake-hash-16")
        last = embed_partition(database_url, f"shop@{indexed[1]}", backfill.tags, instance)
        assert last["switched"] is True
    assert models(database_url) == ("fake-hash-16", None)
    # a second tick of the sensor launches nothing more: every partition has its vectors
    assert tick_upgrade_sensor(database_url) == ([], [])


def test_prune_keeps_the_newest_snapshots_and_the_current_one(indexed, database_url, capsys):
    first, second = indexed
    assert main(["prune", "--keep", "1", "--dry-run"]) == 0
    assert "would delete 1 snapshots" in capsys.readouterr().out
    assert main(["prune", "--keep", "1"]) == 0
    with connect(database_url) as conn:
        shas = [r["commit_sha"] for r in conn.execute("SELECT commit_sha FROM snapshots")]
        orphans = conn.execute(
            "SELECT count(*) AS n FROM file_versions fv WHERE NOT EXISTS"
            " (SELECT 1 FROM snapshot_files sf WHERE sf.file_version_id = fv.id)"
        ).fetchone()
    assert shas == [second]
    assert orphans["n"] == 0
