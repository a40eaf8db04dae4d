"""Asset `source_files`: the file list of one commit, with what is skipped and why."""

import time
from collections import Counter
from datetime import UTC, datetime

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from indexing import git_source, repositories
from assets.code_index import effective_parser_version
from indexing.parsing.file_rules import skip_reason
from indexing.parsing.languages import detect_language
from assets.partitions import parse_partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from codeatlas.core.database import transaction

_MODE_SKIPS = {"120000": "symlink", "160000": "submodule"}


def classify(entry: git_source.TreeEntry, max_bytes: int) -> tuple[str | None, str | None]:
    """(language, skip reason) of a tree entry, from its mode, path and size alone."""
    if entry.mode in _MODE_SKIPS:
        return None, _MODE_SKIPS[entry.mode]
    language = detect_language(entry.path, None)
    reason = skip_reason(entry.path, entry.size, None, max_bytes=max_bytes)
    if reason is None and language is None:
        reason = "unsupported language"
    return language, reason


def record_source_files(db: IndexDatabase, repository_name: str, commit_sha: str) -> dict:
    """Create the snapshot row (if new) and replace its file list; return counts."""
    started = time.monotonic()
    url = db.database_url
    with transaction(url) as conn:
        repo = repositories.get(conn, repository_name)
    checkout = repositories.git_dir(db.settings, repo.origin)
    commit_sha = git_source.resolve_commit(checkout, commit_sha)
    entries = git_source.list_tree(checkout, commit_sha)
    committed_at = datetime.fromtimestamp(git_source.commit_time(checkout, commit_sha), UTC)
    version = effective_parser_version(db.settings)
    rows = []
    reasons: Counter[str] = Counter()
    for entry in entries:
        language, reason = classify(entry, db.settings.max_file_bytes)
        if reason:
            reasons[reason] += 1
        rows.append((entry.path, entry.blob_sha, language, entry.size, reason))
    with transaction(url) as conn:
        snapshot = conn.execute(
            "INSERT INTO snapshots (repository_id, commit_sha, ref, parser_version, committed_at)"
            " VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (repository_id, commit_sha) DO UPDATE SET ref = snapshots.ref"
            " RETURNING id",
            (repo.id, commit_sha, repo.default_branch, version, committed_at),
        ).fetchone()
        assert snapshot is not None
        # A commit's tree never changes, so re-running keeps each path's file version until a
        # newer parse replaces it: readers of a published snapshot never lose a file.
        conn.execute(
            "CREATE TEMP TABLE staged_files (path text, blob_sha text, language text,"
            " size_bytes bigint, skip_reason text) ON COMMIT DROP"
        )
        with conn.cursor().copy(
            "COPY staged_files (path, blob_sha, language, size_bytes, skip_reason) FROM STDIN"
        ) as copy:
            for row in rows:
                copy.write_row(row)
        conn.execute(
            "DELETE FROM snapshot_files sf WHERE sf.snapshot_id = %s AND NOT EXISTS"
            " (SELECT 1 FROM staged_files s WHERE s.path = sf.path)",
            (snapshot["id"],),
        )
        conn.execute(
            "INSERT INTO snapshot_files (snapshot_id, path, blob_sha, language, size_bytes,"
            " skip_reason) SELECT %s, path, blob_sha, language, size_bytes, skip_reason"
            " FROM staged_files ON CONFLICT (snapshot_id, path) DO UPDATE SET"
            " blob_sha = EXCLUDED.blob_sha, language = EXCLUDED.language,"
            " size_bytes = EXCLUDED.size_bytes, skip_reason = EXCLUDED.skip_reason,"
            " file_version_id = CASE WHEN EXCLUDED.skip_reason IS NULL"
            "  THEN snapshot_files.file_version_id END",
            (snapshot["id"],),
        )
        # files whose blob was parsed before at this parser version need no new parse
        conn.execute(
            "UPDATE snapshot_files sf SET file_version_id = fv.id FROM file_versions fv"
            " WHERE sf.snapshot_id = %s AND sf.skip_reason IS NULL"
            " AND sf.file_version_id IS DISTINCT FROM fv.id"
            " AND fv.repository_id = %s AND fv.blob_sha = sf.blob_sha"
            " AND fv.language = sf.language AND fv.parser_version = %s"
            " AND fv.parsed_at IS NOT NULL",
            (snapshot["id"], repo.id, version),
        )
        reused = conn.execute(
            "SELECT count(*) AS n FROM snapshot_files sf JOIN file_versions fv"
            " ON fv.id = sf.file_version_id WHERE sf.snapshot_id = %s"
            " AND fv.parser_version = %s AND fv.parsed_at IS NOT NULL",
            (snapshot["id"], version),
        ).fetchone()
    return {
        "snapshot_id": snapshot["id"],
        "commit": commit_sha,
        "files": len(rows),
        "indexable": len(rows) - sum(reasons.values()),
        "already_parsed": reused["n"] if reused else 0,
        "skipped": dict(reasons),
        "bytes": sum(r[3] for r in rows if r[4] is None),
        "seconds": round(time.monotonic() - started, 3),
    }


@asset(
    partitions_def=snapshot_partitions,
    group_name="indexing",
    description="The file list of the commit (git ls-tree), with skipped files and reasons.",
)
def source_files(context: AssetExecutionContext, index_db: IndexDatabase) -> MaterializeResult:
    """Record the commit's files in `snapshot_files`."""
    repository, sha = parse_partition_key(context.partition_key)
    stats = record_source_files(index_db, repository, sha)
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
