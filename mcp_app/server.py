"""The codeatlas MCP server: tools registered from `mcp_app.tools`, one flat input schema per
tool built from its pydantic model, errors turned into clear tool errors (never a traceback)."""

from __future__ import annotations

import inspect
import logging
from functools import partial
from typing import Annotated, Any

import anyio
import psycopg
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from codeatlas.errors import CodeatlasError
from mcp_app import tools
from mcp_app.state import AppState, make_lifespan
from mcp_app.validation import argument_check, check_arguments

log = logging.getLogger(__name__)

SERVER_NAME = "codeatlas"
INSTRUCTIONS = (
    "codeatlas indexes whole git repositories: search_code finds code by meaning and words, "
    "search_symbols by name, read_symbol shows a symbol's complete source, find_callers / "
    "find_callees walk the call graph, file_outline maps a file. Results carry path:start-end, "
    "the commit, and 'working-tree' for files you sent with index_file."
)


def _unknown(ctx: Context, model: type[BaseModel]) -> dict[str, Any]:
    """Arguments sent that the model does not know (the SDK drops them before the tool)."""
    try:
        params = ctx.request_context.params or {}
    except ValueError:  # no request context (a direct call): nothing to check
        return {}
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict):
        return {}
    return {k: v for k, v in arguments.items() if k not in model.model_fields}


def _run(state: AppState, name: str, handler: tools.Handler, args: BaseModel) -> dict[str, Any]:
    """One tool call: read tools on the replica (their answer says how far it trails the
    primary), the others on the primary."""
    read = name in tools.READ_ONLY
    with state.connection(read=read) as conn:
        principal = state.principal(conn)
        result = handler(state, conn, principal, args)
        lag = state.replica_lag(conn) if read else None
    if lag is not None:
        result["replica"] = lag
    return result


def _tool_function(name: str, state: AppState, model: type[BaseModel], handler: tools.Handler):
    """An async function whose signature is the model's fields (so the schema is flat)."""

    async def tool(ctx: Context, **kwargs: Any) -> dict[str, Any]:
        # the argument_check middleware answered invalid calls already; this covers direct
        # calls (and what the SDK dropped: unknown arguments)
        try:
            args = check_arguments(model, {**kwargs, **_unknown(ctx, model)})
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        try:
            return await anyio.to_thread.run_sync(partial(_run, state, name, handler, args))
        except CodeatlasError as exc:
            raise ToolError(str(exc)) from None
        except psycopg.DataError as exc:  # a value PostgreSQL cannot take, missed by validation
            log.warning("tool %s: database rejected an argument: %s", name, exc)
            raise ToolError("an argument holds characters the index cannot search for") from None

    parameters = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
    annotations: dict[str, Any] = {"ctx": Context}
    for field_name, field in model.model_fields.items():
        annotation = Annotated[
            (field.annotation, *field.metadata, Field(description=field.description))  # type: ignore[misc]
        ]
        default = inspect.Parameter.empty if field.is_required() else field.default
        parameters.append(
            inspect.Parameter(
                field_name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )
        annotations[field_name] = annotation
    annotations["return"] = dict[str, Any]
    tool.__signature__ = inspect.Signature(parameters, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    tool.__annotations__ = annotations
    tool.__name__ = name
    tool.__qualname__ = name
    return tool


def build_server(state: AppState, *, token_verifier: Any | None = None, url: str | None = None):
    """The MCP server over `state`; with a token verifier every HTTP request needs a token."""
    auth = None
    if token_verifier is not None:
        from mcp.server.auth.settings import AuthSettings

        auth = AuthSettings(issuer_url=url or "http://127.0.0.1", resource_server_url=None)  # type: ignore[arg-type]
    server = MCPServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        lifespan=make_lifespan(state),
        auth=auth,
        token_verifier=token_verifier,
        log_level="WARNING",
    )
    if token_verifier is not None:
        from mcp_app.protected_resource import register_routes

        register_routes(server)
    server.middleware.append(argument_check({n: m for n, (m, _h) in tools.TOOLS.items()}))
    for name, (model, handler) in tools.TOOLS.items():
        read_only = name in tools.READ_ONLY
        server.add_tool(
            _tool_function(name, state, model, handler),
            name=name,
            description=tools.DESCRIPTIONS[name],
            annotations=ToolAnnotations(
                read_only_hint=read_only,
                destructive_hint=name in tools.DESTRUCTIVE,
                idempotent_hint=True,
                open_world_hint=False,
            ),
            structured_output=True,
        )
    return server
