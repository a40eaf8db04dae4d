"""Vectors and their models: one partial HNSW index per embedding model, vectors once."""

from __future__ import annotations

import pytest

from core.database import connection, transaction
from indexing import chunk_embeddings, embedding_registry


def _indexes(url: str) -> set[str]:
    with connection(url) as conn:
        rows = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunk_embeddings'"
        ).fetchall()
    return {r["indexname"] for r in rows if "hnsw" in r["indexdef"]}


def test_a_model_gets_its_own_partial_hnsw_index_once(database_url):
    with transaction(database_url) as conn:
        embedding_registry.ensure_embedding_model(conn, "acme's-model", 8)
        embedding_registry.ensure_embedding_model(conn, "acme's-model", 8)
    assert _indexes(database_url) == {embedding_registry.model_index_name("acme's-model")}
    with connection(database_url) as conn:
        [definition] = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s",
            (embedding_registry.model_index_name("acme's-model"),),
        ).fetchall()
    assert "halfvec(8)" in definition["indexdef"]
    assert "'acme''s-model'" in definition["indexdef"]


def test_a_model_name_reused_with_other_dimensions_is_refused(database_url):
    with connection(database_url) as conn:
        embedding_registry.ensure_embedding_model(conn, "small", 8)
        with pytest.raises(ValueError, match="another model name"):
            embedding_registry.ensure_embedding_model(conn, "small", 16)


def test_vectors_are_stored_once_per_model_and_content(database_url):
    with transaction(database_url) as conn:
        embedding_registry.ensure_embedding_model(conn, "m", 2)
        chunk_embeddings.store(conn, "m", ["h1", "h2"], [[1.0, 0.0], [0.0, 1.0]])
        chunk_embeddings.store(conn, "m", ["h1"], [[0.5, 0.5]])
    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT content_hash, embedding::text AS v FROM chunk_embeddings ORDER BY 1"
        ).fetchall()
    assert rows == [{"content_hash": "h1", "v": "[1,0]"}, {"content_hash": "h2", "v": "[0,1]"}]


def test_unused_vectors_go_and_a_models_vectors_go_with_it(database_url):
    with transaction(database_url) as conn:
        embedding_registry.ensure_embedding_model(conn, "m", 2)
        embedding_registry.ensure_embedding_model(conn, "n", 2)
        chunk_embeddings.store(conn, "m", ["h1", "h2"], [[1.0, 0.0], [0.0, 1.0]])
        chunk_embeddings.store(conn, "n", ["h1"], [[1.0, 0.0]])
        # no chunk holds h1 or h2: only the ones asked about go, then all
        chunk_embeddings.delete_unused_among(conn, ["h2"])
        left = conn.execute("SELECT embedding_model, content_hash FROM chunk_embeddings").fetchall()
        assert sorted((r["embedding_model"], r["content_hash"]) for r in left) == [
            ("m", "h1"),
            ("n", "h1"),
        ]
        assert chunk_embeddings.delete_model(conn, "n") == 1
        assert chunk_embeddings.delete_unused(conn) == 1
