"""Hostile input: every bad value of every tool argument is answered with a valid result or one
clear line (never a traceback, a pydantic dump or a bare "Error executing tool"), and the server
answers normally after each."""

from __future__ import annotations

import re
from typing import Any

import anyio

from tests.mcp_app.conftest import payload
from tests.mcp_app.hostile_inputs import corpus, stdio_exchange

UNCLEAR = re.compile(
    r"Traceback|pydantic|errors\.pydantic\.dev|psycopg|validation error for|"
    r"^Error executing tool \w+$|\n"
)


def is_clear(text: str) -> bool:
    """One line, at most 300 characters, naming no internals."""
    return len(text) <= 300 and not UNCLEAR.search(text)


def run_corpus(server: Any, cases: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Call each case, then a health check; tally the answers."""
    from mcp.client import Client

    tally: dict[str, Any] = {"tried": 0, "clear_errors": 0, "accepted": 0, "unclear": []}

    async def run() -> None:
        async with Client(server) as client:
            for tool, args in cases:
                result = await client.call_tool(tool, args)
                tally["tried"] += 1
                if result.is_error:
                    text = result.content[0].text
                    if is_clear(text):
                        tally["clear_errors"] += 1
                    else:
                        tally["unclear"].append((tool, repr(args)[:120], text[:300]))
                else:
                    tally["accepted"] += 1
                health = await client.call_tool("list_repositories", {})
                assert not health.is_error, f"unhealthy after {tool} {repr(args)[:120]}"
                assert payload(health)["repositories"][0]["name"] == "shop"

    anyio.run(run)
    return tally


def test_every_bad_argument_of_every_tool_gets_a_clear_answer_and_the_server_stays_up(
    operator_server,
):
    cases = corpus()
    tally = run_corpus(operator_server, cases)
    print(f"\nMCP hostile input: {tally['tried']} tried, {tally['clear_errors']} clear errors,"
          f" {tally['accepted']} accepted as valid, {len(tally['unclear'])} unclear")  # fmt: skip
    assert tally["unclear"] == []
    assert tally["tried"] == len(cases) > 400
    assert tally["clear_errors"] > 300


STDIO_LINES = [
    # (id, the line as sent): the lone surrogate in an argument, in a tool name, in an id string;
    # a line that is no JSON; a request that is JSON-RPC in no known shape; a good request last
    (2, r'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_code",'
        r'"arguments":{"query":"\ud800"}}}'),
    (3, r'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\udfff",'
        r'"arguments":{}}}'),
    (None, r'{"jsonrpc":"2.0","id":"x\ud800","method":"tools/list"}'),  # an id not writable
    (None, "this is not json"),
    (5, '{"jsonrpc":"2.0","id":5,"method":5}'),
    (6, '{"jsonrpc":"2.0","id":6,"method":"tools/list"}'),
]  # fmt: skip


def test_every_stdio_request_is_answered_whatever_its_text(settings_env):
    """The real `codeatlas serve-mcp` process: each line gets one reply with its id (a lone
    surrogate included, which the SDK's transport drops without a word)."""
    import json

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}  # fmt: skip
    lines = [json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}']
    lines += [line for _id, line in STDIO_LINES]
    answers, _alive = stdio_exchange(lines, len(STDIO_LINES) + 1)
    ids = sorted(json.dumps(a.get("id")) for a in answers[1:])
    assert ids == sorted(json.dumps(i) for i, _line in STDIO_LINES)
    by_id = {json.dumps(a.get("id")): a for a in answers[1:] if a.get("id") is not None}
    nulls = [a["error"] for a in answers[1:] if a.get("id") is None]
    for request_id in ("2", "3"):
        message = by_id[request_id]["error"]["message"]
        assert "lone surrogate" in message and is_clear(message)
    assert sorted(e["code"] for e in nulls) == [-32700, -32600]
    assert by_id["5"]["error"]["code"] == -32600
    assert "tools" in by_id["6"]["result"]
