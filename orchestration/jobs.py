"""Jobs: index one snapshot partition (all assets), or only refresh its vectors."""

from __future__ import annotations

from dagster import AssetSelection, define_asset_job, in_process_executor

from assets.partitions import snapshot_partitions

index_snapshot_job = define_asset_job(
    name="index_snapshot",
    selection=AssetSelection.groups("indexing"),
    partitions_def=snapshot_partitions,
    # one process per run: steps share the loaded model and skip ~40 s of subprocess start-up
    executor_def=in_process_executor,
    description="Index one <repository>@<commit>: files, chunks, symbols, edges, publish, vectors.",
)
