"""How long working-tree files (`index_file`) live and how many one principal may keep.

An overlay row expires `overlay_ttl_hours` after it was indexed (its `expires_at`, which every
read checks) and is dropped by the server's sweep, or at once when its principal calls
`forget_file`; the file version behind it goes too unless a snapshot or another overlay uses it
(with its chunks, symbols, edges and postings; vectors of content nothing else uses as well).
"""

from __future__ import annotations

from codeatlas.core.errors import CodeatlasError
from mcp_app.limits import ServerLimits
from retrieval.principals import DbConnection


class OverlayQuotaError(CodeatlasError):
    """The principal already keeps as many working-tree files as it may."""


def check_quota(
    conn: DbConnection, principal_id: int, repository_id: int, path: str, limits: ServerLimits
) -> None:
    """Refuse a new overlay path past the per-principal quota (replacing a path is free)."""
    row = conn.execute(
        "SELECT count(*) AS n, bool_or(repository_id = %s AND path = %s) AS replacing"
        " FROM overlay_files WHERE principal_id = %s",
        (repository_id, path, principal_id),
    ).fetchone()
    assert row is not None
    if not row["replacing"] and row["n"] >= limits.overlay_max_files:
        raise OverlayQuotaError(
            f"you already keep {row['n']} working-tree files (the limit is "
            f"{limits.overlay_max_files}); remove some with forget_file, or wait: each is "
            f"dropped {limits.overlay_ttl_hours:g} hours after it was indexed"
        )


def forget(
    conn: DbConnection, principal_id: int, repository_id: int, path: str | None
) -> list[str]:
    """Drop the principal's overlay of `path` (None: all its overlays in the repository)."""
    with conn.transaction():
        rows = conn.execute(
            "DELETE FROM overlay_files WHERE principal_id = %s AND repository_id = %s"
            " AND (%s::text IS NULL OR path = %s) RETURNING path, file_version_id",
            (principal_id, repository_id, path, path),
        ).fetchall()
        _drop_unused_versions(conn, [r["file_version_id"] for r in rows])
    return sorted(r["path"] for r in rows)


def expire(conn: DbConnection) -> int:
    """Drop every overlay past its `expires_at` (reads stop seeing it at that moment already);
    returns how many were dropped."""
    with conn.transaction():
        rows = conn.execute(
            "DELETE FROM overlay_files WHERE expires_at <= now() RETURNING file_version_id"
        ).fetchall()
        _drop_unused_versions(conn, [r["file_version_id"] for r in rows])
    return len(rows)


def _drop_unused_versions(conn: DbConnection, file_version_ids: list[int]) -> None:
    """Delete these file versions when nothing uses them any more (an indexing run holding one
    is skipped: its lock is never waited for)."""
    if not file_version_ids:
        return
    unused = conn.execute(
        "SELECT fv.id, fv.repository_id FROM file_versions fv WHERE fv.id = ANY(%s)"
        " AND NOT EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.file_version_id = fv.id)"
        " AND NOT EXISTS (SELECT 1 FROM overlay_files o WHERE o.file_version_id = fv.id)"
        " FOR UPDATE SKIP LOCKED",
        (sorted(set(file_version_ids)),),
    ).fetchall()
    if not unused:
        return
    ids = [r["id"] for r in unused]
    hashes = conn.execute(
        "SELECT DISTINCT c.content_hash FROM code_chunks c WHERE c.file_version_id = ANY(%s)",
        (ids,),
    ).fetchall()
    conn.execute("DELETE FROM file_versions WHERE id = ANY(%s)", (ids,))
    # vectors are shared by content: only those no chunk of any repository uses any more go
    conn.execute(
        "DELETE FROM chunk_embeddings e WHERE e.content_hash = ANY(%s)"
        " AND NOT EXISTS (SELECT 1 FROM code_chunks c WHERE c.content_hash = e.content_hash)",
        ([h["content_hash"] for h in hashes],),
    )
