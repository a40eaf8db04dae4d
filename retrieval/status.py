"""Freshness report per repository: current commit, branch head, lag, models, coverage."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict  # pydantic reads it on Python 3.11

from core.config import Settings
from indexing import repositories
from retrieval.principals import DbConnection


def _branch_head(
    settings: Settings, origin: str, branch: str | None
) -> tuple[str | None, int | None]:
    """(sha, commit time) of the tracked branch in the local clone or mirror, if reachable."""
    from indexing import git_source, repositories

    if not branch:
        return None, None
    try:
        checkout: Path = repositories.git_dir(settings, origin)
        sha = git_source.resolve_commit(checkout, branch)
        return sha, git_source.commit_time(checkout, sha)
    except Exception:  # noqa: BLE001 - a missing clone only makes the report partial
        return None, None


def _lag_commits(settings: Settings, origin: str, old: str, new: str) -> int | None:
    from indexing import git_source, repositories

    try:
        out = git_source.git(
            repositories.git_dir(settings, origin), "rev-list", "--count", f"{old}..{new}"
        )
        return int(out.decode().strip())
    except Exception:  # noqa: BLE001
        return None


def repository_status(
    conn: DbConnection,
    settings: Settings,
    only: str | None = None,
    repository_ids: list[int] | None = None,
) -> list[dict[str, Any]]:
    """One dict per repository (optionally one name, or only the given ids)."""
    rows = repositories.status_rows(conn, only, repository_ids)
    report: list[dict[str, Any]] = []
    for row in rows:
        head, head_time = _branch_head(settings, row["origin"], row["default_branch"])
        current = row["current_commit"]
        lag_commits = None
        lag_seconds = None
        if head and current:
            lag_commits = (
                0 if head == current else _lag_commits(settings, row["origin"], current, head)
            )
            if head != current and head_time and row["committed_at"]:
                lag_seconds = max(0, int(head_time - row["committed_at"].timestamp()))
            elif head == current:
                lag_seconds = 0
        coverage: dict[str, str] = {}
        for model in filter(
            None, {row["active_embedding_model"], row["upgrading_embedding_model"]}
        ):
            coverage[model] = _coverage(conn, row["current_snapshot_id"], model)
        report.append(
            {
                "name": row["name"],
                "origin": row["origin"],
                "branch": row["default_branch"],
                "current_commit": current,
                "indexed_at": row["ready_at"].astimezone(UTC).isoformat()
                if row["ready_at"]
                else None,
                "branch_head": head,
                "lag_commits": lag_commits,
                "lag_seconds": lag_seconds,
                "last_push": row["last_push"].isoformat() if row["last_push"] else None,
                "last_push_status": row["last_push_status"],
                "pending_pushes": row["pending_pushes"],
                "active_model": row["active_embedding_model"],
                "upgrading_model": row["upgrading_embedding_model"],
                "coverage": coverage,
                "snapshots": row["snapshots"],
                "checked_at": datetime.now(UTC).isoformat(),
            }
        )
    return report


def _coverage(conn: DbConnection, snapshot_id: int | None, model: str) -> str:
    from indexing.embedding_step import coverage

    if snapshot_id is None:
        return "no snapshot"
    embedded, total = coverage(conn, snapshot_id, model)
    pct = 100.0 * embedded / total if total else 100.0
    return f"{embedded}/{total} ({pct:.1f}%)"


class ReplicaLag(TypedDict):
    """How far a streaming replica trails its primary."""

    behind_bytes: int  # the primary's WAL not replayed yet
    lag_seconds: float  # age of the last replayed commit; 0 when nothing is left to replay
    replayed_at: str | None  # when that commit was made on the primary (ISO 8601)


def replica_lag(replica: DbConnection, primary: DbConnection) -> ReplicaLag | None:
    """How far reads on `replica` trail `primary`, or None when `replica` is no replica.

    `behind_bytes` is the primary's WAL not yet replayed; the replica holds every transaction
    committed up to `replayed_at`, so `lag_seconds` (its age, 0 when nothing is left to replay)
    bounds how stale an answer can be.
    """
    # the primary's position first: what the replica replays meanwhile only shrinks the gap
    wal = primary.execute("SELECT pg_current_wal_lsn()::text AS lsn").fetchone()
    assert wal is not None
    row = replica.execute(
        "SELECT pg_is_in_recovery() AS replica, pg_last_xact_replay_timestamp() AS replayed_at,"
        " greatest(0, pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn()))::bigint AS behind,"
        " extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) AS age",
        (wal["lsn"],),
    ).fetchone()
    if row is None or not row["replica"]:
        return None
    behind = int(row["behind"] or 0)
    return {
        "behind_bytes": behind,
        "lag_seconds": round(max(0.0, float(row["age"] or 0.0)), 3) if behind else 0.0,
        "replayed_at": row["replayed_at"].astimezone(UTC).isoformat()
        if row["replayed_at"]
        else None,
    }


def primary_commits(primary: DbConnection, repository_ids: list[int]) -> dict[str, str | None]:
    """Repository name -> the commit the primary serves (to compare with a replica's)."""
    rows = repositories.current_commits(primary, repository_ids)
    return {r["name"]: r["commit_sha"] for r in rows}
