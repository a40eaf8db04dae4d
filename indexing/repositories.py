"""Registered repositories: where their git objects are, which branch is tracked.

The owner of the table `repositories` (docs/architecture.md, "One owner per table"): every
statement that writes it, and every read of it outside `sql/`, is a function here.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config import Settings
from core.database import DictConnection, Row
from core.errors import ConfigurationError, RepositoryNotFoundError
from core.sql_files import statement
from indexing import git_source

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")


@dataclass(frozen=True)
class Repository:
    """A row of `repositories`."""

    id: int
    name: str
    origin: str
    default_branch: str | None
    current_snapshot_id: int | None
    active_embedding_model: str | None
    upgrading_embedding_model: str | None


def validate_name(name: str) -> str:
    """Repository names are used in partition keys and URLs: keep them plain."""
    if not _NAME.match(name) or ".." in name or "@" in name:
        raise ConfigurationError(
            f"invalid repository name {name!r}: use letters, digits, '.', '_', '-' and '/'"
        )
    return name


def default_name(origin: str) -> str:
    """A repository name derived from a path or URL (`/src/shop` → `shop`)."""
    base = re.sub(r"\.git$", "", origin.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
    return re.sub(r"[^A-Za-z0-9._-]", "-", base) or "repository"


def register(
    conn: DictConnection, name: str, origin: str, default_branch: str | None
) -> Repository:
    """Insert or update a repository by name and return it."""
    validate_name(name)
    row = conn.execute(
        statement("repositories", "register"),
        {
            "name": name,
            "origin": git_source.clean_origin(origin),
            "default_branch": default_branch,
        },
    ).fetchone()
    assert row is not None
    return _from_row(row)


def get(conn: DictConnection, name: str) -> Repository:
    """The repository called `name`, or RepositoryNotFoundError."""
    row = conn.execute(statement("repositories", "by_name"), {"name": name}).fetchone()
    if row is None:
        raise RepositoryNotFoundError(
            f"no repository named {name!r}; `codeatlas status` lists them, "
            "`codeatlas index PATH --name NAME` adds one"
        )
    return _from_row(row)


def count(conn: DictConnection) -> int:
    """How many repositories are registered."""
    row = conn.execute(statement("repositories", "count")).fetchone()
    return int(row["n"]) if row else 0


def id_of(conn: DictConnection, name: str) -> int | None:
    """The id of the repository called `name`, if there is one."""
    row = conn.execute(statement("repositories", "id_by_name"), {"name": name}).fetchone()
    return row["id"] if row else None


def locations(conn: DictConnection) -> list[dict[str, Any]]:
    """id, name, origin and tracked branch of every repository, in registration order."""
    return conn.execute(statement("repositories", "locations")).fetchall()


def lock(conn: DictConnection, name: str) -> dict[str, Any] | None:
    """The row of `name`, locked until the transaction ends (None: no such repository)."""
    return conn.execute(statement("repositories", "lock"), {"name": name}).fetchone()


def with_current_snapshot(conn: DictConnection) -> list[dict[str, Any]]:
    """Every repository (`r.*`) with its current snapshot's commit, parser version, status."""
    return conn.execute(statement("repositories", "with_current_snapshot")).fetchall()


def tracked_heads(conn: DictConnection) -> list[dict[str, Any]]:
    """name, origin, tracked branch and current commit of repositories that track a branch."""
    return conn.execute(statement("repositories", "tracked_heads")).fetchall()


def commit_is_current(conn: DictConnection, repo_id: int, sha: str, parser: str) -> bool:
    """Whether `sha` is the repository's current snapshot, ready, at this parser version."""
    row = conn.execute(
        statement("repositories", "commit_is_current"),
        {"repository_id": repo_id, "commit_sha": sha, "parser_version": parser},
    ).fetchone()
    return row is not None


def make_current(conn: DictConnection, repo_id: int, snapshot: int, model: str) -> None:
    """Publish `snapshot` as current; the model becomes active if none was (publishing)."""
    conn.execute(
        statement("repositories", "make_current"),
        {"snapshot_id": snapshot, "model": model, "repository_id": repo_id},
    )


