"""Every tool through a real MCP client session on a real indexed repository."""

from __future__ import annotations

from tests.mcp_app.conftest import call_tools, payload


def test_search_code_returns_attributed_whole_symbols(operator_server, shop_repo):
    [result] = call_tools(operator_server, [("search_code", {"query": "round_cents", "limit": 3})])
    assert not result.is_error
    top = payload(result)["results"][0]
    assert top["symbol"] == "round_cents" and top["path"] == "shop/money.py"
    assert (top["start_line"], top["end_line"]) == (4, 6)
    assert top["commit"] == shop_repo.sha and top["source"] == "commit"
    assert top["repository"] == "shop" and "symbol" in top["retrievers"]


def test_search_code_pages_with_next_offset(operator_server):
    first, second = call_tools(
        operator_server,
        [
            ("search_code", {"query": "invoice amount cents", "mode": "lexical", "limit": 2}),
            (
                "search_code",
                {"query": "invoice amount cents", "mode": "lexical", "limit": 2, "offset": 2},
            ),
        ],
    )
    page1, page2 = payload(first), payload(second)
    assert len(page1["results"]) == 2 and page1["next_offset"] == 2
    seen = {(r["path"], r["start_line"]) for r in page1["results"]}
    assert not seen & {(r["path"], r["start_line"]) for r in page2["results"]}


def test_symbol_tools_find_read_and_outline(operator_server):
    symbols, read, outline = call_tools(
        operator_server,
        [
            ("search_symbols", {"name": "InvoiceBuilder.total"}),
            ("read_symbol", {"repository": "shop", "name": "is_eligible_for_refund"}),
            ("file_outline", {"repository": "shop", "path": "shop/money.py"}),
        ],
    )
    match = payload(symbols)["symbols"][0]
    assert (match["symbol"], match["match"], match["kind"]) == (
        "InvoiceBuilder.total",
        "exact",
        "method",
    )
    source = payload(read)["symbols"][0]
    assert source["code"].startswith("def is_eligible_for_refund(order, today):")
    assert source["code"].rstrip().endswith("<= 30")
    assert [s["symbol"] for s in payload(outline)["symbols"]] == ["round_cents", "convert_currency"]


def test_call_graph_tools_report_certain_sites(operator_server):
    callers, callees = call_tools(
        operator_server,
        [
            ("find_callers", {"repository": "shop", "name": "round_cents"}),
            ("find_callees", {"repository": "shop", "name": "InvoiceBuilder.render"}),
        ],
    )
    sites = payload(callers)
    assert sites["total"] == 3
    assert {s["certainty"] for s in sites["callers"]} == {"certain"}
    assert "self.total" in [s["callee"] for s in payload(callees)["callees"]]


def test_find_callers_says_when_a_name_has_more_calls_than_one_answer_resolves(
    operator_server, monkeypatch
):
    from retrieval import graph

    [whole] = call_tools(
        operator_server, [("find_callers", {"repository": "shop", "name": "round_cents"})]
    )
    assert "more_sites" not in payload(whole) and "note" not in payload(whole)
    monkeypatch.setattr(graph, "MAX_EDGES", 2)
    [capped] = call_tools(
        operator_server,
        [("find_callers", {"repository": "shop", "name": "round_cents", "limit": 1})],
    )
    answer = payload(capped)
    assert answer["more_sites"] is True and answer["note"].startswith("3 calls of this name")
    assert "these are the sites of 2, those in" in answer["note"]  # the window's own size
    assert answer["total"] == 2 and answer["next_offset"] == 1 and len(answer["callers"]) == 1


def test_status_and_repository_list_show_the_indexed_commit(operator_server, shop_repo):
    status, repos = call_tools(operator_server, [("index_status", {}), ("list_repositories", {})])
    [repo] = payload(status)["repositories"]
    assert repo["current_commit"] == shop_repo.sha and repo["lag_commits"] == 0
    assert "origin" not in repo
    assert [r["name"] for r in payload(repos)["repositories"]] == ["shop"]


def test_index_file_puts_an_uncommitted_file_in_front_for_its_principal_only(
    operator_server, shop_repo
):
    from tests.mcp_app.conftest import make_server

    changed = (shop_repo.path / "shop/money.py").read_text() + (
        "\n\ndef apply_loyalty_discount(amount, years):\n"
        "    return round_cents(amount * (1 - min(years, 10) / 100))\n"
    )
    indexed, found, read = call_tools(
        operator_server,
        [
            ("index_file", {"repository": "shop", "path": "shop/money.py", "content": changed}),
            ("search_code", {"query": "apply_loyalty_discount"}),
            ("read_symbol", {"repository": "shop", "name": "round_cents"}),
        ],
    )
    info = payload(indexed)
    assert info["source"] == "working-tree" and info["symbols"] == 3
    assert info["embedded_chunks"] > 0
    top = payload(found)["results"][0]
    assert (top["symbol"], top["source"]) == ("apply_loyalty_discount", "working-tree")
    assert payload(read)["symbols"][0]["source"] == "working-tree"

    from core.database import connect
    from retrieval.principals import create_principal, grant

    conn = connect(shop_repo.database_url, autocommit=True)
    create_principal(conn, "colleague")
    grant(conn, "colleague", "shop")
    conn.close()
    [other] = call_tools(
        make_server(shop_repo.database_url, "colleague"),
        [("search_code", {"query": "apply_loyalty_discount", "mode": "lexical"})],
    )
    assert all(r["source"] == "commit" for r in payload(other)["results"])
    assert "apply_loyalty_discount" not in [r["symbol"] for r in payload(other)["results"]]


def test_tools_are_annotated_read_only_except_index_file_and_forget_file(operator_server):
    import anyio

    tools = anyio.run(operator_server.list_tools)
    hints = {t.name: t.annotations.read_only_hint for t in tools}
    assert hints.pop("index_file") is False and hints.pop("forget_file") is False
    assert set(hints.values()) == {True} and len(hints) == 9
    destructive = {t.name for t in tools if t.annotations.destructive_hint}
    assert destructive == {"forget_file"}
    assert all(t.output_schema and t.output_schema["type"] == "object" for t in tools)
    schema = next(t for t in tools if t.name == "search_code").input_schema
    assert schema["properties"]["query"]["maxLength"] == 65_536
    assert schema["properties"]["limit"]["maximum"] == 50
    assert schema["properties"]["query"]["description"]
