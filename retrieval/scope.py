"""What a principal may see: repositories at a snapshot, with the principal's overlay on top.

Every retrieval query starts with `VISIBLE_FILES`, which re-checks the principal's grants in SQL,
so a scope built for one principal can never read another's repositories or overlay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from codeatlas.core.errors import CodeatlasError
from retrieval.principals import DbConnection, Principal, Row, unreadable_repository

_COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")

# CTEs `scope` (one row per repository at its snapshot) and `files` (path -> file version,
# "commit" or "working-tree"). Parameters: scope_repos, scope_snapshots, scope_overlay,
# principal_id.
_VISIBLE_TEMPLATE: LiteralString = """{candidates}
scope AS (
    SELECT r.id AS repository_id, r.name AS repository, s.id AS snapshot_id,
           s.commit_sha, x.overlay
    FROM unnest(%(scope_repos)s::bigint[], %(scope_snapshots)s::bigint[],
                %(scope_overlay)s::boolean[]) AS x(repository_id, snapshot_id, overlay)
    JOIN repositories r ON r.id = x.repository_id
    -- (CASE: the planner would multiply the two equalities' selectivities and expect one
    -- repository whatever the scope, then scan the files once per candidate)
    JOIN snapshots s ON s.id = x.snapshot_id
        AND CASE WHEN s.repository_id = r.id THEN s.status = 'ready' ELSE false END
    JOIN principals p ON p.id = %(principal_id)s
    WHERE p.all_repositories OR EXISTS (
        SELECT 1 FROM repository_grants g WHERE g.principal_id = p.id AND g.repository_id = r.id)
),
files AS {files_materialized}(
    SELECT sc.repository_id, sc.repository, sc.commit_sha, sf.path, sf.file_version_id,
           'commit'::text AS source
    FROM scope sc JOIN {snapshot_files} sf ON sf.snapshot_id = sc.snapshot_id
    WHERE sf.file_version_id IS NOT NULL
      AND NOT (sc.overlay AND EXISTS (
          SELECT 1 FROM overlay_files o WHERE o.repository_id = sc.repository_id
          AND o.principal_id = %(principal_id)s AND o.path = sf.path
          AND o.expires_at > now()))
    UNION ALL
    SELECT sc.repository_id, sc.repository, sc.commit_sha, o.path, o.file_version_id,
           'working-tree'::text
    FROM scope sc JOIN overlay_files o
      ON o.repository_id = sc.repository_id AND o.principal_id = %(principal_id)s
    -- expired files are invisible at once, before the server's sweep deletes them
    WHERE sc.overlay AND o.expires_at > now(){overlay_filter}
)
"""
VISIBLE_FILES: LiteralString = _VISIBLE_TEMPLATE.format(
    candidates="", snapshot_files="snapshot_files", overlay_filter="", files_materialized=""
)


def visible_files_among(file_versions: LiteralString) -> LiteralString:
    """`VISIBLE_FILES` with `files` holding only the file versions that `file_versions` (a
    SELECT of one file_version_id column, e.g. from an earlier CTE) returns.

    Joined on the file version, it gives the same rows as `VISIBLE_FILES`; but the candidates'
    snapshot rows are found first, through the file-version index (CTE `candidate_files`),
    instead of listing every file of a large scope and keeping a few.
    """
    return _VISIBLE_TEMPLATE.format(
        candidates=(
            # an array, so the planner probes the index for each instead of guessing how many
            "\ncandidate_files AS MATERIALIZED (SELECT * FROM snapshot_files"
            f" WHERE file_version_id = ANY(ARRAY({file_versions}))),"
        ),
        snapshot_files="candidate_files",
        overlay_filter=f" AND o.file_version_id = ANY(ARRAY({file_versions}))",
        # computed once: a join the planner underestimates may scan it once per candidate
        files_materialized="MATERIALIZED ",
    )


class SnapshotNotFoundError(CodeatlasError):
    """The repository has no indexed snapshot (at all, or at the requested commit)."""


@dataclass(frozen=True)
class RepositoryView:
    """One readable repository at the snapshot being read."""

    repository_id: int
    name: str
    snapshot_id: int
    commit: str
    active_model: str | None
    overlay: bool  # the principal's uncommitted files apply (only at the current snapshot)


@dataclass(frozen=True)
class Scope:
    """The repositories one query reads, for one principal."""

    principal: Principal
    repositories: tuple[RepositoryView, ...]

    def params(self) -> dict[str, Any]:
        """Query parameters for `VISIBLE_FILES`."""
        return {
            "scope_repos": [r.repository_id for r in self.repositories],
            "scope_snapshots": [r.snapshot_id for r in self.repositories],
            "scope_overlay": [r.overlay for r in self.repositories],
            "principal_id": self.principal.id,
        }

    def by_model(self) -> dict[str, list[RepositoryView]]:
        """Repositories grouped by active embedding model (vector spaces never mix)."""
        groups: dict[str, list[RepositoryView]] = {}
        for repo in self.repositories:
            if repo.active_model:
                groups.setdefault(repo.active_model, []).append(repo)
        return groups


def resolve_scope(
    conn: DbConnection,
    principal: Principal,
    repositories: Sequence[str] | None = None,
    commit: str | None = None,
) -> Scope:
    """The named repositories (default: all readable) at `commit` (default: current snapshot).

    Unknown and ungranted names raise the same error, so the answer reveals nothing.
    """
    if commit is not None and (repositories is None or len(repositories) != 1):
        raise CodeatlasError("a commit can only be given together with exactly one repository")
    if commit is not None and not _COMMIT.match(commit):
        raise CodeatlasError("commit must be 4 to 64 hexadecimal characters")
    names = list(dict.fromkeys(repositories)) if repositories is not None else None
    rows = conn.execute(
        "SELECT r.id, r.name, r.current_snapshot_id, r.active_embedding_model, s.commit_sha"
        " FROM repositories r JOIN principals p ON p.id = %(pid)s"
        " LEFT JOIN snapshots s ON s.id = r.current_snapshot_id"
        " WHERE (%(names)s::text[] IS NULL OR r.name = ANY(%(names)s))"
        " AND (p.all_repositories OR EXISTS (SELECT 1 FROM repository_grants g"
        "  WHERE g.principal_id = p.id AND g.repository_id = r.id))"
        " ORDER BY r.name",
        {"pid": principal.id, "names": names},
    ).fetchall()
    found = {row["name"]: row for row in rows}
    for name in names or []:
        if name not in found:
            raise unreadable_repository(name)
    views: list[RepositoryView] = []
    for row in rows:
        if commit is not None:
            views.append(_at_commit(conn, row, commit))
        elif row["current_snapshot_id"] is not None:
            views.append(
                RepositoryView(
                    repository_id=row["id"],
                    name=row["name"],
                    snapshot_id=row["current_snapshot_id"],
                    commit=row["commit_sha"],
                    active_model=row["active_embedding_model"],
                    overlay=True,
                )
            )
        elif names is not None:
            raise SnapshotNotFoundError(
                f"repository {row['name']!r} has no indexed commit yet; index_status shows"
                " progress (an operator runs `codeatlas index`)"
            )
    return Scope(principal=principal, repositories=tuple(views))


def _at_commit(conn: DbConnection, row: Row, commit: str) -> RepositoryView:
    snaps = conn.execute(
        "SELECT id, commit_sha FROM snapshots WHERE repository_id = %s AND status = 'ready'"
        " AND commit_sha LIKE %s ORDER BY id LIMIT 2",
        (row["id"], commit.lower() + "%"),
    ).fetchall()
    if len(snaps) != 1:
        problem = "is ambiguous" if snaps else "is not indexed"
        raise SnapshotNotFoundError(
            f"commit {commit} of repository {row['name']!r} {problem}; omit the commit to read"
            " the current snapshot"
        )
    return RepositoryView(
        repository_id=row["id"],
        name=row["name"],
        snapshot_id=snaps[0]["id"],
        commit=snaps[0]["commit_sha"],
        active_model=row["active_embedding_model"],
        overlay=snaps[0]["id"] == row["current_snapshot_id"],
    )
