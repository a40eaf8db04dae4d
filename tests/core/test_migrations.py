"""Migrating a blank database creates the whole schema, once."""

from __future__ import annotations

import psycopg
import pytest

from core.database import connect_plain, with_database
from core.errors import DatabaseUnavailableError
from core.migrations import available_migrations, check_extensions, migrate


def _blank(pg_server: str, name: str) -> str:
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(pg_server, name)


def test_migrating_a_blank_database_creates_every_table_index_and_extension(pg_server):
    conn = connect_plain(_blank(pg_server, "blank_schema"))
    applied = migrate(conn)
    assert applied == [m.version for m in available_migrations()]
    tables = {
        r["tablename"]
        for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    }
    assert {
        "repositories",
        "snapshots",
        "file_versions",
        "snapshot_files",
        "code_chunks",
        "code_symbols",
        "code_edges",
        "chunk_embeddings",
        "embedding_models",
        "webhook_events",
        "principals",
        "api_tokens",
        "repository_grants",
        "overlay_files",
        "schema_migrations",
    } <= tables
    extensions = {r["extname"] for r in conn.execute("SELECT extname FROM pg_extension")}
    assert {"vector", "pg_trgm"} <= extensions
    indexes = {
        r["indexname"]: r["indexdef"]
        for r in conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
        ).fetchall()
    }
    assert "gin_trgm_ops" in indexes["code_symbols_name_trgm_idx"]
    assert "(repository_id, term, impact DESC)" in indexes["lexical_postings_term_idx"]
    # compact postings (migration 011): no tf/dl in the term index, no (chunk_id, term) key, no dl
    assert indexes["lexical_postings_term_idx"].endswith("INCLUDE (chunk_id)")
    assert "lexical_postings_pkey" not in indexes
    assert indexes["lexical_postings_chunk_idx"].endswith("(chunk_id)")
    posting_columns = {
        r["attname"]
        for r in conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'lexical_postings'::regclass"
            " AND attnum > 0 AND NOT attisdropped"
        ).fetchall()
    }
    assert posting_columns == {"chunk_id", "term", "repository_id", "tf", "impact"}
    # no per-row foreign key check: a statement trigger deletes a chunk's postings with it
    assert not conn.execute(
        "SELECT 1 FROM pg_constraint WHERE conrelid = 'lexical_postings'::regclass"
        " AND contype = 'f'"
    ).fetchall()
    assert conn.execute(
        "SELECT 1 FROM pg_trigger WHERE tgname = 'code_chunks_delete_postings'"
    ).fetchall()
    assert "code_chunks_tsv_idx" not in indexes  # the ts_rank_cd path is gone
    # postings in blocks (migration 013): a term's blocks by their key, a chunk's terms by its
    assert indexes["lexical_blocks_pkey"].endswith("(repository_id, term, block)")
    assert indexes["lexical_chunk_terms_pkey"].endswith("(chunk_id)")
    assert "WHERE ((NOT lexical_posted)" in indexes["file_versions_unposted_idx"]
    # call edges (migration 012): a name's edges counted per file from the index alone; the
    # edges found by file version through a plain index instead of a key per edge
    assert indexes["code_edges_callee_idx"].endswith("(callee_name, kind, file_version_id)")
    assert indexes["code_edges_file_version_idx"].endswith("(file_version_id)")
    assert "code_edges_pkey" not in indexes
    assert indexes["snapshot_files_file_version_idx"].endswith("(file_version_id, snapshot_id)")
    column = conn.execute(
        "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute"
        " WHERE attrelid = 'chunk_embeddings'::regclass AND attname = 'embedding'"
    ).fetchone()
    assert column["t"] == "halfvec"
    conn.close()


def test_migrating_twice_applies_nothing_the_second_time(pg_server):
    conn = connect_plain(_blank(pg_server, "blank_twice"))
    migrate(conn)
    assert migrate(conn) == []
    conn.close()


def test_a_server_without_pgvector_gets_an_error_naming_the_missing_extension(pg_server):
    conn = connect_plain(_blank(pg_server, "blank_ext"))
    conn.execute(
        "CREATE TEMP VIEW pg_available_extensions AS"
        " SELECT 'pg_trgm'::name AS name, '1.6'::text AS default_version"
    )
    with pytest.raises(DatabaseUnavailableError, match="vector"):
        check_extensions(conn)
    conn.close()


def _migrated_below(pg_server, name: str, version: int, monkeypatch):
    """A new database migrated up to `version` (excluded): data as an older codeatlas left it;
    and a call applying the rest (through the version given, every one by default) that returns
    the versions it applied."""
    import core.migrations as migrations

    conn = connect_plain(_blank(pg_server, name))
    every = available_migrations()

    def migrate_rest(through: int | None = None) -> list[int]:
        kept = [m for m in every if through is None or m.version <= through]
        monkeypatch.setattr(migrations, "available_migrations", lambda: kept)
        return migrate(conn)

    migrate_rest(version - 1)
    return conn, migrate_rest


