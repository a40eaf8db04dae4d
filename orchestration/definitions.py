"""The single Dagster entry point: assets, checks, jobs, sensors, schedules and resources."""

from __future__ import annotations

from dagster import Definitions, in_process_executor

from assets.checks import file_count_matches_git
from assets.code_index import code_index
from assets.resources import EmbeddingProvider, IndexDatabase
from assets.snapshot import snapshot
from assets.source_files import source_files
from assets.vectors import chunk_embeddings, every_chunk_has_a_vector
from orchestration.console_log import console_lines
from orchestration.jobs import index_snapshot_job
from orchestration.model_upgrade import embed_for_model_job, model_upgrade_sensor
from orchestration.schedules import nightly_freshness
from orchestration.sensors import local_commit_sensor, webhook_push_sensor


def build_definitions(index_db: IndexDatabase, embeddings: EmbeddingProvider) -> Definitions:
    """Definitions with the given resources (tests pass a fake embedder)."""
    return Definitions(
        assets=[source_files, code_index, snapshot, chunk_embeddings],
        asset_checks=[file_count_matches_git, every_chunk_has_a_vector],
        jobs=[index_snapshot_job, embed_for_model_job],
        sensors=[webhook_push_sensor, local_commit_sensor, model_upgrade_sensor],
        schedules=[nightly_freshness],
        resources={"index_db": index_db, "embeddings": embeddings},
        loggers={"console": console_lines},
        # also the runs of asset backfills launched from the UI: one process per run, as every job
        executor=in_process_executor,
    )


defs = build_definitions(IndexDatabase(), EmbeddingProvider())
