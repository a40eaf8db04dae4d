"""What a principal may see: repositories at a snapshot, with the principal's overlay on top.

Every retrieval query starts with `VISIBLE_FILES`, which re-checks the principal's grants in SQL,
so a scope built for one principal can never read another's repositories or overlay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

from core.database import Row
from core.errors import CodeatlasError
from core.sql_files import statement, statement_template
from retrieval.principals import DbConnection, Principal, unreadable_repository

_COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")

# CTEs `scope` and `files` (sql/scope/visible_files.sql), with constant fragments filled in
_VISIBLE_TEMPLATE = statement_template("scope", "visible_files")

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
            f" WHERE file_version_id = ANY(ARRAY({file_versions}))"
            # (a file version is listed by every snapshot that has it: keep the scope's)
            " AND snapshot_id = ANY(%(scope_snapshots)s::bigint[])),"
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
        statement("scope", "readable_at_current"), {"pid": principal.id, "names": names}
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
        statement("scope", "ready_snapshots_by_prefix"),
        {"repository_id": row["id"], "prefix": commit.lower() + "%"},
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
