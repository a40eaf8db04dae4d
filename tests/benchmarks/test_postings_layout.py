"""The block-compressed postings prototype (benchmarks/postings_layout.py) holds exactly the
postings of the rows, decoded back from their differences, whatever the block size."""

from __future__ import annotations

import pytest

from benchmarks.postings_layout import (
    build_blocks,
    measure,
    read_blocks,
    read_rows,
    within_budget,
)
from core.database import connect
from indexing.embedding.fake import FakeEmbedder
from tests.retrieval.indexing import index_repository


@pytest.fixture
def indexed(settings_env, database_url, git_repo):
    for i in range(6):
        git_repo.write(
            f"shop/m{i}.py",
            f"def refund_{i}(order):\n    return order.total * {i}\n\n"
            f"def cancel_{i}(order):\n    order.cancelled = True\n    return order\n",
        )
    git_repo.commit()
    index_repository(database_url, git_repo.path, "shop", embedder=FakeEmbedder())
    conn = connect(database_url)
    conn.autocommit = True
    yield conn
    conn.close()


@pytest.mark.parametrize("size", [1, 3, 1024])
def test_blocks_hold_exactly_the_rows_postings(indexed, size):
    conn = indexed
    shop = conn.execute("SELECT id FROM repositories WHERE name = 'shop'").fetchone()["id"]
    terms = [r["term"] for r in conn.execute("SELECT DISTINCT term FROM lexical_postings")]
    rows = read_rows(conn, shop, terms, 10_000)
    assert len(rows) > 50

    built = build_blocks(conn, shop, size)

    assert built["postings"] == len(rows) and built["bytes"] > 0
    blocks = read_blocks(conn, terms, 10_000)
    # tf is kept in quarters: the field weights are multiples of a quarter
    assert sorted(blocks) == sorted((t, c, round(tf * 4) / 4) for t, c, tf in rows)
    # a term's blocks come best impact first, as the rows' index reads them: each block's
    # postings score at least as much as any of a later block
    common = max(terms, key=lambda t: sum(r[0] == t for r in rows))
    impacts = conn.execute(
        "SELECT b.block, min(p.impact) AS low, max(p.impact) AS high, max(b.top) AS top"
        " FROM blocks b CROSS JOIN LATERAL unnest(b.chunks) WITH ORDINALITY AS u(d, i)"
        " JOIN (SELECT chunk_id, impact FROM lexical_postings WHERE term = %(t)s) p"
        " ON p.chunk_id = (SELECT sum(x) FROM unnest(b.chunks[1:i]) x)"
        " WHERE b.term = %(t)s GROUP BY b.block ORDER BY b.block",
        {"t": common},
    ).fetchall()
    assert len(impacts) == -(-sum(r[0] == common for r in rows) // size)
    for before, after in zip(impacts, impacts[1:], strict=False):
        assert before["low"] >= after["high"]
    assert all(abs(b["top"] - b["high"]) < 1e-6 for b in impacts)


def test_the_measurement_reports_both_layouts(indexed):
    result = measure(indexed, "shop", [2, 64], queries=2)
    assert result["postings"] > 50 and result["rows_bytes_per_posting"] > 0
    assert set(result["blocks"]) == {2, 64}
    assert all(b["postings"] == result["postings"] for b in result["blocks"].values())
    assert not indexed.execute("SELECT to_regclass('pg_temp.blocks') AS t").fetchone()["t"]


def test_pruning_to_the_read_budget_keeps_each_terms_best_postings_only(indexed):
    conn = indexed
    shop = conn.execute("SELECT id FROM repositories WHERE name = 'shop'").fetchone()["id"]
    per_term = [
        r["n"]
        for r in conn.execute(
            "SELECT count(*) AS n FROM lexical_postings WHERE repository_id = %s GROUP BY term",
            (shop,),
        )
    ]
    assert max(per_term) >= 6  # `order`, `return`: in every file
    assert within_budget(conn, shop, 1) == len(per_term)
    assert within_budget(conn, shop, 3) == sum(min(n, 3) for n in per_term) < sum(per_term)
    assert within_budget(conn, shop, 10_000) == sum(per_term)
