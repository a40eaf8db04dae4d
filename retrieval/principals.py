"""Principals (who asks) and their grants (which repositories they may read)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg

from core.database import Row
from core.errors import CodeatlasError, ConfigurationError, RepositoryNotFoundError
from core.sql_files import statement
from indexing import repositories

DbConnection = psycopg.Connection[Any]

OPERATOR_PRINCIPAL = "local"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$")


class PrincipalNotFoundError(CodeatlasError):
    """The named principal does not exist."""


@dataclass(frozen=True)
class Principal:
    """Someone who reads the index: an operator (all repositories) or a holder of grants."""

    id: int
    name: str
    all_repositories: bool


def unreadable_repository(name: str) -> RepositoryNotFoundError:
    """The one error for a repository that is unknown OR not granted (they must look the same)."""
    shown = name if len(name) <= 200 else name[:200] + "..."
    return RepositoryNotFoundError(
        f"no repository named {shown!r} is available to you; list_repositories shows the ones you"
        " can read (an operator adds one with `codeatlas index` and grants it with"
        " `codeatlas grant`)"
    )


def validate_principal_name(name: str) -> str:
    """Principal names appear in logs and CLI output: keep them plain."""
    if not _NAME.match(name):
        raise ConfigurationError(
            f"invalid principal name {name!r}: use letters, digits, '.', '_', '@' and '-'"
        )
    return name


def _from_row(row: Row) -> Principal:
    return Principal(id=row["id"], name=row["name"], all_repositories=row["all_repositories"])


def get_principal(conn: DbConnection, name: str) -> Principal:
    """The principal called `name`, or PrincipalNotFoundError."""
    row = conn.execute(
        statement("repository_grants", "principal_by_name"), {"name": name}
    ).fetchone()
    if row is None:
        raise PrincipalNotFoundError(
            f"no principal named {name!r}; create it first with"
            f" `codeatlas principal create {name}`, then grant it repositories"
            f" (`codeatlas grant {name} REPO`)"
        )
    return _from_row(row)


def principal_by_id(conn: DbConnection, principal_id: int) -> Principal | None:
    """The principal with this id, if it still exists."""
    row = conn.execute(
        statement("repository_grants", "principal_by_id"), {"id": principal_id}
    ).fetchone()
    return _from_row(row) if row else None


def create_principal(conn: DbConnection, name: str, *, all_repositories: bool = False) -> Principal:
    """Create a principal, or update whether it reads every repository; return it."""
    validate_principal_name(name)
    row = conn.execute(
        statement("repository_grants", "upsert_principal"),
        {"name": name, "all_repositories": all_repositories},
    ).fetchone()
    assert row is not None
    return _from_row(row)


def ensure_operator(conn: DbConnection, name: str = OPERATOR_PRINCIPAL) -> Principal:
    """The stdio principal: created on first use as an operator (reads every repository)."""
    conn.execute(
        statement("repository_grants", "insert_operator"), {"name": validate_principal_name(name)}
    )
    return get_principal(conn, name)


def grant(conn: DbConnection, principal_name: str, repository: str) -> None:
    """Let a principal read a repository (idempotent)."""
    principal = get_principal(conn, principal_name)
    repository_id = repositories.id_of(conn, repository)
    if repository_id is None:
        raise RepositoryNotFoundError(
            f"no repository named {repository!r}; `codeatlas status` lists them"
        )
    conn.execute(
        statement("repository_grants", "grant"),
        {"principal_id": principal.id, "repository_id": repository_id},
    )


def revoke_grant(conn: DbConnection, principal_name: str, repository: str) -> bool:
    """Take a grant away; True when there was one."""
    principal = get_principal(conn, principal_name)
    cur = conn.execute(
        statement("repository_grants", "revoke"),
        {"principal_id": principal.id, "repository": repository},
    )
    return cur.rowcount > 0


def readable_repositories(conn: DbConnection, principal: Principal) -> list[Row]:
    """Repositories the principal may read, with their current commit (grants checked in SQL)."""
    return conn.execute(
        statement("repository_grants", "readable_repositories"), {"principal_id": principal.id}
    ).fetchall()


def principal_named(conn: DbConnection, name: str) -> Principal:
    """The existing principal called `name`; unknown names are refused with where to look
    (unlike `get_principal`, whose advice is to create it)."""
    row = conn.execute(
        statement("repository_grants", "principal_by_name"), {"name": name}
    ).fetchone()
    if row is None:
        raise PrincipalNotFoundError(
            f"no principal named {name!r}; `codeatlas principal list` shows the principals"
        )
    return _from_row(row)


def delete_principal(conn: DbConnection, principal: Principal) -> int:
    """Delete the principal and its grants (its tokens and overlays are their owners' to
    delete first, in the same transaction); returns how many grants it had."""
    grants = conn.execute(
        statement("repository_grants", "delete_grants_of"), {"principal_id": principal.id}
    ).rowcount
    conn.execute(statement("repository_grants", "delete_principal"), {"id": principal.id})
    return grants


def list_principals(conn: DbConnection) -> list[Row]:
    """Every principal with its granted repository names."""
    return conn.execute(statement("repository_grants", "principals_with_grants")).fetchall()