def _keys(conn, table: str) -> set[str]:
    """The names of a table's primary and foreign keys (a replaced table keeps the old names)."""
    rows = conn.execute(
        "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype IN ('p', 'f')",
        (table,),
    ).fetchall()
    return {r["conname"] for r in rows}


def _columns(conn, table: str) -> set[str]:
    rows = conn.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
        " AND NOT attisdropped",
        (table,),
    ).fetchall()
    return {r["attname"] for r in rows}


def test_vectors_kept_per_repository_become_one_per_content_keeping_the_oldest(
    pg_server, monkeypatch
):
    conn, migrate_rest = _migrated_below(pg_server, "blank_shared_vectors", 9, monkeypatch)
    conn.execute(
        "INSERT INTO repositories (id, name, origin) VALUES (1, 'shop', '/a'), (2, 'copy', '/b')"
    )
    conn.execute("INSERT INTO embedding_models (name, dimensions, index_name) VALUES ('m', 2, 'i')")
    conn.execute(
        "INSERT INTO chunk_embeddings (repository_id, embedding_model, content_hash, embedding,"
        " created_at) VALUES (1, 'm', 'h1', '[1,0]', now() - interval '1 day'),"
        " (2, 'm', 'h1', '[0,1]', now()), (2, 'm', 'h2', '[0,1]', now())"
    )
    assert 9 in migrate_rest()
    rows = conn.execute(
        "SELECT content_hash, embedding::text AS v FROM chunk_embeddings ORDER BY 1"
    ).fetchall()
    assert rows == [{"content_hash": "h1", "v": "[1,0]"}, {"content_hash": "h2", "v": "[0,1]"}]
    key = conn.execute(
        "SELECT pg_get_constraintdef(oid) AS d FROM pg_constraint"
        " WHERE conrelid = 'chunk_embeddings'::regclass AND contype = 'p'"
    ).fetchone()
    assert key["d"] == "PRIMARY KEY (embedding_model, content_hash)"
    conn.close()


def test_the_migrations_keep_the_numbers_and_names_databases_recorded():
    # `schema_migrations` of every existing database holds these (version, name) pairs: a
    # renumbered migration would run again there, a new one must take the next number
    recorded = [
        (1, "schema"),
        (2, "freshness"),
        (3, "embedding_model_dimensions"),
        (4, "symbol_parent_index"),
        (5, "lexical_bm25"),
        (6, "lexical_term_stats_covering"),
        (7, "chunk_content_by_file_version"),
        (8, "overlay_expires_at"),
        (9, "embedding_model_choice"),
        (10, "shared_chunk_embeddings"),
        (11, "lexical_postings_compact"),
        (12, "call_graph_indexes"),
        (13, "lexical_blocks"),
        (14, "rare_terms_shared"),
        (15, "chunk_text_pages"),
        (16, "term_frequencies_as_bytes"),
        (17, "partial_symbol_indexes"),
        (18, "smaller_first_blocks"),
    ]
    found = [(m.version, m.name) for m in available_migrations()]
    assert found[: len(recorded)] == recorded
    assert [v for v, _ in found] == list(range(1, len(found) + 1))


def test_posting_rows_become_chunk_terms_and_blocks(pg_server, monkeypatch):
    conn, migrate_rest = _migrated_below(pg_server, "blank_blocks", 13, monkeypatch)
    conn.execute("INSERT INTO repositories (id, name, origin) VALUES (1, 'shop', '/a')")
    conn.execute(
        "INSERT INTO file_versions (id, repository_id, blob_sha, language, parser_version,"
        " size_bytes, parsed_at, lexical_version) VALUES (1, 1, 'b', 'python', 'p', 1, now(), 'v')"
    )
    conn.execute(
        "INSERT INTO code_chunks (id, file_version_id, ordinal, symbol_kind, start_line, end_line,"
        " start_byte, end_byte, content, content_hash, lexical_length)"
        " SELECT i, 1, i, 'function', i, i, 0, 1, 'x', 'h' || i, 10 FROM generate_series(1, 200) i"
    )
    # term 7 in every chunk (impact falling with the id), term 8 in chunk 5 only
    conn.execute(
        "INSERT INTO lexical_postings (chunk_id, term, repository_id, tf, impact)"
        " SELECT i, 7, 1, 1 + (i % 3), 2.0 - i / 1000.0 FROM generate_series(1, 200) i"
        " UNION ALL SELECT 5, 8, 1, 4, 1.5"
    )
    assert 13 in migrate_rest(13)
    assert conn.execute("SELECT count(*) AS n FROM lexical_postings").fetchone() == {"n": 0}
    five = conn.execute("SELECT terms, tfs FROM lexical_chunk_terms WHERE chunk_id = 5").fetchone()
    assert five == {"terms": [7, 8], "tfs": [3, 4]}
    blocks = conn.execute(
        "SELECT term, block, chunks, impacts FROM lexical_blocks ORDER BY term, block"
    ).fetchall()
    # the best 128 of term 7 (ids 1..128) first, as differences; the other 72 next
    assert [(b["term"], b["block"], len(b["chunks"])) for b in blocks] == [
        (7, 0, 128),
        (7, 1, 72),
        (8, 0, 1),
    ]
    assert blocks[0]["chunks"] == [1] * 128 and blocks[1]["chunks"] == [129] + [1] * 71
    assert blocks[0]["impacts"][:2] == [19990, 19980] and blocks[2]["impacts"] == [15000]
    state = conn.execute("SELECT repository_id, block_postings FROM lexical_blocks_built")
    assert state.fetchall() == [{"repository_id": 1, "block_postings": 201}]
    posted = conn.execute("SELECT lexical_posted FROM file_versions").fetchone()
    assert posted == {"lexical_posted": True}
    conn.close()


