"""The stdio transport with every request answered, whatever its text.

The SDK's stdio transport parses each line with pydantic, which refuses JSON that Python accepts
(a lone surrogate, `"\\ud800"`, in any string) and hands the server an exception in place of the
message; the server logs it at debug level and the client waits forever for that id. Here such
a line is answered with a JSON-RPC error carrying the request's id (found by Python's own JSON
parser; null when the id itself holds a lone surrogate, which cannot be written back), a line
that is no JSON at all with a parse error (id null, as JSON-RPC 2.0 says), and a notification
(no id) with nothing.

A parser bomb is refused as the HTTP transport refuses it, with a parse error naming what the
SDK's parser found: JSON nested deeper than that parser reads (200 levels), or a number of more
digits than Python converts, is never handed to Python's recursive parser again (900 levels of
`[` once killed the process with a RecursionError, issue 47).
"""

from __future__ import annotations

import json
import logging
from typing import Any, cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError
from pydantic import ValidationError

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _holds_surrogate(value: object) -> bool:
    """Whether any string in `value` holds a lone surrogate (read without recursion, however
    deep the value is nested)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            for key, child in cast(dict[object, object], item).items():
                pending += (key, child)
        elif isinstance(item, list):
            pending += cast(list[object], item)
    return False


def _parse_error(reason: str) -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=f"parse error: {reason}")
    )


def _bomb(exc: Exception) -> str | None:
    """The SDK parser's reason for refusing a line Python's parser must not read again."""
    if not isinstance(exc, ValidationError):
        return None
    for error in exc.errors():
        reason = str(error.get("msg", "")).removeprefix("Invalid JSON: ")
        if error.get("type") == "json_invalid" and reason.startswith(_BOMBS):
            return reason
    return None


# what the SDK's parser (pydantic-core's) says of JSON nested past its depth limit
_BOMBS = ("recursion limit exceeded",)


def _sent_text(exc: Exception) -> Any:
    """What the client sent, as far as the SDK's failed validation kept it."""
    if not isinstance(exc, ValidationError):
        return None
    errors = exc.errors()
    for error in errors:
        if error.get("type") == "json_invalid":
            return error.get("input")  # the whole line
    # the parsed message, where an error concerns the message itself rather than a field
    return next((e["input"] for e in errors if isinstance(e.get("input"), dict)), None)


def refusal(exc: Exception) -> JSONRPCError | None:
    """The error reply to a line the SDK could not read (None for a notification)."""
    bomb = _bomb(exc)
    if bomb is not None:
        return _parse_error(f"{bomb} (the JSON is nested too deep)")
    sent = _sent_text(exc)
    message: object = None
    if isinstance(sent, str):
        try:
            message = json.loads(sent)
        except (ValueError, RecursionError):
            return _parse_error("the line is not JSON")
    elif isinstance(sent, dict):
        message = cast(dict[str, object], sent)
    fields = cast(dict[str, object], message) if isinstance(message, dict) else {}
    request_id = fields.get("id")
    if "method" in fields and "id" not in fields:
        log.warning("ignored a malformed notification (JSON-RPC sends no reply to one)")
        return None
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        request_id = None
    elif _holds_surrogate(request_id):
        request_id = None  # it cannot be written back as UTF-8: "could not be determined"
    if _holds_surrogate(cast(object, message)):
        why = (
            "invalid request: a string holds a lone surrogate (such as \\ud800), which is not"
            " Unicode text; send valid UTF-8"
        )
    else:
        why = "invalid request: not a JSON-RPC 2.0 request, notification or response"
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=INVALID_REQUEST, message=why)
    )


async def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve `server` over stdin/stdout until stdin closes, answering unreadable lines."""
    # the SDK's own MCPServer.run_stdio_async does the same with its low-level server
    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    async with stdio_server() as (read_stream, write_stream):
        inbound_send, inbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with inbound_send:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        await inbound_send.send(item)
                        continue
                    try:
                        reply = refusal(item)
                    except Exception:  # noqa: BLE001 - a line must never end the server
                        log.exception("could not read a line sent over stdio")
                        reply = _parse_error("the line could not be read")
                    if reply is not None:
                        await write_stream.send(SessionMessage(reply))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            await lowlevel.run(inbound, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()
