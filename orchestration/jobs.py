"""Jobs: index one snapshot partition (all assets), or only refresh its vectors."""

from __future__ import annotations

from dagster import AssetSelection, PartitionedConfig, define_asset_job, in_process_executor

from assets.partitions import parse_partition_key, snapshot_partitions
from orchestration.runtime.run_tags import BACKGROUND_PRIORITY, PRIORITY_TAG, PUSH_PRIORITY

__all__ = ["BACKGROUND_PRIORITY", "PRIORITY_TAG", "PUSH_PRIORITY", "index_snapshot_job"]
REPOSITORY_TAG = "codeatlas/repository"  # dagster.yaml allows one run per repository at a time


def _partition_tags(key: str) -> dict[str, str]:
    return {REPOSITORY_TAG: parse_partition_key(key)[0]}


index_snapshot_job = define_asset_job(
    name="index_snapshot",
    selection=AssetSelection.groups("indexing"),
    config=PartitionedConfig(
        partitions_def=snapshot_partitions,
        run_config_for_partition_key_fn=lambda _key: {},
        tags_for_partition_key_fn=_partition_tags,
    ),
    tags={PRIORITY_TAG: BACKGROUND_PRIORITY},
    # one process per run: steps share the loaded model and skip ~40 s of subprocess start-up
    # (runs spread over machines whole, through the celery run launcher: README "Scaling out")
    executor_def=in_process_executor,
    description="Index one <repository>@<commit>: files, chunks, symbols, edges, publish, vectors.",
)