def test_rare_terms_blocks_become_their_buckets_shared_rows(pg_server, monkeypatch):
    conn, migrate_rest = _migrated_below(pg_server, "blank_rare_terms", 14, monkeypatch)
    conn.execute("INSERT INTO repositories (id, name, origin) VALUES (1, 'shop', '/a')")
    # term 7 with 20 postings keeps its block; terms 5, 131077 (the same last 17 bits) and 8
    # with 1-3 postings each share their buckets' rows
    blocks = [
        (7, 0, [1] * 20, list(range(20, 0, -1))),
        (5, 0, [3, 4], [900, 800]),
        (131077, 0, [2, 5, 1], [700, 600, 500]),
        (8, 0, [9], [100]),
    ]
    for term, block, chunks, impacts in blocks:
        conn.execute(
            "INSERT INTO lexical_blocks (repository_id, term, block, chunks, impacts)"
            " VALUES (1, %s, %s, %s, %s)",
            (term, block, chunks, impacts),
        )
    assert 14 in migrate_rest()
    rows = conn.execute(
        "SELECT term, block, chunks, impacts, terms FROM lexical_blocks ORDER BY block, term"
    ).fetchall()
    # bucket 5: chunks 2 (131077), 3 (5), 7 (5 and 131077), 8 (131077), in order of (chunk, term)
    assert rows == [
        {
            "term": 5,
            "block": -1,
            "chunks": [2, 1, 4, 0, 1],
            "impacts": [700, 900, 800, 600, 500],
            "terms": [131077, 5, 5, 131077, 131077],
        },
        {"term": 8, "block": -1, "chunks": [9], "impacts": [100], "terms": [8]},
        {
            "term": 7,
            "block": 0,
            "chunks": [1] * 20,
            "impacts": list(range(20, 0, -1)),
            "terms": None,
        },
    ]
    index = conn.execute(
        "SELECT pg_get_indexdef('code_chunks_content_hash_idx'::regclass) AS d"
    ).fetchone()
    assert "USING hash (content_hash)" in index["d"]
    assert _keys(conn, "lexical_blocks") == {
        "lexical_blocks_pkey",
        "lexical_blocks_repository_id_fkey",
    }
    conn.close()


