"""Numbered, append-only SQL migrations from the package `sql/migrations/`, in `schema_migrations`.

`schema_migrations` records each applied migration by its number (and the name of its file), so
the files keep their numbers and names wherever they live.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable

from core.database import DictConnection
from core.errors import DatabaseUnavailableError
from core.sql_files import sql_folder

MIGRATIONS_FOLDER = "migrations"
REQUIRED_EXTENSIONS = ("vector", "pg_trgm")
_MIGRATION_LOCK = 7_345_001  # advisory lock id: one migrator at a time


@dataclass(frozen=True)
class Migration:
    """One file `NNN_name.sql`."""

    version: int
    name: str
    path: Traversable


def available_migrations() -> list[Migration]:
    """All migration files, in order."""
    found = []
    for path in sorted(sql_folder(MIGRATIONS_FOLDER).iterdir(), key=lambda p: p.name):
        match = re.fullmatch(r"(\d+)_(\w+)\.sql", path.name)
        if match:
            found.append(Migration(int(match[1]), match[2], path))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"duplicate migration numbers in sql/{MIGRATIONS_FOLDER}/")
    return found


def check_extensions(conn: DictConnection) -> None:
    """Fail with a clear message when pgvector or pg_trgm cannot be installed here."""
    rows = conn.execute(
        "SELECT name, default_version FROM pg_available_extensions WHERE name = ANY(%s)",
        (list(REQUIRED_EXTENSIONS),),
    ).fetchall()
    available = {r["name"] for r in rows}
    missing = [e for e in REQUIRED_EXTENSIONS if e not in available]
    if missing:
        raise DatabaseUnavailableError(
            f"PostgreSQL server lacks the extension(s) {', '.join(missing)} "
            "(pgvector >= 0.7 provides 'vector', contrib provides 'pg_trgm'); install them on "
            "the server, or unset CODEATLAS_DATABASE_URL to use the embedded server."
        )


def migrate(conn: DictConnection) -> list[int]:
    """Apply every migration not yet applied; return the versions applied now."""
    conn.autocommit = True
    check_extensions(conn)
    applied_now: list[int] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
        done = {r["version"] for r in rows}
        for migration in available_migrations():
            if migration.version in done:
                continue
            with conn.transaction():
                conn.execute(migration.path.read_text("utf-8"))  # type: ignore[arg-type]
                conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                    (migration.version, migration.name),
                )
            applied_now.append(migration.version)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
    return applied_now
