"""BM25 postings in blocks (sql/migrations/013): a term's postings best first in blocks of 128,
256, 512 and then 1,024; built from the chunk terms at a repository's first publish or when
the posting rows of later commits pass their share; the same search results from either."""

from __future__ import annotations

import pytest

from core.database import connect, connection, transaction
from core.terms import term_id
from indexing import lexical_index
from tests.retrieval.indexing import index_repository


def _refund_module(functions: int) -> str:
    """A module whose every function names `refund` a different number of times, at a
    different length (no two alike), so a term has many postings of different impacts."""
    return "".join(
        f"def check_{i}(order):\n"
        + "    refund = order.total\n" * (1 + i % 7)
        + "".join(f"    note_{j} = order.item_{j}\n" for j in range(i // 7))
        + "    return refund\n\n"
        for i in range(functions)
    )


@pytest.fixture
def shop(settings_env, database_url, tmp_path):
    from tests.conftest import GitRepo

    repo = GitRepo(tmp_path / "shop")
    repo.write("refunds.py", _refund_module(300))
    repo.write("orders.py", "def total(order):\n    return sum(order.items)\n")
    repo.commit("shop")
    index_repository(database_url, repo.path, "shop")
    return repo


def _repository_id(conn) -> int:
    return conn.execute("SELECT id FROM repositories WHERE name = 'shop'").fetchone()["id"]


def _decoded_blocks(conn, term: int) -> list[list[tuple[int, float]]]:
    """A term's blocks, each as its (chunk id, impact) pairs in stored order."""
    rows = conn.execute(
        "SELECT block, chunks, impacts FROM lexical_blocks WHERE term = %s ORDER BY block", (term,)
    ).fetchall()
    blocks = []
    for row in rows:
        ids, total = [], 0
        for delta in row["chunks"]:
            total += delta
            ids.append(total)
        blocks.append([(i, q / 10000) for i, q in zip(ids, row["impacts"], strict=True)])
    return blocks


def test_the_block_of_a_postings_rank(database_url):
    with connection(database_url) as conn:
        ranks = [0, 31, 32, 95, 96, 223, 224, 479, 480, 991, 992, 2015, 2016, 5000]
        blocks = [
            conn.execute("SELECT codeatlas_posting_block(%s) AS b", (r,)).fetchone()["b"]
            for r in ranks
        ]
    assert blocks == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 8]


def test_a_first_publish_builds_blocks_holding_every_posting_best_first(shop, database_url):
    conn = connect(database_url, autocommit=True)
    repo_id = _repository_id(conn)
    built = conn.execute(
        "SELECT block_postings, row_postings FROM lexical_blocks_built WHERE repository_id = %s",
        (repo_id,),
    ).fetchone()
    terms = conn.execute(
        "SELECT coalesce(sum(cardinality(terms)), 0) AS n FROM lexical_chunk_terms"
    ).fetchone()["n"]
    assert built == {"block_postings": terms, "row_postings": 0} and terms > 0
    assert conn.execute("SELECT count(*) AS n FROM lexical_postings").fetchone() == {"n": 0}
    assert conn.execute(
        "SELECT bool_and(lexical_posted) AS posted FROM file_versions"
    ).fetchone() == {"posted": True}
    blocks = _decoded_blocks(conn, term_id("refund"))
    # 300 functions name it (some in several pieces): blocks of 32, 64, 128, then the rest
    postings = sum(len(b) for b in blocks)
    assert 224 < postings <= 480 and [len(b) for b in blocks] == [32, 64, 128, postings - 224]
    for block in blocks:  # ids ascending inside a block
        assert [i for i, _ in block] == sorted(i for i, _ in block)
    # every posting of a block is at least as good as every one of the next
    for better, worse in zip(blocks, blocks[1:], strict=False):
        assert min(q for _, q in better) >= max(q for _, q in worse)
    # the impacts are BM25's term factor at the nominal length, from the chunk terms
    expected = {
        r["id"]: r["tf"]
        * 2.2
        / (r["tf"] + 1.2 * (0.25 + 0.75 * r["lexical_length"] / lexical_index.NOMINAL_AVG_LENGTH))
        for r in conn.execute(
            "SELECT c.id, c.lexical_length, p.tf FROM code_chunks c"
            " JOIN lexical_chunk_terms t ON t.chunk_id = c.id"
            " CROSS JOIN LATERAL codeatlas_chunk_terms(t.terms, t.tfs) AS p(term, tf)"
            " WHERE p.term = %s",
            (term_id("refund"),),
        ).fetchall()
    }
    stored = dict(pair for block in blocks for pair in block)
    assert stored.keys() == expected.keys()
    assert all(abs(stored[i] - expected[i]) <= 0.5e-4 for i in expected)
    conn.close()


def test_a_rare_terms_postings_share_its_buckets_row(shop, database_url):
    conn = connect(database_url, autocommit=True)
    postings = {
        r["term"]: r["chunks"]
        for r in conn.execute(
            "SELECT p.term, array_agg(t.chunk_id ORDER BY t.chunk_id) AS chunks"
            " FROM lexical_chunk_terms t CROSS JOIN LATERAL unnest(t.terms) AS p(term)"
            " GROUP BY p.term"
        ).fetchall()
    }
    rows = conn.execute("SELECT term, block, chunks, impacts, terms FROM lexical_blocks").fetchall()
    own = {r["term"] for r in rows if r["block"] >= 0}
    rare = {t for t, chunks in postings.items() if len(chunks) <= lexical_index.RARE_TERM_POSTINGS}
    assert rare and own == postings.keys() - rare
    assert all(r["terms"] is None for r in rows if r["block"] >= 0)
    shared: dict[int, list[int]] = {}
    for r in (r for r in rows if r["block"] < 0):
        ids, total = [], 0
        for delta in r["chunks"]:
            total += delta
            ids.append(total)
        assert ids == sorted(ids) and len(ids) == len(r["terms"]) == len(r["impacts"])
        for term, chunk_id in zip(r["terms"], ids, strict=True):
            assert r["term"] == term & 131071  # its bucket: the hash's last 17 bits
            shared.setdefault(term, []).append(chunk_id)
    assert shared == {t: postings[t] for t in rare}
    conn.close()


def _rows_instead_of_blocks(conn, repo_id: int) -> None:
    """The repository's postings as rows only, as a commit published after a build writes them."""
    conn.execute("DELETE FROM lexical_blocks")
    conn.execute("DELETE FROM lexical_blocks_built")
    conn.execute("UPDATE file_versions SET lexical_posted = false")
    with conn.transaction():
        lexical_index.post_file_versions(conn, repo_id)


def _search(conn, query: str) -> list[tuple[str, float]]:
    from retrieval.lexical import lexical_candidates
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, ensure_operator(conn), ["shop"])
    found = [
        (r["qualified_name"], round(r["rank"], 6))
        for r in lexical_candidates(conn, scope, query, 10)
    ]
    return sorted(found, key=lambda hit: (-hit[1], hit[0]))  # ties in name order