# embedding models of a repository: the active one searches, the upgrading one is being filled


def lock_models(conn: DictConnection, name: str) -> dict[str, Any] | None:
    """id, current_snapshot_id, active and upgrading model of `name`, locked (None: unknown)."""
    return conn.execute(statement("repositories", "lock_models"), {"name": name}).fetchone()


def lock_models_of(conn: DictConnection, names: list[str] | None) -> list[dict[str, Any]]:
    """name and active model of the repositories (all when None), locked, by name."""
    return conn.execute(statement("repositories", "lock_models_of"), {"names": names}).fetchall()


def indexing_model(conn: DictConnection, name: str) -> str | None:
    """The model `name` is upgrading to, else its active one (None: neither, or unknown)."""
    row = conn.execute(statement("repositories", "indexing_model"), {"name": name}).fetchone()
    return row["model"] if row else None


def set_upgrading_model(conn: DictConnection, name: str, model: str | None) -> None:
    """Make `model` the upgrade target of `name` (None: no upgrade)."""
    conn.execute(statement("repositories", "set_upgrading_model"), {"model": model, "name": name})


def activate_model(conn: DictConnection, name: str, model: str) -> None:
    """Make `model` the active model of `name` at once, with no upgrade under way."""
    conn.execute(statement("repositories", "activate_model"), {"model": model, "name": name})


def activate_upgrading_model(conn: DictConnection, repo_id: int) -> None:
    """The upgrade target becomes the active model (the switch of a complete upgrade)."""
    conn.execute(statement("repositories", "activate_upgrading_model"), {"repository_id": repo_id})


def upgrade_to_everywhere(conn: DictConnection, model: str) -> list[str]:
    """Make `model` the upgrade target of every repository with another active model and no
    upgrade under way; the names of those repositories."""
    rows = conn.execute(
        statement("repositories", "upgrade_to_everywhere"), {"model": model}
    ).fetchall()
    return [r["name"] for r in rows]


def upgrading(conn: DictConnection) -> list[dict[str, Any]]:
    """Repositories in an upgrade: id, name, current snapshot and its commit, both models."""
    return conn.execute(statement("repositories", "upgrading")).fetchall()


def using_model(conn: DictConnection, model: str) -> list[str]:
    """Names of the repositories whose active or upgrading model is `model`."""
    rows = conn.execute(statement("repositories", "using_model"), {"model": model}).fetchall()
    return [r["name"] for r in rows]


def _from_row(row: dict) -> Repository:
    return Repository(
        id=row["id"],
        name=row["name"],
        origin=row["origin"],
        default_branch=row["default_branch"],
        current_snapshot_id=row["current_snapshot_id"],
        active_embedding_model=row["active_embedding_model"],
        upgrading_embedding_model=row["upgrading_embedding_model"],
    )


def git_dir(settings: Settings, origin: str, *, fetch: bool = False) -> Path:
    """The local git repository holding `origin`'s objects (a bare mirror for remote URLs)."""
    if git_source.is_remote(origin):
        clean = git_source.clean_origin(origin)
        slug = hashlib.sha1(clean.encode()).hexdigest()[:12]
        mirror_dir = settings.repos_dir / f"{default_name(clean)}-{slug}.git"
        if fetch or not (mirror_dir / "HEAD").exists():
            git_source.mirror(origin, mirror_dir, settings.git_credentials)
        return mirror_dir
    path = Path(origin)
    git_source.open_local(path)
    return path


def status_rows(
    conn: DictConnection, name: str | None, repository_ids: list[int] | None
) -> list[Row]:
    """The status of each repository (optionally one name, or only the given ids)."""
    return conn.execute(
        statement("repositories", "status"), {"name": name, "ids": repository_ids}
    ).fetchall()


def current_commits(conn: DictConnection, repository_ids: list[int]) -> list[Row]:
    """(name, commit_sha) of the commit each repository serves."""
    return conn.execute(
        statement("repositories", "current_commits"), {"ids": repository_ids}
    ).fetchall()
