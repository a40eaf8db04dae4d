"""What the server tells a client about itself when a session starts."""

from __future__ import annotations

from importlib.metadata import version

import anyio


def test_the_server_reports_its_name_and_the_package_version(operator_server):
    from mcp.client import Client

    async def info():
        async with Client(operator_server) as client:
            return client.server_info

    server_info = anyio.run(info)
    assert server_info.name == "codeatlas"
    assert server_info.version == version("codeatlas") != ""
