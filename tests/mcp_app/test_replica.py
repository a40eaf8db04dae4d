"""Reads on a real streaming replica (made with the embedded server's own pg_basebackup): the
read tools and `codeatlas search` answer from it and say how far it trails; writes go to the
primary."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from core.database import connect_plain, create_database_if_missing, transaction
from core.migrations import migrate
from lab.streaming_replica import Replication, start_replication
from tests.conftest import GitRepo
from tests.mcp_app.conftest import call_tools, payload
from tests.retrieval import sample_code
from tests.retrieval.indexing import fake_embedder, index_repository

REFUND = '''
def refund_order(order):
    """Give the money back."""
    return order.total
'''


@pytest.fixture(scope="module")
def replication() -> Iterator[Replication]:
    """A primary and its streaming replica, for the tests of this module."""
    # not under pytest's temporary folders: pytest keeps those 0700, and the servers run as
    # another user when the tests run as root
    base = Path(tempfile.mkdtemp(prefix="ca-replication-"))
    pair = start_replication(base)
    try:
        yield pair
    finally:
        pair.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def shop(
    replication: Replication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request
) -> GitRepo:
    """The sample shop indexed into a fresh database on the primary, replayed by the replica."""
    database = f"replica_{request.node.name[:40]}"
    create_database_if_missing(replication.primary_url, database)
    conn = connect_plain(replication.primary(database))
    migrate(conn)
    conn.close()
    monkeypatch.setenv("CODEATLAS_DATABASE_URL", replication.primary(database))
    monkeypatch.setenv("CODEATLAS_READ_DATABASE_URL", replication.replica(database))
    monkeypatch.setenv("CODEATLAS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CODEATLAS_EMBEDDING_PROVIDER", "fake")
    repo = GitRepo(tmp_path / "shop")
    repo.write("shop/billing.py", sample_code.BILLING)
    repo.write("shop/money.py", sample_code.MONEY)
    repo.commit("shop")
    index_repository(
        os.environ["CODEATLAS_DATABASE_URL"], repo.path, "shop", embedder=fake_embedder()
    )
    with transaction(os.environ["CODEATLAS_DATABASE_URL"]) as tx:
        from retrieval.principals import ensure_operator

        ensure_operator(tx)  # what serve-mcp does at start-up, on the primary
    replication.wait_replayed()
    return repo


def _server():
    from core.config import load_settings
    from mcp_app.app_context import ServerConfig
    from mcp_app.server import build_server

    settings = load_settings()
    assert settings.database_url and settings.read_database_url
    config = ServerConfig(
        database_url=settings.database_url,
        settings=settings,
        principal_name="local",
        read_database_url=settings.read_database_url,
    )
    return build_server(config)


def _refund_on_primary(shop: GitRepo) -> str:
    shop.write("shop/refunds.py", REFUND)
    sha = shop.commit("refunds")
    index_repository(
        os.environ["CODEATLAS_DATABASE_URL"], shop.path, "shop", embedder=fake_embedder()
    )
    return sha


def test_read_tools_answer_from_the_replica_and_say_how_far_it_trails(
    replication: Replication, shop: GitRepo
) -> None:
    first = shop.git("rev-parse", "HEAD")
    caught_up = call_tools(_server(), [("search_symbols", {"name": "round_cents"})])
    answer = payload(caught_up[0])
    assert answer["symbols"][0]["symbol"] == "round_cents"
    assert answer["replica"]["behind_bytes"] == 0 and answer["replica"]["lag_seconds"] == 0

    replication.pause_replay()
    try:
        second = _refund_on_primary(shop)  # the indexing writes go to the primary
        results = call_tools(
            _server(),
            [
                ("search_symbols", {"name": "refund_order"}),
                ("index_status", {}),
                (
                    "index_file",
                    {"repository": "shop", "path": "shop/draft.py", "content": REFUND},
                ),
            ],
        )
    finally:
        replication.resume_replay()
    stale, status, indexed = (payload(r) for r in results)
    # the replica has not replayed the new commit: the answer is the old one, and says so
    assert [s["symbol"] for s in stale["symbols"]] == []
    assert stale["replica"]["behind_bytes"] > 0 and stale["replica"]["lag_seconds"] > 0
    (repo_status,) = status["repositories"]
    assert (repo_status["current_commit"], repo_status["primary_commit"]) == (first, second)
    # a write tool works only on the primary: a replica refuses every write
    assert not results[2].is_error, indexed
    with psycopg.connect(os.environ["CODEATLAS_DATABASE_URL"]) as primary:
        row = primary.execute("SELECT count(*) FROM overlay_files").fetchone()
    assert row and row[0] == 1

    replication.wait_replayed()
    fresh = payload(call_tools(_server(), [("search_symbols", {"name": "refund_order"})])[0])
    # the new commit, and the working-tree file sent to the primary, both replayed
    assert sorted(s["path"] for s in fresh["symbols"]) == ["shop/draft.py", "shop/refunds.py"]
    assert fresh["replica"]["behind_bytes"] == 0


def test_the_cli_reads_from_the_replica_and_notes_its_lag(
    replication: Replication, shop: GitRepo
) -> None:
    replication.pause_replay()
    try:
        _refund_on_primary(shop)
        stale = subprocess.run(
            [sys.executable, "-m", "codeatlas.cli", "symbols", "refund_order", "--repo", "shop"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        replication.resume_replay()
    assert stale.returncode == 0, stale.stderr
    assert "no matching symbols" in stale.stderr
    assert "note: read from a replica" in stale.stderr and "behind the primary" in stale.stderr
    replication.wait_replayed()
    fresh = subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", "symbols", "refund_order", "--repo", "shop"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "refund_order" in fresh.stdout and "note:" not in fresh.stderr
