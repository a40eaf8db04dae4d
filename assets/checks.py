"""Asset checks: the stored snapshot matches git, and nothing is orphaned."""

from dagster import AssetCheckExecutionContext, AssetCheckResult, asset_check

from indexing import git_source, repositories
from assets.partitions import parse_partition_key
from assets.resources import IndexDatabase
from codeatlas.core.database import connect


@asset_check(asset="source_files", description="Snapshot file count equals `git ls-tree`.")
def file_count_matches_git(
    context: AssetCheckExecutionContext, index_db: IndexDatabase
) -> AssetCheckResult:
    """Every path of the commit is in `snapshot_files`, indexed or skipped with a reason."""
    repository, sha = parse_partition_key(context.run.tags["dagster/partition"])
    conn = connect(index_db.database_url)
    try:
        repo = repositories.get(conn, repository)
        row = conn.execute(
            "SELECT count(*) AS n FROM snapshot_files sf JOIN snapshots s ON s.id = sf.snapshot_id"
            " WHERE s.repository_id = %s AND s.commit_sha = %s",
            (repo.id, sha),
        ).fetchone()
    finally:
        conn.close()
    in_git = len(git_source.list_tree(repositories.git_dir(index_db.settings, repo.origin), sha))
    stored = row["n"] if row else 0
    return AssetCheckResult(passed=stored == in_git, metadata={"git": in_git, "stored": stored})


ORPHAN_QUERIES = {
    "chunks_without_file_version": "SELECT count(*) AS n FROM code_chunks c"
    " LEFT JOIN file_versions fv ON fv.id = c.file_version_id WHERE fv.id IS NULL",
    "unparsed_file_versions_in_ready_snapshots": "SELECT count(*) AS n FROM snapshot_files sf"
    " JOIN snapshots s ON s.id = sf.snapshot_id JOIN file_versions fv"
    " ON fv.id = sf.file_version_id WHERE s.status = 'ready' AND fv.parsed_at IS NULL",
    "chunks_with_symbol_of_other_file": "SELECT count(*) AS n FROM code_chunks c"
    " JOIN code_symbols s ON s.id = c.symbol_id WHERE s.file_version_id <> c.file_version_id",
}


@asset_check(asset="snapshot", description="No orphan or half-written rows anywhere.")
def no_orphan_rows(index_db: IndexDatabase) -> AssetCheckResult:
    """Chunks, symbols and file versions all hang together."""
    conn = connect(index_db.database_url)
    try:
        counts = {name: conn.execute(sql).fetchone()["n"] for name, sql in ORPHAN_QUERIES.items()}
    finally:
        conn.close()
    return AssetCheckResult(passed=not any(counts.values()), metadata=counts)
