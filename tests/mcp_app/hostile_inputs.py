"""A generated corpus of bad inputs for every argument of every MCP tool, from the tools' own
input schemas: wrong types, out-of-range numbers, NUL and control characters, lone surrogates,
over-long and empty text, path traversal, SQL and LIKE metacharacters, unknown arguments."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from typing import Any

from mcp_app.tools import TOOLS


def stdio_exchange(lines: list[str], replies: int) -> tuple[list[dict[str, Any]], bool]:
    """Send `lines` to a real `codeatlas serve-mcp` on stdio and read `replies` JSON answers:
    (the answers in order, whether the server was still running after them)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "codeatlas.cli", "serve-mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    answers: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        assert server.stdout is not None
        for raw in server.stdout:
            answers.put(json.loads(raw))

    threading.Thread(target=read, daemon=True).start()
    try:
        assert server.stdin is not None
        server.stdin.write(("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
        server.stdin.flush()
        got = [answers.get(timeout=60) for _ in range(replies)]
        return got, server.poll() is None
    finally:
        server.kill()
        server.wait(timeout=30)


STRINGS: list[Any] = [
    "",
    " ",
    "a\x00b",
    "\x00",
    "\ud800",
    "x\udfff",
    "line\nbreak",
    "\x1b[31mred",
    "\u202etxt.exe",
    "zero\u200bwidth",
    "../../etc/passwd",
    "/etc/passwd",
    "C:\\Windows\\system32",
    "'; DROP TABLE code_chunks; --",
    "%_%",
    "\\",
    ".*(",
    "[1]",
    '{"$ne": 1}',
    "😀" * 10,
    "a" * 100_000,
    123,
    12.5,
    True,
    None,
    [],
    {"$ne": 1},
]
INTEGERS: list[Any] = [-1, 0, 10**6, 2**63, -(2**63) - 1, 1.5, "10", "ten", None, True, [], {}]
LISTS: list[Any] = ["shop", [""], [None], ["a\x00"], [["shop"]], ["shop"] * 1000, {}, 7]
ENUMS: list[Any] = ["HYBRID", "", "sql", 1, None]


def _valid_base(tool: str) -> dict[str, Any]:
    """A valid call of `tool` against the test repository, to vary one argument at a time."""
    return {
        "search_code": {"query": "round_cents"},
        "locate": {"issue_text": "round_cents rounds wrong in shop/money.py"},
        "search_symbols": {"name": "round_cents"},
        "read_symbol": {"repository": "shop", "name": "round_cents"},
        "find_callers": {"repository": "shop", "name": "round_cents"},
        "find_callees": {"repository": "shop", "name": "round_cents"},
        "file_outline": {"repository": "shop", "path": "shop/money.py"},
        "index_file": {"repository": "shop", "path": "shop/new.py", "content": "X = 1\n"},
        "forget_file": {"repository": "shop", "path": "shop/new.py"},
        "index_status": {},
        "list_repositories": {},
    }[tool]


def _values(schema: dict[str, Any]) -> list[Any]:
    kinds = {s.get("type") for s in schema.get("anyOf", [schema])}
    if "enum" in schema or any("enum" in s for s in schema.get("anyOf", [])):
        return ENUMS
    if "array" in kinds:
        return LISTS
    if "integer" in kinds:
        return INTEGERS
    return STRINGS


def corpus() -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) for every bad value of every argument, plus structural mistakes."""
    cases: list[tuple[str, dict[str, Any]]] = []
    for tool in TOOLS:
        name = tool.name
        base = _valid_base(name)
        properties = tool.parameters.get("properties", {})
        for argument, schema in properties.items():
            for value in _values(schema):
                cases.append((name, {**base, argument: value}))
            if argument in base:
                cases.append((name, {k: v for k, v in base.items() if k != argument}))
        cases.append((name, {**base, "sql": "DROP TABLE principals"}))
        cases.append((name, {**base, "a\x00": 1}))
    return cases
