"""Publishing a snapshot: mark it ready and, if newest on its branch, make it current."""

from __future__ import annotations

from core.config import Settings
from core.database import DictConnection
from core.terms import LEXICAL_VERSION
from indexing import git_source, lexical_index, repositories, snapshot_files, snapshots


class SnapshotIncompleteError(RuntimeError):
    """Some indexable file of the snapshot has no parsed file version yet."""


def publish(
    conn: DictConnection,
    settings: Settings,
    repository_name: str,
    commit_sha: str,
    parser_version: str,
    embedding_model: str,
) -> dict:
    """In one transaction: check completeness, mark ready, switch current if newest."""
    with conn.transaction():
        repo_row = repositories.lock(conn, repository_name)
        if repo_row is None:
            repositories.get(conn, repository_name)  # raises the friendly error
        assert repo_row is not None
        snap_id = snapshots.id_of(conn, repo_row["id"], commit_sha)
        if snap_id is None:
            raise SnapshotIncompleteError(f"{repository_name}@{commit_sha} has no file list yet")
        missing = snapshot_files.unparsed_count(conn, snap_id, parser_version, LEXICAL_VERSION)
        if missing and missing["n"]:
            raise SnapshotIncompleteError(
                f"{repository_name}@{commit_sha[:12]}: {missing['n']} files are not parsed yet"
            )
        # its files' postings, so it is searchable once ready (those of other runs' files too)
        lexical_index.post_repository(conn, repo_row["id"])
        stats = _snapshot_stats(conn, snap_id, repo_row["current_snapshot_id"])
        # the file list's size limit: a later snapshot starts from this one's list only if the
        # limit is the same (indexing.snapshot_files.record_source_files)
        stats["max_file_bytes"] = settings.max_file_bytes
        if repo_row["current_snapshot_id"] not in (None, snap_id):
            # its vectors spare this snapshot's first embedding (indexing.embedding_step)
            stats["previous_snapshot_id"] = repo_row["current_snapshot_id"]
        snapshots.mark_ready(conn, snap_id, parser_version, stats)
        becomes_current = _is_newest(conn, settings, repo_row, commit_sha)
        if becomes_current:
            repositories.make_current(conn, repo_row["id"], snap_id, embedding_model)
            lexical_index.refresh_corpus_stats(conn, repo_row["id"], snap_id)
    return {
        "snapshot_id": snap_id,
        "repository_id": repo_row["id"],
        "current": becomes_current,
        **(stats or {}),
    }


def _snapshot_stats(conn: DictConnection, snap_id: int, base_id: int | None) -> dict:
    """The snapshot's files, indexed files, chunks and symbols: from those stored for the
    repository's current snapshot plus the file versions that differ, or counted in full."""
    base = snapshots.published_stats(conn, base_id) if base_id and base_id != snap_id else {}
    if isinstance(base.get("chunks"), int) and isinstance(base.get("symbols"), int):
        assert base_id is not None
        row = snapshot_files.stats_from_base(
            conn,
            {
                "new": snap_id,
                "old": base_id,
                "base_chunks": base["chunks"],
                "base_symbols": base["symbols"],
            },
        )
    else:
        row = snapshot_files.stats(conn, snap_id)
    assert row is not None
    return dict(row)


def _is_newest(conn: DictConnection, settings: Settings, repo_row: dict, sha: str) -> bool:
    """Current when nothing is current yet, when it is the branch head, when it descends from
    current, or when current's commit is not in the checkout (a history rewritten, another
    repository under the name: nothing to compare with)."""
    if repo_row["current_snapshot_id"] is None:
        return True
    current = snapshots.commit_of(conn, repo_row["current_snapshot_id"])
    if current is None or current == sha:
        return True
    checkout = repositories.git_dir(settings, repo_row["origin"])
    branch = repo_row["default_branch"]
    if branch:
        try:
            if git_source.resolve_commit(checkout, branch) == sha:
                return True
        except git_source.GitError:
            pass
    if not git_source.has_commit(checkout, current):
        return True
    return git_source.is_ancestor(checkout, current, sha)
