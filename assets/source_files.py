"""Asset `source_files`: the file list of one commit, with what is skipped and why."""

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from indexing.snapshot_files import record_source_files


@asset(
    partitions_def=snapshot_partitions,
    group_name="indexing",
    description="The file list of the commit (git ls-tree), with skipped files and reasons.",
)
def source_files(context: AssetExecutionContext, index_db: IndexDatabase) -> MaterializeResult:
    """Record the commit's files in `snapshot_files`."""
    repository, sha = parse_partition_key(context.partition_key)
    stats = record_source_files(index_db.database_url, index_db.settings, repository, sha)
    context.log.info(
        f"{repository}@{sha[:12]}: {stats['files']} files, {stats['indexable']} to index "
        f"({stats['already_parsed']} already parsed), skipped {stats['skipped']}"
    )
    return MaterializeResult(
        metadata={
            "files": stats["files"],
            "indexable_files": stats["indexable"],
            "already_parsed": stats["already_parsed"],
            "skipped": MetadataValue.json(stats["skipped"]),
            "bytes": stats["bytes"],
            "seconds": stats["seconds"],
        }
    )