def test_chunk_texts_move_to_pages_and_content_hashes_keep_128_bits(pg_server, monkeypatch):
    conn, migrate_rest = _migrated_below(pg_server, "blank_text_pages", 15, monkeypatch)
    conn.execute("INSERT INTO repositories (id, name, origin) VALUES (1, 'shop', '/a')")
    conn.execute(
        "INSERT INTO file_versions (id, repository_id, blob_sha, language, parser_version,"
        " size_bytes, parsed_at) VALUES (1, 1, 'a', 'python', 'p', 1, now()),"
        " (2, 1, 'b', 'python', 'p', 1, now())"
    )
    # 70 chunks in file version 1 (three pages: 32, 32, 6), one in file version 2; hashes of
    # 64 characters, the first 32 of which are the chunk's number
    conn.execute(
        "INSERT INTO code_chunks (id, file_version_id, ordinal, symbol_kind, start_line, end_line,"
        " start_byte, end_byte, content, content_hash)"
        " SELECT i + 1, 1, i, 'function', i, i, 0, 1, 'def f' || i || '(): pass',"
        " lpad(i::text, 32, '0') || repeat('f', 32) FROM generate_series(0, 69) i"
        " UNION ALL SELECT 100, 2, 0, 'file', 1, 1, 0, 1, 'x = 1', repeat('e', 64)"
    )
    conn.execute("INSERT INTO embedding_models (name, dimensions, index_name) VALUES ('m', 2, 'i')")
    conn.execute(
        "INSERT INTO chunk_embeddings (embedding_model, content_hash, embedding)"
        " VALUES ('m', lpad('7', 32, '0') || repeat('f', 32), '[1,0]')"
    )
    assert 15 in migrate_rest()
    pages = conn.execute(
        "SELECT file_version_id, page, cardinality(texts) AS n FROM chunk_text_pages"
        " ORDER BY file_version_id, page"
    ).fetchall()
    assert [(p["file_version_id"], p["page"], p["n"]) for p in pages] == [
        (1, 0, 32),
        (1, 1, 32),
        (1, 2, 6),
        (2, 0, 1),
    ]
    texts = conn.execute(
        "SELECT ordinal, codeatlas_chunk_text(file_version_id, ordinal) AS text, content_hash"
        " FROM code_chunks ORDER BY id"
    ).fetchall()
    assert [t["text"] for t in texts] == [f"def f{i}(): pass" for i in range(70)] + ["x = 1"]
    assert [t["content_hash"] for t in texts] == [str(i).zfill(32) for i in range(70)] + ["e" * 32]
    assert "content" not in _columns(conn, "code_chunks")
    # the stored vector still belongs to the content whose hash was cut the same way
    joined = conn.execute(
        "SELECT c.ordinal FROM code_chunks c JOIN chunk_embeddings e USING (content_hash)"
    ).fetchall()
    assert joined == [{"ordinal": 7}]
    conn.close()


def test_term_frequencies_become_bytes_capped_at_255(pg_server, monkeypatch):
    conn, migrate_rest = _migrated_below(pg_server, "blank_tf_bytes", 16, monkeypatch)
    conn.execute(
        "INSERT INTO lexical_chunk_terms (chunk_id, terms, tfs)"
        " VALUES (1, '{7, 8, 9}', '{3, 1, 300}'), (2, '{}', '{}')"
    )
    assert 16 in migrate_rest()
    rows = conn.execute(
        "SELECT t.chunk_id, p.term, p.tf FROM lexical_chunk_terms t"
        " LEFT JOIN LATERAL codeatlas_chunk_terms(t.terms, t.tfs) p ON true ORDER BY 1, 2"
    ).fetchall()
    assert [(r["chunk_id"], r["term"], r["tf"]) for r in rows] == [
        (1, 7, 3),
        (1, 8, 1),
        (1, 9, 255),
        (2, None, None),
    ]
    stored = conn.execute("SELECT tfs FROM lexical_chunk_terms WHERE chunk_id = 1").fetchone()
    assert stored == {"tfs": bytes([3, 1, 255])}
    conn.close()


def test_blocks_are_cut_again_from_32_postings_keeping_their_order(pg_server, monkeypatch):
    conn, migrate_rest = _migrated_below(pg_server, "blank_small_blocks", 18, monkeypatch)
    conn.execute("INSERT INTO repositories (id, name, origin) VALUES (1, 'shop', '/a')")
    # term 7: 200 postings in the old blocks of 128 and 72 (chunk i has impact 1000 - i, so
    # rank i - 1), as differences; term 9's bucket row (block -1) stays as it is
    for block, ids in ((0, range(1, 129)), (1, range(129, 201))):
        ids = list(ids)
        deltas = [ids[0]] + [b - a for a, b in zip(ids, ids[1:], strict=False)]
        conn.execute(
            "INSERT INTO lexical_blocks (repository_id, term, block, chunks, impacts)"
            " VALUES (1, 7, %s, %s, %s)",
            (block, deltas, [1000 - i for i in ids]),
        )
    conn.execute(
        "INSERT INTO lexical_blocks (repository_id, term, block, chunks, impacts, terms)"
        " VALUES (1, 9, -1, '{4, 1}', '{50, 40}', '{9, 131081}')"
    )
    assert 18 in migrate_rest()
    rows = conn.execute(
        "SELECT term, block, chunks, impacts, terms FROM lexical_blocks ORDER BY term, block"
    ).fetchall()
    assert [(r["term"], r["block"], len(r["chunks"])) for r in rows] == [
        (7, 0, 32),
        (7, 1, 64),
        (7, 2, 104),
        (9, -1, 2),
    ]
    assert rows[1]["chunks"] == [33] + [1] * 63 and rows[1]["impacts"][0] == 1000 - 33
    assert rows[3] == {
        "term": 9,
        "block": -1,
        "chunks": [4, 1],
        "impacts": [50, 40],
        "terms": [9, 131081],
    }
    assert _keys(conn, "lexical_blocks") == {
        "lexical_blocks_pkey",
        "lexical_blocks_repository_id_fkey",
    }
    conn.close()
