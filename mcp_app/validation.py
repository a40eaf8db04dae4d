"""Tool arguments checked against each tool's argument model before the SDK sees them, so every
mistake an agent can make (a limit over 50, a NUL byte in a name, an unknown argument) is answered
with one line naming the argument and the rule, never a pydantic dump or a database error."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, cast

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

log = logging.getLogger(__name__)

MAX_REASONS = 3


def _reason(error: ErrorDetails, model: type[BaseModel]) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "arguments"
    kind = error["type"]
    if kind == "extra_forbidden":
        known = ", ".join(model.model_fields) or "none"
        return f"{where[:60]!r} is not an argument of this tool (arguments: {known})"
    if kind == "missing":
        return f"{where} is required"
    ctx = error.get("ctx") or {}
    if kind in ("too_long", "string_too_long", "too_short", "string_too_short") and isinstance(
        error["input"], str
    ):
        # a text's length in characters (pydantic says "items" for a constrained text type)
        length = len(error["input"])
        if "max_length" in ctx:
            return f"{where} is {length:,} characters long; at most {ctx['max_length']:,} allowed"
        return f"{where} is {length:,} characters long; at least {ctx['min_length']:,} needed"
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message[:1].lower()}{message[1:]}"


def validation_message(exc: ValidationError, model: type[BaseModel]) -> str:
    """One line: the first few offending arguments and their rules (never the values sent)."""
    reasons = [_reason(e, model) for e in exc.errors()[:MAX_REASONS]]
    more = exc.error_count() - len(reasons)
    text = "invalid arguments: " + "; ".join(reasons) + (f" (and {more} more)" if more else "")
    return " ".join(text.split())


def strict_arguments(tool: Tool) -> type[BaseModel]:
    """The tool's argument model (built by the SDK from its parameters), refusing arguments
    it does not know."""

    class Arguments(tool.fn_metadata.arg_model):
        model_config = ConfigDict(extra="forbid")

    return Arguments


def check_arguments(model: type[BaseModel], arguments: Any) -> BaseModel:
    """The validated arguments; ValueError with the one-line message when they are not valid."""
    try:
        return model.model_validate(arguments if arguments is not None else {})
    except ValidationError as exc:
        raise ValueError(validation_message(exc, model)) from None


def argument_check(tools: Sequence[Tool]) -> ServerMiddleware[Any]:
    """Server middleware answering `tools/call` with a one-line error result when the
    arguments do not validate against the tool's argument model."""
    checks = {t.name: (t, strict_arguments(t)) for t in tools}

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params
        name = params.get("name") if isinstance(params, dict) else None
        check = checks.get(name) if ctx.method == "tools/call" and isinstance(name, str) else None
        if isinstance(params, dict) and check is not None:
            tool, model = check
            arguments = params.get("arguments")
            try:
                check_arguments(model, arguments)
                if isinstance(arguments, dict):
                    # the SDK then reads JSON text sent for an optional text argument as JSON
                    # ('[1]' becomes a list): check what the tool will be called with too
                    sent = cast(dict[str, Any], arguments)
                    check_arguments(model, tool.fn_metadata.pre_parse_json(sent))
            except ValueError as exc:
                log.info("tool %r: %s", name, exc)
                return CallToolResult(
                    content=[TextContent(type="text", text=str(exc))], is_error=True
                )
        return await call_next(ctx)

    return middleware
