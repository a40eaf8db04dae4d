"""Every invalid tool argument is answered with one line naming the argument and the rule."""

from __future__ import annotations

import pytest

from tests.mcp_app.conftest import call_tools

CASES = [
    ("search_code", {"query": "x", "limit": 51}, "limit: input should be less than or equal to 50"),
    (
        "search_code",
        {"query": "x" * 65_537},
        "query is 65,537 characters long; at most 65,536 allowed",
    ),
    # (pydantic's own words were "at most 500 items" for a name)
    (
        "search_symbols",
        {"name": "n" * 10_000},
        "name is 10,000 characters long; at most 500 allowed",
    ),
    (
        "search_code",
        {"query": "x", "repositories": ["shop"] * 21},
        "repositories: list should have at most 20 items",
    ),
    ("read_symbol", {"repository": "sh\x00op", "name": "a"}, "repository: must not contain NUL"),
    ("find_callers", {"repository": "shop", "name": "a\x00b"}, "name: must not contain NUL"),
    ("search_code", {"query": "x", "limit": "ten"}, "limit: input should be a valid integer"),
    ("file_outline", {"repository": "shop"}, "path is required"),
    ("search_code", {"query": "x", "commit": "HEAD~1"}, "commit: must be a commit sha"),
    ("list_repositories", {"verbose": True}, "'verbose' is not an argument of this tool"),
    ("search_code", {"query": ""}, "query is 0 characters long; at least 1 needed"),
    ("search_code", {"query": "  \t\n "}, "query: must say what to find (it is empty or only"),
]


@pytest.mark.parametrize(("tool", "args", "expected"), CASES, ids=[c[2][:30] for c in CASES])
def test_an_invalid_argument_gets_one_clear_line(operator_server, tool, args, expected):
    [result] = call_tools(operator_server, [(tool, args)])
    assert result.is_error
    text = result.content[0].text
    assert expected in text
    assert "\n" not in text and "pydantic" not in text and "Traceback" not in text


def test_the_message_never_echoes_the_value_sent(operator_server):
    [result] = call_tools(operator_server, [("search_code", {"query": "sekrit" * 11_000})])
    assert result.is_error and "sekrit" not in result.content[0].text
