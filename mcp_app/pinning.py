"""Tool-definition pinning (tool-poisoning defence): a lock file maps each tool name to the
SHA-256 of the canonical JSON of (name, description, input schema). The server refuses to start
when its own catalog drifts from `tools.lock`; `verify-tools` checks any server's catalog."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, cast

from pydantic import TypeAdapter, ValidationError

from core.errors import CodeatlasError

LOCK_FILE = Path(__file__).with_name("tools.lock")
_LOCK_TABLE = TypeAdapter(dict[str, str])


class ToolCatalogMismatchError(CodeatlasError):
    """A server's tool definitions differ from the lock file."""


class ServerRefusedError(CodeatlasError):
    """An HTTP server answered 401 or 403 (the SDK reports only "an error response")."""


REFUSALS = {
    401: "the server refused the bearer token (HTTP 401): check --token, or create one with"
    " `codeatlas token create --principal P`",
    403: "the server refused the request (HTTP 403): check the URL's host name and the token",
}


def fingerprint(name: str, description: str | None, input_schema: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of one tool definition."""
    canonical = json.dumps(
        {"name": name, "description": description or "", "input_schema": input_schema},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def catalog_fingerprints(tools: list[Any]) -> dict[str, str]:
    """Fingerprints of `mcp_types.Tool`s, by name."""
    return {t.name: fingerprint(t.name, t.description, t.input_schema) for t in tools}


def read_lock(path: Path) -> dict[str, str]:
    """The lock file's name -> hash map."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise ToolCatalogMismatchError(
            f"no lock file at {path}; write one with `codeatlas mcp-lock --write`"
        ) from exc
    except json.JSONDecodeError as exc:
        raise ToolCatalogMismatchError(f"{path} is not valid JSON: {exc}") from exc
    if isinstance(data, dict) and "tools" in data:  # the lock may sit under a "tools" key
        data = cast(dict[str, Any], data)["tools"]
    try:
        return _LOCK_TABLE.validate_python(data, strict=True)
    except ValidationError:
        raise ToolCatalogMismatchError(f"{path} must map tool names to SHA-256 hashes") from None


def write_lock(path: Path, fingerprints: dict[str, str]) -> None:
    """Write the lock file (sorted, one tool per line)."""
    path.write_text(json.dumps(dict(sorted(fingerprints.items())), indent=2) + "\n")


def diff(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """Human-readable differences; empty when the catalogs match."""
    lines: list[str] = []
    for name in sorted(expected.keys() | actual.keys()):
        if name not in actual:
            lines.append(f"- {name}: missing from the server")
        elif name not in expected:
            lines.append(f"+ {name}: not in the lock file (new tool)")
        elif expected[name] != actual[name]:
            lines.append(
                f"~ {name}: definition changed ({expected[name][:12]} -> {actual[name][:12]})"
            )
    return lines


async def server_fingerprints(server: Any) -> dict[str, str]:
    """Fingerprints of an in-process MCPServer's catalog."""
    return catalog_fingerprints(await server.list_tools())


async def check_server(server: Any, lock_file: Path = LOCK_FILE) -> None:
    """Raise ToolCatalogMismatchError unless the server's catalog matches the lock file."""
    changes = diff(read_lock(lock_file), await server_fingerprints(server))
    if changes:
        raise ToolCatalogMismatchError(
            "tool definitions differ from "
            f"{lock_file}:\n  " + "\n  ".join(changes) + "\nreview the change, then run "
            "`codeatlas mcp-lock --write` to pin the new definitions"
        )


def _first_error(exc: BaseException) -> BaseException:
    if not isinstance(exc, BaseExceptionGroup):
        return exc
    group = cast("BaseExceptionGroup[BaseException]", exc)  # never empty
    return _first_error(group.exceptions[0])


def failure_reason(exc: BaseException) -> str:
    """One line saying why a server's tools could not be listed (the first error inside the SDK's
    task groups)."""
    exc = _first_error(exc)
    lines = str(exc).strip().splitlines()
    if isinstance(exc, CodeatlasError):
        return " ".join(lines)
    return f"{lines[0][:300]} ({type(exc).__name__})" if lines else type(exc).__name__


def _child_env() -> dict[str, str]:
    """The stdio server inherits our environment (database, principal, embedder settings)."""
    import os

    return dict(os.environ)


async def remote_fingerprints(
    *, stdio: list[str] | None = None, url: str | None = None, token: str | None = None
) -> dict[str, str]:
    """Connect to any MCP server (a command over stdio, or a streamable HTTP URL) and
    fingerprint every tool it lists (all pages)."""
    from mcp.client import Client

    http: Any = None
    refused: list[int] = []  # 401/403 answers seen (the SDK's error does not say which)
    if stdio:
        from mcp.client.stdio import StdioServerParameters

        target: Any = StdioServerParameters(command=stdio[0], args=stdio[1:], env=_child_env())
    elif url:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async def note_refusal(response: httpx2.Response) -> None:
            if response.status_code in REFUSALS:
                refused.append(response.status_code)

        # the SDK's documented way to send headers: our own client, with its default timeouts
        headers = {"Authorization": f"Bearer {token}"} if token else None
        http = httpx2.AsyncClient(
            headers=headers,
            timeout=httpx2.Timeout(30.0, read=300.0),
            event_hooks={"response": [note_refusal]},
        )
        target = streamable_http_client(url, http_client=http)
    else:
        raise ValueError("give a stdio command or a URL")
    tools: list[Any] = []
    try:
        async with Client(target, cache=None) as client:
            cursor = None
            for _page in range(100):
                listing = await client.list_tools(cursor=cursor)
                tools.extend(listing.tools)
                cursor = listing.next_cursor
                if not cursor:
                    break
    except Exception as exc:
        if refused:
            raise ServerRefusedError(REFUSALS[refused[0]]) from exc
        raise
    finally:
        if http is not None:
            await http.aclose()
    return catalog_fingerprints(tools)
