"""Jobs: index one snapshot partition (all assets), or only refresh its vectors."""

from __future__ import annotations

from dagster import AssetSelection, define_asset_job

from assets.partitions import snapshot_partitions

index_snapshot_job = define_asset_job(
    name="index_snapshot",
    selection=AssetSelection.groups("indexing"),
    partitions_def=snapshot_partitions,
    description="Index one <repository>@<commit>: files, chunks, symbols, edges, publish, vectors.",
)
