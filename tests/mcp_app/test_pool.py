"""The pool: a connection's work commits when the block succeeds and rolls back when it fails;
an unreachable database is one clear error after a bounded wait."""

from __future__ import annotations

import pytest

from core.database import connect
from core.errors import DatabaseUnavailableError
from mcp_app.pool import DatabasePool


def _principals(database_url: str) -> list[str]:
    with connect(database_url) as conn:
        return [r["name"] for r in conn.execute("SELECT name FROM principals ORDER BY name")]


def test_work_commits_on_success_and_rolls_back_on_error(database_url):
    pool = DatabasePool(database_url, 2, "test")
    try:
        with pool.connection() as conn:
            conn.execute("INSERT INTO principals (name) VALUES ('kept')")
        with pytest.raises(RuntimeError), pool.connection() as conn:
            conn.execute("INSERT INTO principals (name) VALUES ('dropped')")
            raise RuntimeError("the tool failed")
    finally:
        pool.close()
    assert _principals(database_url) == ["kept"]


def test_an_unreachable_database_is_one_clear_error():
    pool = DatabasePool("postgresql://127.0.0.1:1/none", 1, "test", checkout_seconds=0.5)
    try:
        unavailable = pytest.raises(DatabaseUnavailableError, match="unavailable right now")
        with unavailable, pool.connection():
            pass
    finally:
        pool.close()
