"""Tool arguments checked against each tool's input model before the SDK sees them, so every
mistake an agent can make (a limit over 50, a NUL byte in a name, an unknown argument) is answered
with one line naming the argument and the rule, never a pydantic dump or a database error."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import CallNext, ServerRequestContext
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)

MAX_REASONS = 3


def _reason(error: Any, model: type[BaseModel]) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "arguments"
    kind = error["type"]
    if kind == "extra_forbidden":
        known = ", ".join(model.model_fields) or "none"
        return f"{where[:60]!r} is not an argument of this tool (arguments: {known})"
    if kind == "missing":
        return f"{where} is required"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message[:1].lower()}{message[1:]}"


def validation_message(exc: ValidationError, model: type[BaseModel]) -> str:
    """One line: the first few offending arguments and their rules (never the values sent)."""
    reasons = [_reason(e, model) for e in exc.errors()[:MAX_REASONS]]
    more = exc.error_count() - len(reasons)
    text = "invalid arguments: " + "; ".join(reasons) + (f" (and {more} more)" if more else "")
    return " ".join(text.split())


def check_arguments(model: type[BaseModel], arguments: Any) -> BaseModel:
    """The validated input; ValueError with the one-line message when it is not valid."""
    try:
        return model.model_validate(arguments if arguments is not None else {})
    except ValidationError as exc:
        raise ValueError(validation_message(exc, model)) from None


def argument_check(models: dict[str, type[BaseModel]]):
    """Server middleware answering `tools/call` with a one-line error result when the
    arguments do not validate against the tool's input model."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        params = ctx.params
        if ctx.method == "tools/call" and isinstance(params, dict):
            model = models.get(params.get("name"))  # type: ignore[arg-type]
            if model is not None:
                try:
                    check_arguments(model, params.get("arguments"))
                except ValueError as exc:
                    log.info("tool %r: %s", params.get("name"), exc)
                    return CallToolResult(
                        content=[TextContent(type="text", text=str(exc))], is_error=True
                    )
        return await call_next(ctx)

    return middleware
