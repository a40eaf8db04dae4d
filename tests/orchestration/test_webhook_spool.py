"""Pushes that come while PostgreSQL is down are kept (issue 47): the receiver verifies them
against the secrets it read earlier, writes them to its spool on disk and answers 202
`spooled`; when the database is back it stores them through its normal path, once, even
after a restart of the receiver. What no stored secret proves still gets 503."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.database import transaction
from indexing import repositories
from orchestration.webhooks import events
from orchestration.webhooks.app import Receiver, build_app
from orchestration.webhooks.background import serving
from orchestration.webhooks.spool import DeliverySpool
from tests.logged import tracebacks
from tests.orchestration.test_webhooks import SECRET, SHA2, github_headers, github_push, stored
from tests.stoppable_postgres import StoppablePostgres, wait_until


@pytest.fixture
def stoppable() -> Iterator[StoppablePostgres]:
    """A PostgreSQL of this test's own (not under pytest's tmp_path: its folders are closed to
    the server's system user)."""
    server = StoppablePostgres(Path(tempfile.mkdtemp(prefix="ca-stoppable-")))
    yield server
    server.close()


def _registered(url: str) -> None:
    with transaction(url) as conn:
        repo = repositories.register(conn, "acme/shop", "https://github.com/acme/shop.git", "main")
        events.set_secret(conn, repo.id, "github", SECRET, None)


def _post(base: str, body: bytes, **headers: str) -> httpx.Response:
    return httpx.post(base + "/webhooks", content=body, headers=github_headers(body, **headers))


def test_a_push_while_the_database_is_down_is_spooled_then_stored_once(stoppable, tmp_path, caplog):
    url = stoppable.database()
    _registered(url)
    spool = DeliverySpool(tmp_path / "spool")
    body = github_push()
    with serving(build_app(url, spool=spool)) as base:
        assert httpx.get(base + "/healthz", timeout=10).json()["spooled"] == 0
        stoppable.stop()
        kept = _post(base, body)
        again = _post(base, body)  # the sender retried the same delivery
        forged = _post(base, github_push(after=SHA2), delivery="d-2", secret="not-the-secret")
        health = httpx.get(base + "/healthz", timeout=10)
        assert spool.count() == 1
        stoppable.start()
        wait_until(lambda: spool.count() == 0, 30, "the spool to be replayed")
        rows = stored(url)
        redelivered = _post(base, body)
    assert kept.status_code == 202 and kept.json()["status"] == "spooled"
    assert kept.json()["repository"] == "acme/shop" and kept.json()["delivery"] == "d-1"
    assert again.status_code == 202 and again.json()["status"] == "spooled"
    # what no secret the receiver holds proves is not kept: the sender sees the outage
    assert forged.status_code == 503 and forged.headers["retry-after"]
    assert health.status_code == 200
    assert health.json() == {"status": "spooling", "database": "unreachable", "spooled": 1}
    assert [(r["delivery_id"], r["status"], r["after_sha"]) for r in rows] == [
        ("d-1", "pending", "a" * 40)
    ]
    assert redelivered.status_code == 200 and redelivered.json()["status"] == "duplicate"
    assert not tracebacks(caplog)


def test_a_spooled_push_is_stored_by_the_next_receiver_after_a_restart(stoppable, tmp_path):
    url = stoppable.database()
    _registered(url)
    folder = tmp_path / "spool"
    body = github_push()
    with serving(build_app(url, spool=DeliverySpool(folder))) as base:
        stoppable.stop()
        assert _post(base, body).json()["status"] == "spooled"
    # the receiver is gone; its file is all that is left of the push
    assert len(list(folder.glob("*.json"))) == 1
    stoppable.start()
    spool = DeliverySpool(folder)
    with serving(build_app(url, spool=spool)):
        wait_until(lambda: spool.count() == 0, 30, "the spool to be replayed")
    assert [r["delivery_id"] for r in stored(url)] == ["d-1"]


def test_replaying_a_delivery_that_was_stored_already_stores_nothing_twice(stoppable, tmp_path):
    url = stoppable.database()
    _registered(url)
    body = github_push()
    with serving(build_app(url)) as base:
        assert _post(base, body).status_code == 202
    # the database answered as the connection broke: the receiver could not know, and kept it
    spool = DeliverySpool(tmp_path / "spool")
    assert spool.put("github", "d-1", {k.lower(): v for k, v in github_headers(body).items()}, body)
    receiver = Receiver(url, None, spool=spool)
    try:
        assert receiver.replay() == 1
    finally:
        receiver.close()
    assert spool.count() == 0
    assert [r["delivery_id"] for r in stored(url)] == ["d-1"]


def test_without_a_spool_a_push_while_the_database_is_down_still_gets_503(stoppable):
    url = stoppable.database()
    _registered(url)
    with serving(build_app(url)) as base:
        stoppable.stop()
        refused = _post(base, github_push())
        health = httpx.get(base + "/healthz", timeout=10)
        stoppable.start()
    assert refused.status_code == 503 and health.status_code == 503


def test_the_spool_keeps_one_file_per_delivery_refuses_past_its_bound_and_sets_aside_junk(
    tmp_path, monkeypatch
):
    from orchestration.webhooks import spool as spool_module

    kept = DeliverySpool(tmp_path / "spool")
    body = github_push()
    headers = {"x-github-delivery": "d-1", "authorization": "Bearer x", "content-type": "a/b"}
    assert kept.put("github", "d-1", headers, body)
    assert kept.put("github", "d-1", headers, body)  # the same delivery again: the same file
    [delivery] = kept.pending()
    assert delivery.body == body and delivery.provider == "github"
    assert "authorization" not in delivery.headers and delivery.headers["content-type"] == "a/b"
    assert oct((tmp_path / "spool").stat().st_mode & 0o777) == "0o700"

    monkeypatch.setattr(spool_module, "MAX_FILES", 1)
    assert not kept.has_room()
    assert not kept.put("github", "d-2", headers, body)
    assert kept.count() == 1

    (tmp_path / "spool" / "0-junk.json").write_text("{not json")
    assert [d.path.name for d in kept.pending()] == [delivery.path.name]
    assert (tmp_path / "spool" / "0-junk.unreadable").exists()
