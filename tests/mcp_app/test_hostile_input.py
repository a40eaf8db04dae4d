"""Hostile input: every bad value of every tool argument is answered with a valid result or one
clear line (never a traceback, a pydantic dump or a bare "Error executing tool"), and the server
answers normally after each."""

from __future__ import annotations

import re
from typing import Any

import anyio

from tests.mcp_app.conftest import payload
from tests.mcp_app.hostile_inputs import corpus

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
