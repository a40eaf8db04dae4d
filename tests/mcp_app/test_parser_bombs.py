"""JSON built to break a parser (nesting 900 levels and deeper, a number of 10,000 digits) is
refused the same way over stdio and over HTTP: a JSON-RPC parse error, and the server goes on
serving. Over stdio such a line once killed the process (a RecursionError in the refusal)."""

from __future__ import annotations

import json

import httpx

from tests.mcp_app.hostile_inputs import stdio_exchange
from tests.mcp_app.test_http import HEADERS, INIT, _token, http_server  # noqa: F401
from tests.mcp_app.test_stdio import _refusal


def _nested(depth: int, request_id: int) -> str:
    arguments = '{"query": ' + "[" * depth + "]" * depth + "}"
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"search_code","arguments":{arguments}}}}}'
    )


BOMBS = [
    _nested(900, 2),
    _nested(100_000, 3),
    '{"jsonrpc":"2.0","id":4,"method":"ping","params":{"n":' + "9" * 10_000 + "}}",
]


def test_nesting_past_the_parsers_depth_is_a_parse_error_naming_it():
    from mcp_app.stdio import PARSE_ERROR

    for line in BOMBS[:2]:
        reply = _refusal(line)
        assert reply is not None and reply.id is None and reply.error.code == PARSE_ERROR
        assert "recursion limit exceeded" in reply.error.message
        assert "nested too deep" in reply.error.message


def test_a_lone_surrogate_deep_inside_a_message_is_still_found():
    deep = "[" * 150 + '"\\ud800"' + "]" * 150
    line = f'{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"x":{deep}}}}}'
    reply = _refusal(line)
    assert reply is not None and reply.id == 9 and "lone surrogate" in reply.error.message


def test_the_stdio_server_answers_each_bomb_and_serves_the_next_request(settings_env):
    init = {**INIT, "id": 1}
    lines = [json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}']
    lines += [*BOMBS, '{"jsonrpc":"2.0","id":5,"method":"tools/list"}']
    answers, alive = stdio_exchange(lines, len(BOMBS) + 2)
    assert alive
    bombs = [a for a in answers[1:] if "error" in a]
    assert [(a["id"], a["error"]["code"]) for a in bombs] == [(None, -32700)] * len(BOMBS)
    assert "tools" in next(a for a in answers if a.get("id") == 5)["result"]


def test_the_http_server_refuses_the_same_bombs_with_the_same_code(
    http_server,  # noqa: F811
    shop_repo,
):
    _, token = _token(shop_repo.database_url, "bomber", ["shop"])
    headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    for body in BOMBS:
        response = httpx.post(http_server, content=body, headers=headers, timeout=30)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700
    served = httpx.post(http_server, json=INIT, headers=headers, timeout=30)
    assert served.status_code == 200
