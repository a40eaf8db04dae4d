"""The scale benchmark's copies of a repository (lab/lexical_scale.py) hold its whole
lexical index, blocks included: a copy answers a question as its source does."""

from __future__ import annotations

from core.database import connect
from tests.retrieval.indexing import index_repository


def _lexical(conn, name: str, query: str) -> list[tuple[str, float]]:
    from retrieval.lexical import lexical_candidates
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, ensure_operator(conn), [name])
    return sorted(
        (r["qualified_name"], round(r["rank"], 6))
        for r in lexical_candidates(conn, scope, query, 10)
    )


def test_a_copy_answers_as_its_source(settings_env, database_url, tmp_path):
    from lab.lexical_scale import copy_repository
    from tests.conftest import GitRepo

    repo = GitRepo(tmp_path / "shop")
    repo.write("refunds.py", "def refund(order):\n    return order.total\n")
    repo.write("orders.py", "def total(order):\n    return sum(order.items)\n")
    repo.commit("shop")
    index_repository(database_url, repo.path, "shop")
    conn = connect(database_url, autocommit=True)
    offset = conn.execute(
        "SELECT greatest((SELECT max(id) FROM code_chunks), (SELECT max(id) FROM code_symbols),"
        " (SELECT max(id) FROM file_versions), (SELECT max(id) FROM snapshots)) AS m"
    ).fetchone()["m"]
    with conn.transaction():
        copy_repository(conn, "shop", "copy-of-shop", offset)
    assert conn.execute("SELECT count(*) AS n FROM lexical_blocks").fetchone()["n"] > 0
    for query in ("refund order", "total items"):
        assert _lexical(conn, "copy-of-shop", query) == _lexical(conn, "shop", query) != []
    # every chunk of the copy has its text (its own file versions' pages)
    textless = conn.execute(
        "SELECT count(*) AS n FROM code_chunks c"
        " WHERE codeatlas_chunk_text(c.file_version_id, c.ordinal) IS NULL"
    ).fetchone()
    assert textless == {"n": 0}
    # the copy's blocks hold its own chunks: the first id of each block shifted, no other
    blocks = conn.execute(
        "SELECT r.name, b.term, b.block, b.chunks FROM lexical_blocks b"
        " JOIN repositories r ON r.id = b.repository_id ORDER BY b.term, b.block, r.name"
    ).fetchall()
    pairs = {}
    for row in blocks:
        pairs.setdefault((row["term"], row["block"]), {})[row["name"]] = row["chunks"]
    for pair in pairs.values():
        copy, source = pair["copy-of-shop"], pair["shop"]
        assert copy[0] == source[0] + offset and copy[1:] == source[1:]
    conn.close()
