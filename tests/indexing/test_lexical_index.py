"""The BM25 postings of stored chunks: written once per tokenizer version, rewritten whole."""

from __future__ import annotations

import pytest

from codeatlas.core.config import load_settings
from codeatlas.core.database import connection, transaction
from codeatlas.core.terms import LEXICAL_VERSION, term_id
from indexing import lexical_index, repositories, storage
from indexing.file_index import store_file_version

SOURCE = b"def approve_refund(order):\n    return order.total < 100\n"


def test_impact_grows_with_term_frequency_and_shrinks_with_length():
    assert lexical_index.impact(1, 80) < lexical_index.impact(2, 80) < lexical_index.impact(9, 80)
    assert lexical_index.impact(2, 40) > lexical_index.impact(2, 80) > lexical_index.impact(2, 400)


@pytest.fixture
def file_version_id(settings_env, database_url) -> int:
    with transaction(database_url) as conn:
        repo = repositories.register(conn, "shop", "/nowhere/shop", "main")
        fv_id, _ = store_file_version(
            conn,
            repo.id,
            "shop/refunds.py",
            storage.git_blob_sha(SOURCE),
            "python",
            SOURCE,
            "test-version",
            load_settings(),
        )
    return fv_id


def _postings(url: str) -> list[dict]:
    with connection(url) as conn:
        return conn.execute(
            "SELECT chunk_id, term, tf, dl FROM lexical_postings ORDER BY chunk_id, term"
        ).fetchall()


def test_a_files_chunks_are_findable_by_their_words(database_url, file_version_id):
    with transaction(database_url) as conn:
        written = lexical_index.index_file_terms(conn, file_version_id, "shop/refunds.py")
    postings = _postings(database_url)
    assert written == len(postings) > 0
    assert {term_id("refund"), term_id("approv")} <= {p["term"] for p in postings}


def test_indexing_a_file_again_leaves_the_same_postings_and_its_tokenizer_version(
    database_url, file_version_id
):
    with transaction(database_url) as conn:
        lexical_index.index_file_terms(conn, file_version_id, "shop/refunds.py")
    first = _postings(database_url)
    with transaction(database_url) as conn:
        lexical_index.index_file_terms(conn, file_version_id, "shop/refunds.py")
        lexical_index.ensure_file_terms(conn, file_version_id, "shop/refunds.py")
        version = conn.execute(
            "SELECT lexical_version FROM file_versions WHERE id = %s", (file_version_id,)
        ).fetchone()
    assert _postings(database_url) == first
    assert version == {"lexical_version": LEXICAL_VERSION}
