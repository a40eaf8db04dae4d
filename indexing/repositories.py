"""Registered repositories: where their git objects are, which branch is tracked."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

from codeatlas.core.config import Settings
from codeatlas.core.errors import ConfigurationError, RepositoryNotFoundError
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
    conn: psycopg.Connection, name: str, origin: str, default_branch: str | None
) -> Repository:
    """Insert or update a repository by name and return it."""
    validate_name(name)
    row = conn.execute(
        "INSERT INTO repositories (name, origin, default_branch) VALUES (%s, %s, %s)"
        " ON CONFLICT (name) DO UPDATE SET origin = EXCLUDED.origin,"
        " default_branch = coalesce(EXCLUDED.default_branch, repositories.default_branch)"
        " RETURNING *",
        (name, git_source.clean_origin(origin), default_branch),
    ).fetchone()
    assert row is not None
    return _from_row(row)


def get(conn: psycopg.Connection, name: str) -> Repository:
    """The repository called `name`, or RepositoryNotFoundError."""
    row = conn.execute("SELECT * FROM repositories WHERE name = %s", (name,)).fetchone()
    if row is None:
        raise RepositoryNotFoundError(
            f"no repository named {name!r}; `codeatlas status` lists them, "
            "`codeatlas index PATH --name NAME` adds one"
        )
    return _from_row(row)


def snapshot_id(conn: psycopg.Connection, repo: Repository, commit_sha: str) -> int | None:
    """The id of the repository's snapshot of `commit_sha`, if one was started."""
    row = conn.execute(
        "SELECT id FROM snapshots WHERE repository_id = %s AND commit_sha = %s",
        (repo.id, commit_sha),
    ).fetchone()
    return row["id"] if row else None


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
