"""How long working-tree files (`index_file`) live and how many one principal may keep.

An overlay row expires `overlay_ttl_hours` after it was indexed (its `expires_at`, which every
read checks) and is dropped by the server's sweep, or at once when its principal calls
`forget_file`, and the version a new `index_file` of the same path replaces goes in that call's
transaction; the file version behind it goes too unless a snapshot or another overlay uses it
(with its chunks, symbols, edges and postings; vectors of content nothing else uses as well).
The owner of the table `overlay_files` (docs/architecture.md, "One owner per table"): every
statement that writes it is a function here.
"""

from __future__ import annotations

from core.database import Row
from core.errors import CodeatlasError
from core.sql_files import statement
from indexing import chunk_embeddings, storage
from mcp_app.limits import ServerLimits
from retrieval.principals import DbConnection


class OverlayQuotaError(CodeatlasError):
    """The principal already keeps as many working-tree files as it may."""


def check_quota(
    conn: DbConnection, principal_id: int, repository_id: int, path: str, limits: ServerLimits
) -> None:
    """Refuse a new overlay path past the per-principal quota (replacing a path is free)."""
    row = conn.execute(
        statement("overlay_files", "quota"),
        {"repository_id": repository_id, "path": path, "principal_id": principal_id},
    ).fetchone()
    assert row is not None
    if not row["replacing"] and row["n"] >= limits.overlay_max_files:
        raise OverlayQuotaError(
            f"you already keep {row['n']} working-tree files (the limit is "
            f"{limits.overlay_max_files}); remove some with forget_file, or wait: each is "
            f"dropped {limits.overlay_ttl_hours:g} hours after it was indexed"
        )


def keep(
    conn: DbConnection,
    repository_id: int,
    principal_id: int,
    path: str,
    file_version_id: int,
    ttl_seconds: float,
) -> None:
    """The principal's overlay of `path` is this file version, for `ttl_seconds` from now; the
    version it replaces goes in the caller's transaction, with its chunks, postings and vectors,
    unless something else still uses it (issue 47: five index_file calls on one path left four
    versions behind, whose postings changed every principal's lexical results)."""
    where = {"repository_id": repository_id, "principal_id": principal_id, "path": path}
    replaced = conn.execute(statement("overlay_files", "lock_path"), where).fetchone()
    conn.execute(
        statement("overlay_files", "keep"),
        {**where, "file_version_id": file_version_id, "ttl_seconds": ttl_seconds},
    )
    if replaced is not None and replaced["file_version_id"] != file_version_id:
        _drop_unused_versions(conn, [replaced["file_version_id"]])


def expiry(conn: DbConnection, repository_id: int, principal_id: int, path: str) -> Row | None:
    """When the principal's overlay of `path` expires (column `at`), if it has one."""
    return conn.execute(
        statement("overlay_files", "expiry"),
        {"repository_id": repository_id, "principal_id": principal_id, "path": path},
    ).fetchone()


def forget(
    conn: DbConnection, principal_id: int, repository_id: int, path: str | None
) -> list[str]:
    """Drop the principal's overlay of `path` (None: all its overlays in the repository)."""
    with conn.transaction():
        rows = conn.execute(
            statement("overlay_files", "forget"),
            {"principal_id": principal_id, "repository_id": repository_id, "path": path},
        ).fetchall()
        _drop_unused_versions(conn, [r["file_version_id"] for r in rows])
    return sorted(r["path"] for r in rows)


def forget_principal(conn: DbConnection, principal_id: int) -> int:
    """Drop every overlay of the principal, in every repository, with the file versions only
    they used; how many (`codeatlas principal delete`)."""
    with conn.transaction():
        rows = conn.execute(
            statement("overlay_files", "forget_principal"), {"principal_id": principal_id}
        ).fetchall()
        _drop_unused_versions(conn, [r["file_version_id"] for r in rows])
    return len(rows)


def expire(conn: DbConnection) -> int:
    """Drop every overlay past its `expires_at` (reads stop seeing it at that moment already);
    returns how many were dropped."""
    with conn.transaction():
        rows = conn.execute(statement("overlay_files", "expire")).fetchall()
        _drop_unused_versions(conn, [r["file_version_id"] for r in rows])
    return len(rows)


def _drop_unused_versions(conn: DbConnection, file_version_ids: list[int]) -> None:
    """Delete these file versions when nothing uses them any more (an indexing run holding one
    is skipped: its lock is never waited for)."""
    if not file_version_ids:
        return
    ids = storage.lock_unused_file_versions(conn, sorted(set(file_version_ids)))
    if not ids:
        return
    hashes = storage.content_hashes_of(conn, ids)
    storage.delete_file_versions(conn, ids)
    # vectors are shared by content: only those no chunk of any repository uses any more go
    chunk_embeddings.delete_unused_among(conn, hashes)
