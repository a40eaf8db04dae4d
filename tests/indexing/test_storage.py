"""Storage writes: content-addressed blobs of parsed files."""

from __future__ import annotations

import subprocess

from core.database import connection, transaction
from indexing import repositories, storage


def test_blob_shas_are_gits_own(tmp_path):
    content = b"def refund(order):\n    return order.total\n"
    (tmp_path / "f.py").write_bytes(content)
    by_git = subprocess.run(
        ["git", "hash-object", str(tmp_path / "f.py")], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert storage.git_blob_sha(content) == by_git


def _store(conn, path: str, source: bytes, language: str, parsed=None) -> int:
    """`source` parsed and stored as a file version of a new repository `shop`; its id."""
    from indexing.parsing.parser import parse_file

    repo = repositories.register(conn, "shop", "/nowhere/shop", "main")
    blob = storage.git_blob_sha(source)
    file_version_id, _ = storage.claim_file_version(conn, repo.id, blob, language, "v1", 9)
    storage.store_parsed_file(conn, file_version_id, parsed or parse_file(path, source))
    return file_version_id


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
        _store(conn, "shop/refund.go", GO_METHOD_BEFORE_ITS_TYPE, "go", parsed)
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


def test_chunk_texts_are_stored_in_compressed_pages_and_read_back_per_chunk(database_url):
    from indexing.parsing.parser import parse_file

    # 70 functions: three pages of texts (32, 32, 6), the first two past PostgreSQL's ~2 kB
    # compression threshold
    source = "".join(
        f"def refund_rule_{i}(order):\n    return order.total * {i} > {i * 7} and order.paid\n\n"
        for i in range(70)
    ).encode()
    parsed = parse_file("shop/rules.py", source)
    assert len(parsed.chunks) == 70
    with transaction(database_url) as conn:
        file_version_id = _store(conn, "shop/rules.py", source, "python", parsed)
        # a second store of the same file version replaces its pages, as it replaces its chunks
        storage.store_parsed_file(conn, file_version_id, parsed)
    with connection(database_url) as conn:
        texts = conn.execute(
            "SELECT codeatlas_chunk_text(file_version_id, ordinal) AS text FROM code_chunks"
            " ORDER BY ordinal"
        ).fetchall()
        pages = conn.execute(
            "SELECT page, cardinality(texts) AS n, pg_column_size(texts) AS stored,"
            " octet_length(array_to_string(texts, '')) AS raw FROM chunk_text_pages ORDER BY page"
        ).fetchall()
    assert [t["text"] for t in texts] == [c.content for c in parsed.chunks]
    assert [(p["page"], p["n"]) for p in pages] == [(0, 32), (1, 32), (2, 6)]
    assert all(p["stored"] < p["raw"] / 2 for p in pages[:2])


def test_lookups_by_a_symbols_id_use_the_indexes_without_nulls(database_url):
    source = b"import os\n\nos.getcwd()\n\ndef refund(order):\n    return total(order)\n"
    with transaction(database_url) as conn:
        _store(conn, "shop/refunds.py", source, "python")
    with transaction(database_url) as conn:
        # a file-level chunk and a call at file level hold NULL, which the indexes leave out
        nulls = conn.execute(
            "SELECT (SELECT count(*) FROM code_chunks WHERE symbol_id IS NULL) AS chunks,"
            " (SELECT count(*) FROM code_edges WHERE caller_symbol_id IS NULL) AS edges"
        ).fetchone()
        assert nulls["chunks"] > 0 and nulls["edges"] > 0
        conn.execute("SET LOCAL enable_seqscan = off")
        for table, column, index in (
            ("code_chunks", "symbol_id", "code_chunks_symbol_idx"),
            ("code_edges", "caller_symbol_id", "code_edges_caller_idx"),
            ("code_symbols", "parent_id", "code_symbols_parent_idx"),
        ):
            plan = conn.execute(
                f"EXPLAIN SELECT * FROM {table} WHERE {column} = %s",  # type: ignore[arg-type]
                (1,),
            ).fetchall()
            assert index in " ".join(r["QUERY PLAN"] for r in plan), (table, plan)
        # the cascade from a deleted symbol still finds its chunks and calls
        refund = conn.execute("SELECT id FROM code_symbols WHERE name = 'refund'").fetchone()
        conn.execute("DELETE FROM code_symbols WHERE id = %s", (refund["id"],))
        left = conn.execute(
            "SELECT (SELECT count(*) FROM code_chunks WHERE symbol_id = %(id)s) AS chunks,"
            " (SELECT count(*) FROM code_edges WHERE caller_symbol_id = %(id)s) AS edges",
            {"id": refund["id"]},
        ).fetchone()
        assert left == {"chunks": 0, "edges": 0}
