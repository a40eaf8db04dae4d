"""The webhook receiver while PostgreSQL is stopped and started again under it: a signed push
gets 503 with Retry-After (never a plain 500 or a 30 s wait), nothing is half-stored, `/healthz`
says the database is unreachable, and the same delivery is accepted once the database is back,
without restarting the receiver."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.database import transaction
from indexing import repositories
from orchestration.webhooks import events
from orchestration.webhooks.app import build_app
from orchestration.webhooks.background import serving
from tests.logged import tracebacks
from tests.orchestration.test_webhooks import SECRET, github_headers, github_push, stored
from tests.stoppable_postgres import StoppablePostgres, wait_until


@pytest.fixture
def stoppable() -> Iterator[StoppablePostgres]:
    """A PostgreSQL of this test's own (not under pytest's tmp_path: its folders are closed to
    the server's system user)."""
    server = StoppablePostgres(Path(tempfile.mkdtemp(prefix="ca-stoppable-")))
    yield server
    server.close()


def test_a_signed_push_while_the_database_is_down_gets_503_and_is_stored_once_it_is_back(
    stoppable, caplog
):
    url = stoppable.database()
    with transaction(url) as conn:
        repo = repositories.register(conn, "acme/shop", "https://github.com/acme/shop.git", "main")
        events.set_secret(conn, repo.id, "github", SECRET, None)
    body = github_push()
    with serving(build_app(url)) as base:
        assert httpx.get(base + "/healthz", timeout=10).json()["database"] == "ok"
        stoppable.stop()
        refused = httpx.post(base + "/webhooks", content=body, headers=github_headers(body))
        health = httpx.get(base + "/healthz", timeout=10)
        stoppable.start()
        assert stored(url) == []  # nothing half-stored
        wait_until(
            lambda: httpx.get(base + "/healthz", timeout=10).status_code == 200, 30, "healthz"
        )
        accepted = httpx.post(base + "/webhooks", content=body, headers=github_headers(body))
    assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
    assert refused.json()["status"].startswith("the index database is unavailable right now")
    assert health.status_code == 503 and health.json()["database"] == "unreachable"
    assert accepted.status_code == 202 and accepted.json()["status"] == "pending"
    assert [row["delivery_id"] for row in stored(url)] == ["d-1"]
    assert not tracebacks(caplog)
