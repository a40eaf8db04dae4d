"""The asset checks: the file list compared with `git ls-tree` run on its own, and every chunk
with a vector; both evaluated through Dagster on an indexed commit, each failing on its own bad
state."""

from __future__ import annotations

from dagster import (
    AssetSelection,
    DagsterInstance,
    Definitions,
    RunsFilter,
    asset,
    define_asset_job,
)

from assets.checks import compare_with_git, file_count_matches_git, paths_in_git
from assets.code_index import code_index
from assets.partitions import partition_key, snapshot_partitions
from assets.resources import EmbeddingProvider, IndexDatabase
from assets.snapshot import snapshot
from assets.source_files import source_files
from assets.vectors import chunk_embeddings, every_chunk_has_a_vector
from core.config import load_settings
from core.database import transaction
from orchestration.runtime.run_tags import PARTITION_TAG
from tests.assets.pipeline_helpers import register, run_index
from tests.retrieval.indexing import index_repository


def test_git_lists_every_path_of_the_commit_including_ones_the_indexer_skips(git_repo):
    git_repo.write("shop/refunds.py", "def refund():\n    pass\n")
    git_repo.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00")
    git_repo.write("notes with spaces.txt", "hello\n")
    sha = git_repo.commit()
    assert paths_in_git(str(git_repo.path), sha) == {
        "shop/refunds.py",
        "assets/logo.png",
        "notes with spaces.txt",
    }


def test_an_indexed_commit_matches_git_and_a_lost_row_is_named(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", "def refund():\n    pass\n")
    git_repo.write("shop/orders.py", "def order():\n    pass\n")
    git_repo.write("README.md", "# shop\n")
    git_repo.commit()
    sha = index_repository(database_url, git_repo.path, "shop")
    settings = load_settings()

    clean = compare_with_git(database_url, settings, "shop", sha)
    assert clean == {"git": 3, "stored": 3, "missing": [], "unexpected": []}

    with transaction(database_url) as conn:
        conn.execute("DELETE FROM snapshot_files WHERE path = 'shop/orders.py'")
        conn.execute(
            "INSERT INTO snapshot_files (snapshot_id, path, blob_sha, size_bytes, skip_reason)"
            " SELECT snapshot_id, 'ghost.py', blob_sha, 1, 'test' FROM snapshot_files LIMIT 1"
        )
    broken = compare_with_git(database_url, settings, "shop", sha)
    assert broken["missing"] == ["shop/orders.py"]
    assert broken["unexpected"] == ["ghost.py"]


@asset(partitions_def=snapshot_partitions)
def _partition() -> None:
    """Nothing: the checks' job selects it to be a job of one snapshot partition (Dagster
    cannot infer a partitioning from checks alone), so no product asset re-runs and repairs
    the bad state."""


def _evaluate_checks(url: str, instance: DagsterInstance, key: str) -> dict[str, bool]:
    """Run both asset checks of `key` through Dagster, without re-running the assets they
    check: whether each passed, by name."""
    checks = [file_count_matches_git, every_chunk_has_a_vector]
    selection = AssetSelection.assets(_partition) | AssetSelection.checks(*checks)
    defs = Definitions(
        assets=[source_files, code_index, snapshot, chunk_embeddings, _partition],
        asset_checks=checks,
        jobs=[define_asset_job("checks", selection)],
        resources={
            "index_db": IndexDatabase(url=url),
            "embeddings": EmbeddingProvider(provider="fake"),
        },
    )
    result = defs.resolve_job_def("checks").execute_in_process(instance=instance, partition_key=key)
    return {e.check_name: e.passed for e in result.get_asset_check_evaluations()}


def test_the_checks_pass_on_an_indexed_commit_and_each_fails_on_its_own_bad_state(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", "def refund():\n    pass\n")
    git_repo.write("shop/orders.py", "def order():\n    pass\n")
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    instance = DagsterInstance.ephemeral()
    run_index(database_url, "shop", sha, instance=instance)
    key = partition_key("shop", sha)
    both = {"file_count_matches_git": True, "every_chunk_has_a_vector": True}
    assert _evaluate_checks(database_url, instance, key) == both

    with transaction(database_url) as conn:  # a vector lost: the coverage check fails alone
        conn.execute(
            "DELETE FROM chunk_embeddings WHERE content_hash IN (SELECT c.content_hash"
            " FROM code_chunks c JOIN snapshot_files sf USING (file_version_id)"
            " WHERE sf.path = 'shop/refunds.py')"
        )
    assert _evaluate_checks(database_url, instance, key) == {
        **both,
        "every_chunk_has_a_vector": False,
    }

    with transaction(database_url) as conn:  # a path lost: the file-list check fails too
        conn.execute("DELETE FROM snapshot_files WHERE path = 'shop/orders.py'")
    assert _evaluate_checks(database_url, instance, key) == {
        "file_count_matches_git": False,
        "every_chunk_has_a_vector": False,
    }


def test_the_run_tag_of_a_partition_is_the_one_dagster_writes(settings_env, database_url, git_repo):
    git_repo.write("shop/refunds.py", "def refund():\n    pass\n")
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    instance = DagsterInstance.ephemeral()
    run_index(database_url, "shop", sha, instance=instance)
    (run,) = instance.get_runs(RunsFilter(tags={PARTITION_TAG: partition_key("shop", sha)}))
    assert run.job_name == "index_snapshot"
