"""The codeatlas MCP server: the tools of `mcp_app.tools` over the context `app_lifespan`
builds, every call's arguments checked first (`mcp_app.validation`)."""

from __future__ import annotations

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from pydantic import AnyHttpUrl

from core.version import package_version
from mcp_app.app_context import AppContext, ServerConfig, app_lifespan
from mcp_app.protected_resource import register_routes
from mcp_app.tools import TOOLS
from mcp_app.validation import argument_check

SERVER_NAME = "codeatlas"
INSTRUCTIONS = (
    "codeatlas indexes whole git repositories: search_code finds code by meaning and words, "
    "search_symbols by name, read_symbol shows a symbol's complete source, find_callers / "
    "find_callees walk the call graph, file_outline maps a file. Results carry path:start-end, "
    "the commit, and 'working-tree' for files you sent with index_file."
)


def build_server(
    config: ServerConfig,
    *,
    token_verifier: TokenVerifier | None = None,
    url: str = "http://127.0.0.1",
) -> MCPServer[AppContext]:
    """The MCP server for `config`; with a token verifier every HTTP request needs a token."""
    auth = None
    if token_verifier is not None:
        auth = AuthSettings(issuer_url=AnyHttpUrl(url), resource_server_url=None)
    server = MCPServer[AppContext](
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=package_version(),  # serverInfo.version, which clients show and log
        tools=TOOLS,
        lifespan=app_lifespan(config),
        auth=auth,
        token_verifier=token_verifier,
        log_level="WARNING",
        middleware=[argument_check(TOOLS)],
    )
    if token_verifier is not None:
        register_routes(server)
    return server
