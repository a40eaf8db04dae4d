"""Working-tree files leave nothing behind (issue 47): after many index_file and forget_file
calls by several principals, same paths repeated, every table holds what a clean index of the
same commit holds, and lexical, semantic and hybrid search answer the same lists."""

from __future__ import annotations

from typing import Any

from core.database import connect, transaction
from retrieval.principals import create_principal, grant
from tests.mcp_app.conftest import call_tools, make_server, payload

MONEY = "shop/money.py"
BILLING = "shop/billing.py"
QUERIES = [
    "round cents",
    "refund within thirty days",
    "invoice total of the order lines",
    "shipping zone weight distance",
    "convert currency rate",
]
MODES = ["lexical", "semantic", "hybrid"]
# every table an overlay writes to, directly or through the one write path
TABLES = [
    "file_versions",
    "code_chunks",
    "chunk_text_pages",
    "code_symbols",
    "code_edges",
    "lexical_postings",
    "lexical_chunk_terms",
    "lexical_blocks",
    "chunk_embeddings",
    "overlay_files",
]


def row_counts(url: str) -> dict[str, int]:
    """Rows per table an overlay touches."""
    with connect(url) as conn:
        return {
            table: conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()["n"]
            for table in TABLES
        }


def unreferenced(url: str) -> dict[str, int]:
    """Rows nothing reaches any more: file versions outside every snapshot and overlay, and
    vectors of contents no chunk holds."""
    with connect(url) as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM file_versions fv"
            "  WHERE NOT EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.file_version_id = fv.id)"
            "  AND NOT EXISTS (SELECT 1 FROM overlay_files o WHERE o.file_version_id = fv.id))"
            "  AS file_versions,"
            " (SELECT count(*) FROM chunk_embeddings e WHERE NOT EXISTS"
            "  (SELECT 1 FROM code_chunks c WHERE c.content_hash = e.content_hash)) AS vectors,"
            " (SELECT count(*) FROM lexical_chunk_terms t WHERE NOT EXISTS"
            "  (SELECT 1 FROM code_chunks c WHERE c.id = t.chunk_id)) AS chunk_terms"
        ).fetchone()


def answers(server: Any) -> list[list[tuple]]:
    """Every query in every mode: the hits as (path, lines, symbol, score, retrievers, source)."""
    calls = [
        ("search_code", {"query": q, "mode": mode, "limit": 10}) for q in QUERIES for mode in MODES
    ]
    lists = []
    for result in call_tools(server, calls):
        assert not result.is_error, result.content[0].text
        lists.append(
            [
                (
                    h["path"],
                    h["start_line"],
                    h["end_line"],
                    h.get("symbol"),
                    round(h["score"], 6),
                    tuple(h["retrievers"]),
                    h["source"],
                )
                for h in payload(result)["results"]
            ]
        )
    return lists


def _edit(base: str, i: int) -> str:
    return base + (
        f"\n\ndef overlay_helper_{i}(amount, rate):\n"
        f"    '''Round the converted refund amount, edit {i}.'''\n"
        f"    return round_cents(amount * rate * {i + 2})\n"
    )


def churn(url: str, principals: list[str], root) -> None:
    """Many index_file / forget_file calls: each principal replaces the same paths over and
    over, sends a new file, forgets one path, then everything."""
    money = (root / MONEY).read_text()
    billing = (root / BILLING).read_text()
    for principal in principals:
        calls: list[tuple[str, dict[str, Any]]] = []
        for i in range(6):
            calls.append(
                ("index_file", {"repository": "shop", "path": MONEY, "content": _edit(money, i)})
            )
            calls.append(
                (
                    "index_file",
                    {"repository": "shop", "path": BILLING, "content": _edit(billing, i)},
                )
            )
        calls.append(
            ("index_file", {"repository": "shop", "path": "shop/new.py", "content": "X = 1\n"})
        )
        # the committed content itself, as an overlay: its version is the snapshot's, and
        # replacing or forgetting it must not delete what the snapshot uses
        calls.append(("index_file", {"repository": "shop", "path": MONEY, "content": money}))
        calls.append(("forget_file", {"repository": "shop", "path": "shop/new.py"}))
        calls.append(
            ("index_file", {"repository": "shop", "path": MONEY, "content": _edit(money, 9)})
        )
        results = call_tools(make_server(url, principal), calls)
        assert not any(r.is_error for r in results), [r.content[0].text for r in results]


def test_replaced_and_forgotten_overlays_leave_the_index_as_a_clean_one(shop_repo):
    url = shop_repo.database_url
    with transaction(url) as conn:
        for name in ("alice", "bob"):
            create_principal(conn, name)
            grant(conn, name, "shop")
    clean_counts = row_counts(url)
    clean = {p: answers(make_server(url, p)) for p in ("local", "alice", "bob")}
    assert all(clean["local"]), "every query in every mode should find something"

    churn(url, ["alice", "bob", "local", "alice"], shop_repo.path)
    # while alice and bob still keep overlays, replaced versions are already gone ...
    assert unreferenced(url) == {"file_versions": 0, "vectors": 0, "chunk_terms": 0}
    with connect(url) as conn:
        kept = conn.execute("SELECT count(*) AS n FROM overlay_files").fetchone()["n"]
    assert kept == 2 * 3  # MONEY and BILLING for each of the three principals

    forgets = [("forget_file", {"repository": "shop"})]
    for principal in ("alice", "bob", "local"):
        [forgot] = call_tools(make_server(url, principal), forgets)
        assert sorted(payload(forgot)["removed"]) == [BILLING, MONEY]

    # ... and once they are forgotten the index is the clean one, row for row and list for list
    assert unreferenced(url) == {"file_versions": 0, "vectors": 0, "chunk_terms": 0}
    assert row_counts(url) == clean_counts
    for principal in ("local", "alice", "bob"):
        assert answers(make_server(url, principal)) == clean[principal], principal


def test_another_principals_replaced_overlays_do_not_change_my_results(shop_repo):
    url = shop_repo.database_url
    with transaction(url) as conn:
        for name in ("alice", "bob"):
            create_principal(conn, name)
            grant(conn, name, "shop")
    clean = answers(make_server(url, "bob"))
    churn(url, ["alice", "alice", "alice"], shop_repo.path)
    assert answers(make_server(url, "bob")) == clean
