"""Working-tree files (index_file) expire, stay within a per-principal quota, can be forgotten,
and cost bounded work however large the file."""

from __future__ import annotations

from core.database import connect
from tests.mcp_app.conftest import call_tools, make_server, payload

MONEY = "shop/money.py"


def _changed(shop_repo) -> str:
    return (shop_repo.path / MONEY).read_text() + (
        "\n\ndef apply_loyalty_discount(amount, years):\n    return round_cents(amount * 0.9)\n"
    )


def _overlay_state(url: str) -> dict:
    with connect(url) as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM overlay_files) AS overlays,"
            " (SELECT count(*) FROM file_versions fv WHERE NOT EXISTS (SELECT 1 FROM"
            "  snapshot_files sf WHERE sf.file_version_id = fv.id)) AS loose_versions,"
            " (SELECT count(*) FROM code_chunks c WHERE NOT EXISTS (SELECT 1 FROM"
            "  snapshot_files sf WHERE sf.file_version_id = c.file_version_id)) AS loose_chunks"
        ).fetchone()


def test_forget_file_brings_back_the_committed_version_and_deletes_what_it_stored(shop_repo):
    server = make_server(shop_repo.database_url, "local")
    indexed, found, forgot, after = call_tools(
        server,
        [
            ("index_file", {"repository": "shop", "path": MONEY, "content": _changed(shop_repo)}),
            ("search_code", {"query": "apply_loyalty_discount", "mode": "lexical"}),
            ("forget_file", {"repository": "shop", "path": MONEY}),
            ("search_code", {"query": "apply_loyalty_discount", "mode": "lexical"}),
        ],
    )
    assert payload(indexed)["expires_at"]
    assert payload(found)["results"][0]["source"] == "working-tree"
    assert payload(forgot)["removed"] == [MONEY]
    assert all(r["source"] == "commit" for r in payload(after)["results"])
    assert _overlay_state(shop_repo.database_url) == {
        "overlays": 0,
        "loose_versions": 0,
        "loose_chunks": 0,
    }


def test_a_principal_past_its_quota_gets_a_clear_refusal_but_may_replace_its_files(shop_repo):
    server = make_server(shop_repo.database_url, "local", overlay_max_files=2)
    calls = [
        ("index_file", {"repository": "shop", "path": f"shop/new_{i}.py", "content": f"X = {i}\n"})
        for i in range(3)
    ]
    calls.append(("index_file", {"repository": "shop", "path": "shop/new_0.py", "content": "Y=1"}))
    first, second, third, replaced = call_tools(server, calls)
    assert not first.is_error and not second.is_error and not replaced.is_error
    assert third.is_error
    assert "the limit is 2" in third.content[0].text and "forget_file" in third.content[0].text


def test_overlays_past_their_lifetime_are_dropped_with_their_chunks(shop_repo):
    server = make_server(shop_repo.database_url, "local", overlay_ttl_hours=1)
    call_tools(
        server,
        [("index_file", {"repository": "shop", "path": MONEY, "content": _changed(shop_repo)})],
    )
    with connect(shop_repo.database_url) as conn:
        conn.execute(
            "UPDATE overlay_files SET indexed_at = now() - interval '2 hours',"
            " expires_at = now() - interval '1 hour'"
        )
    # a new session starts by dropping what expired
    [status] = call_tools(server, [("list_repositories", {})])
    assert not status.is_error
    assert _overlay_state(shop_repo.database_url)["loose_chunks"] == 0
    assert _overlay_state(shop_repo.database_url)["overlays"] == 0


def test_an_expired_overlay_is_not_read_even_before_the_sweep_drops_it(shop_repo):
    import anyio
    from mcp.client import Client

    server = make_server(shop_repo.database_url, "local", overlay_ttl_hours=24)
    [indexed] = call_tools(
        server,
        [("index_file", {"repository": "shop", "path": MONEY, "content": _changed(shop_repo)})],
    )
    assert not indexed.is_error
    with connect(shop_repo.database_url) as conn:  # one minute past its 24 hours
        conn.execute(
            "UPDATE overlay_files SET indexed_at = now() - interval '24 hours 1 minute',"
            " expires_at = now() - interval '1 minute'"
        )
        conn.commit()
    calls = [
        ("read_symbol", {"repository": "shop", "name": "apply_loyalty_discount"}),
        ("search_symbols", {"name": "apply_loyalty_discount"}),
        ("file_outline", {"repository": "shop", "path": MONEY}),
        ("search_code", {"query": "apply_loyalty_discount", "mode": "lexical"}),
    ]

    async def reads_before_the_sweep() -> tuple[list, int]:
        # the row lock keeps the session's start-up sweep waiting; reads do not wait for it
        with connect(shop_repo.database_url) as holder:
            holder.execute("SELECT 1 FROM overlay_files FOR UPDATE")
            async with Client(server) as client:
                try:
                    results = [await client.call_tool(name, args) for name, args in calls]
                    unswept = _overlay_state(shop_repo.database_url)["overlays"]
                finally:
                    holder.commit()  # the sweep goes on
        return results, unswept

    (read, symbols, outline, found), unswept = anyio.run(reads_before_the_sweep)
    assert unswept == 1
    assert payload(read)["symbols"] == [] and "no such symbol" in payload(read)["note"]
    assert payload(symbols)["symbols"] == []
    names = [s["name"] for s in payload(outline)["symbols"]]
    assert "round_cents" in names and "apply_loyalty_discount" not in names
    assert all(r["source"] == "commit" for r in payload(found)["results"])
    assert _overlay_state(shop_repo.database_url)["overlays"] == 0


def test_index_file_embeds_within_its_time_budget_and_the_rest_stays_searchable(shop_repo):
    server = make_server(shop_repo.database_url, "local", index_file_seconds=0)
    indexed, found = call_tools(
        server,
        [
            ("index_file", {"repository": "shop", "path": MONEY, "content": _changed(shop_repo)}),
            ("search_code", {"query": "apply_loyalty_discount", "mode": "lexical"}),
        ],
    )
    info = payload(indexed)
    assert info["embedded_chunks"] == 0 and "budget" in info["note"]
    assert payload(found)["results"][0]["symbol"] == "apply_loyalty_discount"


def test_a_one_megabyte_data_file_is_indexed_and_one_of_too_many_chunks_refused(shop_repo):
    data = "TABLE = {\n" + "".join(f"    'key_{i}': [{i}, 'v{i}'],\n" for i in range(34_000))
    data = data[: 999_000 - 2] + "\n}\n"
    data = data[: data.rfind("\n", 0, 998_000)] + "\n}\n"
    functions = "".join(f"def f_{i}(a):\n    return a + {i}\n\n\n" for i in range(30_000))
    functions = functions[: functions.rfind("\n\n\ndef", 0, 999_000)] + "\n"
    assert len(data.encode()) <= 1_000_000 and len(functions.encode()) <= 1_000_000
    server = make_server(shop_repo.database_url, "local")
    results = call_tools(
        server,
        [
            ("index_file", {"repository": "shop", "path": "shop/table.py", "content": data}),
            ("index_file", {"repository": "shop", "path": "shop/many.py", "content": functions}),
        ],
    )
    table, many = results
    assert payload(table)["chunks"] >= 1
    assert many.is_error and "index_file takes at most 3,000" in many.content[0].text
