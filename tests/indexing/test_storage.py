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
