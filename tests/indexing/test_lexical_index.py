"""The BM25 index of stored chunks: each chunk's terms written once per tokenizer version and
rewritten whole; postings as rows or blocks from them (sql/migrations/013)."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.database import connection, transaction
from core.terms import LEXICAL_VERSION, term_id
from indexing import lexical_index, repositories, storage
from indexing.file_index import store_file_version

SOURCE = b"def approve_refund(order):\n    return order.total < 100\n"


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
    """Every chunk's terms, one row per (chunk, term)."""
    with connection(url) as conn:
        return conn.execute(
            "SELECT t.chunk_id, p.term, p.tf, c.lexical_length FROM lexical_chunk_terms t"
            " JOIN code_chunks c ON c.id = t.chunk_id"
            " CROSS JOIN LATERAL codeatlas_chunk_terms(t.terms, t.tfs) AS p(term, tf)"
            " ORDER BY t.chunk_id, p.term"
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


def _lengths(url: str) -> list[dict]:
    with connection(url) as conn:
        return conn.execute("SELECT id, lexical_length FROM code_chunks ORDER BY id").fetchall()


def test_a_new_parse_writes_the_postings_a_reindex_of_its_stored_chunks_would(
    settings_env, database_url
):
    # a NUL byte is dropped from the stored text, and the terms are those of the stored text
    source = b"int ext4_map(struct inode *inode)\n{\n\treturn inode->i_bl\x00ocks + 1;\n}\n"
    with transaction(database_url) as conn:
        repo = repositories.register(conn, "linux", "/nowhere/linux", "main")
        fv_id, parsed = store_file_version(
            conn,
            repo.id,
            "fs/ext4/inode.c",
            storage.git_blob_sha(source),
            "c",
            source,
            "test-version",
            load_settings(),
        )
    assert parsed is not None
    at_parse, lengths_at_parse = _postings(database_url), _lengths(database_url)
    assert at_parse and all(row["lexical_length"] > 0 for row in lengths_at_parse)
    with transaction(database_url) as conn:
        version = conn.execute(
            "SELECT lexical_version FROM file_versions WHERE id = %s", (fv_id,)
        ).fetchone()
        lexical_index.index_file_terms(conn, fv_id, "fs/ext4/inode.c")
    assert version == {"lexical_version": LEXICAL_VERSION}
    assert _postings(database_url) == at_parse
    assert _lengths(database_url) == lengths_at_parse
    assert term_id("iblocks") in {p["term"] for p in at_parse}  # `i_bl\0ocks` stored as i_blocks


def test_postings_go_with_their_chunks_also_by_cascade(settings_env, database_url):
    source = b"int ext4_map(struct inode *inode)\n{\n\treturn inode->i_blocks;\n}\n"
    with transaction(database_url) as conn:
        repo = repositories.register(conn, "linux", "/nowhere/linux", "main")
        stored = [
            store_file_version(
                conn,
                repo.id,
                f"fs/ext4/{name}.c",
                storage.git_blob_sha(content),
                "c",
                content,
                "test-version",
                load_settings(),
            )[0]
            for name, content in (("inode", source), ("other", source + b"/* x */\n"))
        ]
    assert {p["chunk_id"] for p in _postings(database_url)}
    with transaction(database_url) as conn:  # posted as rows and as blocks
        assert lexical_index.post_file_versions(conn, repo.id, [stored[0]]) > 0
        lexical_index.build_blocks(conn, repo.id)
        lexical_index.post_file_versions(conn, repo.id)
    with transaction(database_url) as conn:  # a parse stored again replaces its postings
        conn.execute("UPDATE file_versions SET parsed_at = NULL WHERE id = %s", (stored[0],))
    with transaction(database_url) as conn:
        store_file_version(
            conn,
            repo.id,
            "fs/ext4/inode.c",
            storage.git_blob_sha(source),
            "c",
            source,
            "test-version",
            load_settings(),
        )
    with connection(database_url) as conn:
        for table in ("lexical_postings", "lexical_chunk_terms"):
            orphans = conn.execute(
                f"SELECT count(*) AS n FROM {table} p"
                " WHERE NOT EXISTS (SELECT 1 FROM code_chunks c WHERE c.id = p.chunk_id)"
            ).fetchone()
            assert orphans == {"n": 0}, table
    with transaction(database_url) as conn:  # pruned: chunks go by the file version's cascade
        conn.execute("DELETE FROM file_versions WHERE id = %s", (stored[1],))
    remaining = {p["chunk_id"] for p in _postings(database_url)}
    with connection(database_url) as conn:
        kept = {r["id"] for r in conn.execute("SELECT id FROM code_chunks").fetchall()}
    assert remaining == kept != set()
    with transaction(database_url) as conn:  # a deleted repository leaves no postings
        conn.execute("DELETE FROM repositories WHERE id = %s", (repo.id,))
    assert _postings(database_url) == []
    with connection(database_url) as conn:
        for table in ("lexical_postings", "lexical_blocks", "lexical_blocks_built"):
            assert conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone() == {"n": 0}
