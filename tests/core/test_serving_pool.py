"""The pool of the long-running servers tells a busy database from a dead one."""

from __future__ import annotations

import pytest

from core.serving_pool import DatabaseBusyError, DatabaseDownError, ServingPool


def test_every_connection_in_use_is_busy_not_down(database_url):
    pool = ServingPool(database_url, 1, "test-busy", checkout_seconds=1.5)
    try:
        with pool.connection() as held:
            held.execute("SELECT 1")
            with pytest.raises(DatabaseBusyError, match="busy right now"), pool.connection():
                pass
        with pool.connection() as conn:  # free again
            assert conn.execute("SELECT 1 AS one").fetchone()["one"] == 1
    finally:
        pool.close()
    assert not pool.down


def test_an_unreachable_server_is_down_and_said_once(caplog):
    pool = ServingPool("postgresql://127.0.0.1:1/none", 1, "test-down", checkout_seconds=1)
    try:
        for _ in range(5):
            with pytest.raises(DatabaseDownError, match="retry in 5 s"), pool.connection():
                pass
    finally:
        pool.close()
    assert pool.down
    said = [r.getMessage() for r in caplog.records if "is unreachable" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("test-down: the database is unreachable")
