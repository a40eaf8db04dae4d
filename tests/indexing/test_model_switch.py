"""Switching a repository's active embedding model only once the new one covers the snapshot."""

from __future__ import annotations

from core.database import connection
from indexing.embedding.fake import FakeEmbedder
from indexing.embedding_step import embed_snapshot
from indexing.model_switch import adopt_configured_model, try_switch
from tests.retrieval.indexing import index_repository


def _models(url: str) -> dict:
    with connection(url) as conn:
        row = conn.execute(
            "SELECT active_embedding_model AS active, upgrading_embedding_model AS upgrading"
            " FROM repositories WHERE name = 'shop'"
        ).fetchone()
    assert row is not None
    return row


def test_a_new_model_waits_as_the_upgrade_until_it_covers_the_snapshot(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", "def approve_refund(order):\n    return True\n")
    git_repo.commit()
    sha = index_repository(database_url, git_repo.path, "shop", embedder=FakeEmbedder())
    assert _models(database_url) == {"active": "fake-hash-384", "upgrading": None}

    with connection(database_url) as conn:
        assert not adopt_configured_model(conn, "shop", "fake-hash-384")  # already active
        assert not adopt_configured_model(conn, "shop", "fake-hash-8")  # no vectors yet
    assert _models(database_url) == {"active": "fake-hash-384", "upgrading": "fake-hash-8"}

    embed_snapshot(database_url, "shop", sha, FakeEmbedder(dimensions=8))
    with connection(database_url) as conn:
        assert try_switch(conn, "shop")
        assert not try_switch(conn, "shop")  # nothing left to switch to
    assert _models(database_url) == {"active": "fake-hash-8", "upgrading": None}


def test_an_upgrade_under_way_to_another_model_is_left_alone(settings_env, database_url, git_repo):
    git_repo.write("a.py", "def a():\n    pass\n")
    git_repo.commit()
    index_repository(database_url, git_repo.path, "shop", embedder=FakeEmbedder())
    with connection(database_url) as conn:
        adopt_configured_model(conn, "shop", "fake-hash-8")
        assert not adopt_configured_model(conn, "shop", "fake-hash-16")
    assert _models(database_url)["upgrading"] == "fake-hash-8"