@pytest.mark.parametrize("budget", [4000, 100])
def test_blocks_and_rows_give_the_same_results(shop, database_url, monkeypatch, budget):
    import retrieval.lexical

    # 100: a term's read stops inside its second block of postings, or after 100 rows
    monkeypatch.setattr(retrieval.lexical, "TERM_BUDGET", budget)
    conn = connect(database_url, autocommit=True)
    queries = [
        "refund order",
        "refund note item",
        "total of the order items",
        "check_17",
        "check_41 note_41",  # rare terms: in their buckets' shared rows
    ]
    from_blocks = [_search(conn, q) for q in queries]
    _rows_instead_of_blocks(conn, _repository_id(conn))
    assert conn.execute("SELECT count(*) AS n FROM lexical_blocks").fetchone() == {"n": 0}
    assert [_search(conn, q) for q in queries] == from_blocks
    assert all(from_blocks) and from_blocks[3][0][0] == "check_17"
    conn.close()


def test_later_commits_are_posted_as_rows_and_folded_into_blocks_past_their_share(
    shop, database_url, monkeypatch
):
    shop.write("coupons.py", "def apply_coupon(order, coupon):\n    return order.refund(coupon)\n")
    shop.commit("coupons")
    index_repository(database_url, shop.path, "shop")
    conn = connect(database_url, autocommit=True)
    repo_id = _repository_id(conn)
    rows = conn.execute("SELECT count(*) AS n FROM lexical_postings").fetchone()["n"]
    built = conn.execute("SELECT block_postings, row_postings FROM lexical_blocks_built").fetchone()
    assert rows > 0 and built["row_postings"] == rows
    assert _search(conn, "apply coupon")[0][0] == "apply_coupon"
    # under its share: nothing to do; past it: one build holds everything and the rows go
    assert lexical_index.build_blocks_if_due(conn, repo_id) is None
    monkeypatch.setattr(lexical_index, "BUILD_MIN_POSTINGS", 0)
    monkeypatch.setattr(lexical_index, "BUILD_SHARE", rows / built["block_postings"] / 2)
    assert lexical_index.build_blocks_if_due(conn, repo_id) == built["block_postings"] + rows
    assert conn.execute("SELECT count(*) AS n FROM lexical_postings").fetchone() == {"n": 0}
    assert _search(conn, "apply coupon")[0][0] == "apply_coupon"
    conn.close()


