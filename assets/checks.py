"""Asset check: the stored file list of a snapshot is the commit's, as git itself lists it."""

import subprocess
from typing import Any

from dagster import AssetCheckExecutionContext, AssetCheckResult, MetadataValue, asset_check

from assets.partitions import parse_partition_key
from assets.resources import IndexDatabase
from core.config import Settings
from core.database import connection
from indexing import repositories, snapshot_files

SHOWN_PATHS = 20  # differing paths named in the check's metadata


def paths_in_git(checkout: str, sha: str) -> set[str]:
    """Every path of the commit's tree, from `git ls-tree` itself (not the indexer's reader)."""
    out = subprocess.run(
        ["git", "-C", checkout, "ls-tree", "-r", "-z", "--name-only", "--full-tree", sha],
        check=True,
        capture_output=True,
    ).stdout
    return {p.decode("utf-8", errors="surrogateescape") for p in out.split(b"\0") if p}


def compare_with_git(url: str, settings: Settings, repository: str, sha: str) -> dict[str, Any]:
    """Counts of the commit's paths in git and in `snapshot_files`, and the paths that differ."""
    with connection(url) as conn:
        repo = repositories.get(conn, repository)
        stored = snapshot_files.paths_at(conn, repo.id, sha)
    in_git = paths_in_git(str(repositories.git_dir(settings, repo.origin)), sha)
    return {
        "git": len(in_git),
        "stored": len(stored),
        "missing": sorted(in_git - stored)[:SHOWN_PATHS],
        "unexpected": sorted(stored - in_git)[:SHOWN_PATHS],
    }


@asset_check(asset="source_files", description="Snapshot files are the paths of `git ls-tree`.")
def file_count_matches_git(
    context: AssetCheckExecutionContext, index_db: IndexDatabase
) -> AssetCheckResult:
    """Every path of the commit is in `snapshot_files` (indexed or skipped with a reason), and
    no other path is."""
    repository, sha = parse_partition_key(context.partition_key)
    found = compare_with_git(index_db.database_url, index_db.settings, repository, sha)
    return AssetCheckResult(
        passed=not found["missing"] and not found["unexpected"],
        metadata={k: MetadataValue.json(v) if isinstance(v, list) else v for k, v in found.items()},
    )
