"""Migrating a blank database creates the whole schema, once."""

from __future__ import annotations

import psycopg
import pytest

from codeatlas.core.database import connect_plain, with_database
from codeatlas.core.errors import DatabaseUnavailableError
from codeatlas.core.migrations import available_migrations, check_extensions, migrate


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
    assert "code_chunks_tsv_idx" not in indexes  # the ts_rank_cd path is gone
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
