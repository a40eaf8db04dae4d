"""Vectors are shared by content across repositories: a second checkout of code already indexed
embeds nothing, and a principal still reads only the repositories it is granted."""

import subprocess

import pytest

import retrieval.semantic as semantic
from core.database import connect
from indexing import embedding_registry
from indexing.embedding.fake import FakeEmbedder
from retrieval.principals import create_principal, ensure_operator, grant
from retrieval.scope import resolve_scope
from retrieval.search import search_code
from tests.assets.pipeline_helpers import register, run_index

SHOP = {
    "billing.py": 'def refund_invoice(invoice):\n    """Give the customer their money back."""\n'
    "    return invoice.total * -1\n",
    "shipping.py": 'def track_parcel(parcel_id):\n    """Where is the parcel now."""\n'
    "    return lookup(parcel_id)\n",
}
SECRET = "def launch_rocket(code):\n    return ignite(code)\n"


@pytest.fixture
def embedded_texts(monkeypatch) -> list[str]:
    """Every text the fake embedder is asked to embed as a document."""
    embedding_registry._cache.clear()
    texts: list[str] = []
    real = FakeEmbedder.embed_documents

    def counting(self, batch: list[str]) -> list[list[float]]:
        texts.extend(batch)
        return real(self, batch)

    monkeypatch.setattr(FakeEmbedder, "embed_documents", counting)
    return texts


def semantic_repositories(url: str, principal_name: str, names, query: str) -> set[str]:
    embedder = FakeEmbedder()
    with connect(url, autocommit=True) as conn:
        if principal_name == "op":
            principal = ensure_operator(conn)
        else:
            from retrieval.principals import get_principal

            principal = get_principal(conn, principal_name)
        scope = resolve_scope(conn, principal, names)
        report = search_code(
            conn, scope, query, mode="semantic", embed_query=lambda _m, t: embedder.embed_query(t)
        )
    return {hit.repository for hit in report.hits}


@pytest.mark.parametrize("exact", [True, False], ids=["exact-scan", "hnsw"])
def test_a_second_checkout_embeds_nothing_and_grants_still_decide_what_is_read(
    settings_env, database_url, git_repo, tmp_path, embedded_texts, monkeypatch, exact
):
    for path, text in SHOP.items():
        git_repo.write(path, text)
    sha = git_repo.commit("shop")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    first = len(embedded_texts)
    assert first > 0

    copy = tmp_path / "copy"
    subprocess.run(["git", "clone", "-q", str(git_repo.path), str(copy)], check=True)
    register(database_url, "shop-copy", str(copy))
    run_index(database_url, "shop-copy", sha)
    assert len(embedded_texts) == first  # zero new embeddings for the same content

    rocket = tmp_path / "rocket"
    subprocess.run(["git", "clone", "-q", str(git_repo.path), str(rocket)], check=True)
    (rocket / "launch.py").write_text(SECRET)
    subprocess.run(["git", "-C", str(rocket), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(rocket),
            "-c",
            "user.email=d@e.f",
            "-c",
            "user.name=D",
            "commit",
            "-qm",
            "rocket",
        ],
        check=True,
    )
    rocket_sha = subprocess.run(
        ["git", "-C", str(rocket), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    register(database_url, "rocket", str(rocket))
    run_index(database_url, "rocket", rocket_sha)
    assert len(embedded_texts) == first + 1  # only the new content

    with connect(database_url) as conn:
        create_principal(conn, "bob")
        grant(conn, "bob", "shop-copy")
        assert conn.execute("SELECT count(*) AS n FROM chunk_embeddings").fetchone()["n"] == (
            first + 1
        )
        conn.commit()

    if not exact:  # every scope through the HNSW index and its per-row content check
        monkeypatch.setattr(semantic, "EXACT_SEARCH_MAX", 0)
    # search in the second repository works on the shared vectors
    assert semantic_repositories(database_url, "bob", ["shop-copy"], "refund invoice") == {
        "shop-copy"
    }
    # bob sees neither shop nor rocket, although they hold the same (or nearer) vectors
    assert semantic_repositories(database_url, "bob", None, "launch rocket ignite") == {"shop-copy"}
    # the operator reads them all, and rocket's own content ranks it in
    assert "rocket" in semantic_repositories(database_url, "op", None, "launch rocket ignite")
    assert semantic_repositories(database_url, "op", ["shop"], "refund invoice") == {"shop"}