def test_a_fold_in_parts_writes_what_one_build_writes(shop, database_url):
    conn = connect(database_url)  # not autocommit, as the snapshot asset's
    repo_id = _repository_id(conn)

    def stored() -> list[tuple]:
        rows = conn.execute(
            "SELECT term, block, chunks, impacts, terms FROM lexical_blocks ORDER BY term, block"
        ).fetchall()
        conn.commit()
        return [tuple(r.values()) for r in rows]

    whole = stored()
    postings = conn.execute("SELECT block_postings FROM lexical_blocks_built").fetchone()
    conn.commit()
    parts = [
        conn.execute(
            "SELECT count(*) AS n FROM lexical_blocks"
            " WHERE (codeatlas_rare_bucket(term) * 3) >> 17 = %s",
            (part,),
        ).fetchone()["n"]
        for part in range(3)
    ]
    conn.commit()
    assert all(parts)  # each of the three parts has blocks of its own to replace
    assert lexical_index.fold_blocks(conn, repo_id, parts=3) == postings["block_postings"]
    assert stored() == whole
    built = conn.execute("SELECT row_postings FROM lexical_blocks_built").fetchone()
    assert built == {"row_postings": 0}
    conn.close()


def test_a_build_keeps_the_rows_of_a_file_version_it_did_not_read(shop, database_url):
    # a commit published while a build runs: its rows stay until the next build
    conn = connect(database_url, autocommit=True)
    repo_id = _repository_id(conn)
    shop.write("late.py", "def late_refund(order):\n    return order\n")
    shop.commit("late")
    index_repository(database_url, shop.path, "shop")
    late = conn.execute(
        "SELECT count(*) AS n FROM lexical_postings p JOIN code_chunks c ON c.id = p.chunk_id"
        " WHERE c.qualified_name = 'late_refund'"
    ).fetchone()["n"]
    assert late > 0
    with transaction(database_url) as other:  # the late file's tokenizer is not the build's
        other.execute(
            "UPDATE file_versions SET lexical_version = 'an older one' WHERE id IN"
            " (SELECT file_version_id FROM code_chunks WHERE qualified_name = 'late_refund')"
        )
    with conn.transaction():
        lexical_index.build_blocks(conn, repo_id)
    kept = conn.execute("SELECT count(*) AS n FROM lexical_postings").fetchone()["n"]
    assert kept == late
    assert conn.execute(
        "SELECT row_postings FROM lexical_blocks_built WHERE repository_id = %s", (repo_id,)
    ).fetchone() == {"row_postings": late}
    conn.close()


def test_postings_of_equal_impact_are_read_lowest_chunk_first(
    settings_env, database_url, tmp_path, monkeypatch
):
    import retrieval.lexical
    from retrieval.lexical import lexical_candidates
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from tests.conftest import GitRepo

    # forty functions alike but for their names' digits: `zebra` has forty postings of one
    # impact, and a budget of five reads five of them; which five must not depend on the plan
    repo = GitRepo(tmp_path / "shop")
    repo.write(
        "ties.py",
        "".join(f"def tie_{i}(order):\n    return order.zebra\n\n" for i in range(10, 50)),
    )
    repo.commit("ties")
    index_repository(database_url, repo.path, "shop")
    monkeypatch.setattr(retrieval.lexical, "TERM_BUDGET", 5)
    conn = connect(database_url, autocommit=True)
    ids = [
        r["id"]
        for r in conn.execute(
            "SELECT id FROM code_chunks"
            " WHERE codeatlas_chunk_text(file_version_id, ordinal) LIKE '%%zebra%%' ORDER BY id"
        )
    ]
    scope = resolve_scope(conn, ensure_operator(conn), ["shop"])

    def read() -> list[int]:
        return [r["chunk_id"] for r in lexical_candidates(conn, scope, "zebra", 10)]

    assert len(ids) == 40 and read() == ids[:5]
    # a plan that groups a term's postings by hashing them, not in the order they are read
    conn.execute("SET enable_sort = off")
    assert read() == ids[:5]
    _rows_instead_of_blocks(conn, _repository_id(conn))
    assert read() == ids[:5]
    conn.close()
