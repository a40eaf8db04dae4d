"""Storage writes: content-addressed blobs, one HNSW index per embedding model, vectors once."""

from __future__ import annotations

import subprocess

import pytest

from codeatlas.core.database import connection, transaction
from indexing import repositories, storage


def test_blob_shas_are_gits_own(tmp_path):
    content = b"def refund(order):\n    return order.total\n"
    (tmp_path / "f.py").write_bytes(content)
    by_git = subprocess.run(
        ["git", "hash-object", str(tmp_path / "f.py")], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert storage.git_blob_sha(content) == by_git


def _indexes(url: str) -> set[str]:
    with connection(url) as conn:
        rows = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunk_embeddings'"
        ).fetchall()
    return {r["indexname"] for r in rows if "hnsw" in r["indexdef"]}


def test_a_model_gets_its_own_partial_hnsw_index_once(database_url):
    with transaction(database_url) as conn:
        storage.ensure_embedding_model(conn, "acme's-model", 8)
        storage.ensure_embedding_model(conn, "acme's-model", 8)
    assert _indexes(database_url) == {storage.model_index_name("acme's-model")}
    with connection(database_url) as conn:
        [definition] = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s",
            (storage.model_index_name("acme's-model"),),
        ).fetchall()
    assert "halfvec(8)" in definition["indexdef"]
    assert "'acme''s-model'" in definition["indexdef"]


def test_a_model_name_reused_with_other_dimensions_is_refused(database_url):
    with connection(database_url) as conn:
        storage.ensure_embedding_model(conn, "small", 8)
        with pytest.raises(ValueError, match="another model name"):
            storage.ensure_embedding_model(conn, "small", 16)


def test_vectors_are_stored_once_per_model_and_content(database_url):
    with transaction(database_url) as conn:
        storage.ensure_embedding_model(conn, "m", 2)
        storage.store_embeddings(conn, "m", ["h1", "h2"], [[1.0, 0.0], [0.0, 1.0]])
        storage.store_embeddings(conn, "m", ["h1"], [[0.5, 0.5]])
    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT content_hash, embedding::text AS v FROM chunk_embeddings ORDER BY 1"
        ).fetchall()
    assert rows == [{"content_hash": "h1", "v": "[1,0]"}, {"content_hash": "h2", "v": "[0,1]"}]


GO_METHOD_BEFORE_ITS_TYPE = b"""package shop

func (r *refund) Approve() bool {
\treturn r.total < 100
}

type refund struct {
\ttotal int
}
"""


def test_a_go_method_declared_above_its_receiver_type_is_stored_under_it(database_url):
    from indexing.parsing.parser import parse_file

    parsed = parse_file("shop/refund.go", GO_METHOD_BEFORE_ITS_TYPE)
    assert [(s.name, s.parent) for s in parsed.symbols] == [("Approve", 1), ("refund", None)]
    with transaction(database_url) as conn:
        repo = repositories.register(conn, "shop", "/nowhere/shop", "main")
        blob = storage.git_blob_sha(GO_METHOD_BEFORE_ITS_TYPE)
        file_version_id, _ = storage.claim_file_version(conn, repo.id, blob, "go", "v1", 80)
        storage.store_parsed_file(conn, file_version_id, parsed)
    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT s.name, p.name AS parent FROM code_symbols s"
            " LEFT JOIN code_symbols p ON p.id = s.parent_id ORDER BY s.ordinal"
        ).fetchall()
        chunks = conn.execute(
            "SELECT s.name FROM code_chunks c JOIN code_symbols s ON s.id = c.symbol_id"
            " ORDER BY c.start_line"
        ).fetchall()
    assert [(r["name"], r["parent"]) for r in rows] == [("Approve", "refund"), ("refund", None)]
    assert [c["name"] for c in chunks] == ["Approve", "refund"]
