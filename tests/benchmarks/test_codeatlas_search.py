"""The benchmarks' in-process search: it searches its own embedder's vectors, also when the
index serves another model (a second model measured beside the active one)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.codeatlas_search import CodeatlasSearch
from indexing.embedding.fake import FakeEmbedder
from indexing.embedding_step import embed_snapshot
from retrieval.search import candidates
from tests.conftest import GitRepo
from tests.retrieval.indexing import index_repository


def test_a_second_models_vectors_are_searched_with_that_model(
    database_url: str, git_repo: GitRepo, settings_env: Path
) -> None:
    git_repo.write("shop/cart.py", "def total(items):\n    return sum(i.price for i in items)\n")
    git_repo.write("shop/mail.py", "def send_receipt(order):\n    smtp.send(order.email)\n")
    sha = git_repo.commit()
    index_repository(database_url, git_repo.path, "shop", embedder=FakeEmbedder(384))
    second = FakeEmbedder(256)  # another model: fake-hash-256, not the active fake-hash-384
    embed_snapshot(database_url, "shop", sha, second)
    search = CodeatlasSearch(database_url, ["shop"], second)
    try:
        found = candidates(search.conn, search.scope, "price total", embed_query=search.embed_query)
    finally:
        search.close()
    assert found.notes == []
    assert [n for n in found.rankings if n.startswith("semantic:")] == ["semantic:fake-hash-256"]
    assert found.rankings["semantic:fake-hash-256"]
