"""Snapshots: one row per indexed commit of a repository (building, then ready).

The owner of the table `snapshots` (docs/architecture.md, "One owner per table"): every
statement that writes it is a function here.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from core.database import DictConnection
from core.sql_files import statement


def upsert(
    conn: DictConnection,
    repository_id: int,
    commit_sha: str,
    ref: str | None,
    parser_version: str,
    committed_at: datetime,
) -> int:
    """The id of the commit's snapshot, created once; re-running a commit keeps it."""
    row = conn.execute(
        statement("snapshots", "upsert"),
        {
            "repository_id": repository_id,
            "commit_sha": commit_sha,
            "ref": ref,
            "parser_version": parser_version,
            "committed_at": committed_at,
        },
    ).fetchone()
    assert row is not None
    return row["id"]


def id_of(conn: DictConnection, repository_id: int, commit_sha: str) -> int | None:
    """The id of the repository's snapshot of `commit_sha`, if one was started."""
    row = conn.execute(
        statement("snapshots", "id_of"),
        {"repository_id": repository_id, "commit_sha": commit_sha},
    ).fetchone()
    return row["id"] if row else None


def commit_of(conn: DictConnection, snapshot_id: int) -> str | None:
    """The commit of a snapshot."""
    row = conn.execute(statement("snapshots", "commit_of"), {"snapshot_id": snapshot_id}).fetchone()
    return row["commit_sha"] if row else None


def stats_of(conn: DictConnection, repository: str, commit_sha: str) -> dict:
    """The statistics publishing stored for a repository's commit ({} before publishing)."""
    row = conn.execute(
        statement("snapshots", "stats_of"), {"repository": repository, "commit_sha": commit_sha}
    ).fetchone()
    return (row or {}).get("stats") or {}


def published_file_list(
    conn: DictConnection, snapshot_id: int, parser_version: str, max_file_bytes: int
) -> dict[str, Any] | None:
    """(id, commit_sha) of the snapshot if it is published at this parser version and file
    size limit (its file list is then final: every indexable path has its parsed file version),
    else None."""
    return conn.execute(
        statement("snapshots", "published_file_list"),
        {
            "snapshot_id": snapshot_id,
            "parser_version": parser_version,
            "max_file_bytes": max_file_bytes,
        },
    ).fetchone()


def published_stats(conn: DictConnection, snapshot_id: int) -> dict[str, Any]:
    """The statistics publishing stored for a snapshot ({} unless it is ready)."""
    row = conn.execute(
        statement("snapshots", "published_stats"), {"snapshot_id": snapshot_id}
    ).fetchone()
    return (row or {}).get("stats") or {}


def previous_with_vectors(conn: DictConnection, snapshot_id: int, model: str) -> int | None:
    """The snapshot that was current when `snapshot_id` was published, if every chunk content of
    it has a vector for `model` (`mark_vectors_complete`): then only the file versions that
    entered since need vectors."""
    row = conn.execute(
        statement("snapshots", "previous_with_vectors"),
        {"snapshot_id": snapshot_id, "model": model},
    ).fetchone()
    return row["id"] if row else None


def has_vectors(conn: DictConnection, snapshot_id: int, model: str) -> bool:
    """Whether the snapshot was marked as having a vector for every chunk content (`model`)."""
    row = conn.execute(
        statement("snapshots", "has_vectors"), {"snapshot_id": snapshot_id, "model": model}
    ).fetchone()
    return row is not None


def mark_vectors_complete(conn: DictConnection, snapshot_id: int, model: str) -> None:
    """Every chunk content of the snapshot has a vector for `model` (its embedding finished);
    forgotten when it is published again or the model's vectors are dropped."""
    conn.execute(
        statement("snapshots", "mark_vectors_complete"),
        {"snapshot_id": snapshot_id, "model": model},
    )


def forget_vectors(conn: DictConnection, model: str) -> None:
    """No snapshot counts as having `model`'s vectors any more (they are being dropped)."""
    conn.execute(statement("snapshots", "forget_vectors"), {"model": model})


def mark_ready(conn: DictConnection, snapshot_id: int, parser_version: str, stats) -> None:
    """The snapshot is complete at this parser version, with its statistics (publishing)."""
    conn.execute(
        statement("snapshots", "mark_ready"),
        {
            "parser_version": parser_version,
            "stats": json.dumps(stats),
            "snapshot_id": snapshot_id,
        },
    )


def beyond_newest(conn: DictConnection, keep: int) -> list[int]:
    """Snapshots older than the newest `keep` of their repository, never the current one nor
    one still building."""
    rows = conn.execute(statement("snapshots", "beyond_newest"), {"keep": keep}).fetchall()
    return [r["id"] for r in rows]


def delete(conn: DictConnection, snapshot_ids: list[int]) -> None:
    """Delete snapshots (their file lists go with them)."""
    conn.execute(statement("snapshots", "delete"), {"snapshot_ids": snapshot_ids})


def ready_ids(conn: DictConnection, repository_id: int) -> list[int]:
    """Ids of the repository's ready snapshots, oldest first."""
    rows = conn.execute(
        statement("snapshots", "ready_ids"), {"repository_id": repository_id}
    ).fetchall()
    return [r["id"] for r in rows]


def searchable_of(conn: DictConnection, repository: str) -> list[dict[str, Any]]:
    """id and commit_sha of the repository's ready snapshots and its current one, newest first."""
    return conn.execute(
        statement("snapshots", "searchable_of"), {"repository": repository}
    ).fetchall()


def ready_upgrading_to(
    conn: DictConnection, model: str, names: list[str] | None = None
) -> list[dict[str, Any]]:
    """name and commit_sha of every ready snapshot of the repositories (all when None) that are
    upgrading to `model`, by name then age."""
    return conn.execute(
        statement("snapshots", "ready_upgrading_to"), {"model": model, "names": names}
    ).fetchall()
