"""Fixtures: the MCP server over a real indexed repository, talked to through the SDK's
in-memory client; helpers to call tools and read their JSON."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from tests.retrieval.conftest import IndexedRepo, conn, shop_repo  # noqa: F401


def make_server(database_url: str, principal: str, **limits: Any):
    """A server whose requests all come from `principal` (as over stdio), with these limits."""
    from core.config import load_settings
    from mcp_app.app_context import ServerConfig
    from mcp_app.limits import ServerLimits
    from mcp_app.server import build_server

    return build_server(
        ServerConfig(database_url, load_settings(), principal, limits=ServerLimits(**limits))
    )


def payload(result: Any) -> dict[str, Any]:
    """A tool result's JSON (structured content, else the text block)."""
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def call_tools(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run tool calls in one in-memory client session; return the raw results in order."""
    from mcp.client import Client

    async def run() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


@pytest.fixture
def operator_server(shop_repo: IndexedRepo):  # noqa: F811
    """The server as the operator principal 'local'."""
    return make_server(shop_repo.database_url, "local")
