"""Reading symbols and outlines: the complete source of a symbol rebuilt from its chunks'
original lines (the signature headers added to split pieces are dropped), never whole files."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Any

from core.errors import CodeatlasError
from core.sql_files import statement, statement_template
from retrieval.hits import OutlineEntry, SymbolMatch, SymbolSource
from retrieval.principals import DbConnection
from retrieval.scope import VISIBLE_FILES, Scope
from retrieval.symbols import exact_symbols

MAX_PATH = 1024
# the visible file's symbols, and whether it is visible at all (sql/reading/)
_FILE_SYMBOLS = statement_template("reading", "file_symbols").format(visible_files=VISIBLE_FILES)
_FILE_EXISTS = statement_template("reading", "file_exists").format(visible_files=VISIBLE_FILES)


class InvalidPathError(CodeatlasError):
    """A path that is absolute, escapes the repository, or is malformed."""


class FileNotIndexedError(CodeatlasError):
    """The path is not an indexed file of the snapshot."""


def clean_path(path: str) -> str:
    """A repository-relative POSIX path, or InvalidPathError (absolute, `..`, NUL, too long)."""
    if not path or len(path) > MAX_PATH or "\x00" in path or "\\" in path:
        raise InvalidPathError("path must be a non-empty repository-relative path using '/'")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise InvalidPathError("path must be relative to the repository root, not absolute")
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../") or "/../" in f"/{path}/":
        raise InvalidPathError("path must stay inside the repository ('..' is not allowed)")
    return normal.removeprefix("./")


def symbols_at(
    conn: DbConnection, scope: Scope, path: str, start_line: int, end_line: int
) -> list[dict[str, Any]]:
    """The innermost symbol containing the range, else the outermost symbols overlapping it."""
    rows = _file_symbols(conn, scope, clean_path(path))
    overlapping = [r for r in rows if r["start_line"] <= end_line and r["end_line"] >= start_line]
    containing = [
        r for r in overlapping if r["start_line"] <= start_line and r["end_line"] >= end_line
    ]
    if containing:
        return [min(containing, key=lambda r: r["end_line"] - r["start_line"])]
    ids = {r["symbol_id"] for r in overlapping}
    return [r for r in overlapping if r["parent_id"] not in ids]


def _file_symbols(conn: DbConnection, scope: Scope, path: str) -> list[dict[str, Any]]:
    rows = conn.execute(_FILE_SYMBOLS, {**scope.params(), "path": path}).fetchall()
    if not rows and not _file_exists(conn, scope, path):
        raise FileNotIndexedError(
            f"{path!r} is not an indexed file of {_names(scope)}; search_code finds paths"
        )
    return rows


def _file_exists(conn: DbConnection, scope: Scope, path: str) -> bool:
    row = conn.execute(_FILE_EXISTS, {**scope.params(), "path": path}).fetchone()
    return row is not None


def _names(scope: Scope) -> str:
    return ", ".join(r.name for r in scope.repositories) or "any repository"


def file_outline(conn: DbConnection, scope: Scope, path: str) -> list[OutlineEntry]:
    """The symbols of one file, in order, with their nesting depth."""
    rows = _file_symbols(conn, scope, clean_path(path))
    depth: dict[int, int] = {}
    outline: list[OutlineEntry] = []
    for row in rows:
        depth[row["symbol_id"]] = depth.get(row["parent_id"], -1) + 1 if row["parent_id"] else 0
        outline.append(
            OutlineEntry(
                repository=row["repository"],
                path=row["path"],
                symbol=row["qualified_name"],
                name=row["name"],
                kind=row["kind"],
                signature=row["signature"],
                start_line=row["start_line"],
                end_line=row["end_line"],
                depth=depth[row["symbol_id"]],
                commit=row["commit_sha"],
                source=row["source"],
            )
        )
    return outline


def stored_roles(conn: DbConnection, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The role and language each file version's content showed when it was indexed, by id: a
    test suite in a folder the path rules (`retrieval/path_roles.py`) do not know is a test."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = conn.execute(statement("reading", "file_roles"), {"ids": wanted}).fetchall()
    return {r["id"]: r for r in rows}


def _own_lines(chunk: dict[str, Any]) -> list[str]:
    """A chunk's own lines of its file: a piece of a split symbol starts with the symbol's
    signature as extra header lines, and its last `end_line - start_line + 1` lines are the
    original ones."""
    count = chunk["end_line"] - chunk["start_line"] + 1
    return chunk["content"].removesuffix("\n").split("\n")[-count:]


def _numbered_lines(chunks: Iterable[dict[str, Any]]) -> dict[int, str]:
    """The chunks' own lines by line number (the first chunk to hold a line gives it)."""
    lines: dict[int, str] = {}
    for chunk in chunks:
        for offset, text in enumerate(_own_lines(chunk)):
            lines.setdefault(chunk["start_line"] + offset, text)
    return lines


def function_texts(conn: DbConnection, symbol_ids: Iterable[int]) -> dict[int, str]:
    """The whole text of each function split into pieces, by symbol id: its pieces' own lines
    in line order (their nested symbols left out)."""
    wanted = sorted(set(symbol_ids))
    if not wanted:
        return {}
    pieces: dict[int, list[dict[str, Any]]] = {}
    for chunk in conn.execute(statement("reading", "function_pieces"), {"ids": wanted}):
        pieces.setdefault(chunk["symbol_id"], []).append(chunk)
    return {
        symbol: "\n".join(text for _, text in sorted(_numbered_lines(chunks).items()))
        for symbol, chunks in pieces.items()
    }


def symbol_source(
    conn: DbConnection, symbol: dict[str, Any], *, from_line: int | None = None, max_lines: int
) -> SymbolSource:
    """Rebuild a symbol's source from the chunks of it and its nested symbols."""
    chunks = conn.execute(
        statement("reading", "symbol_chunks"),
        {"id": symbol["symbol_id"], "fv": symbol["file_version_id"]},
    ).fetchall()
    lines = _numbered_lines(chunks)
    first = max(symbol["start_line"], from_line or symbol["start_line"])
    last = min(symbol["end_line"], first + max_lines - 1)
    return SymbolSource(
        repository=symbol["repository"],
        path=symbol["path"],
        symbol=symbol["qualified_name"],
        kind=symbol["kind"],
        signature=symbol["signature"],
        start_line=symbol["start_line"],
        end_line=symbol["end_line"],
        commit=symbol["commit_sha"],
        source=symbol["source"],
        code="\n".join(lines.get(n, "") for n in range(first, last + 1)),
        code_start_line=first,
        code_end_line=last,
        truncated=last < symbol["end_line"],
    )


def _as_row(match: SymbolMatch) -> dict[str, Any]:
    return {
        "symbol_id": match.symbol_id,
        "file_version_id": match.file_version_id,
        "qualified_name": match.symbol,
        "kind": match.kind,
        "signature": match.signature,
        "start_line": match.start_line,
        "end_line": match.end_line,
        "repository": match.repository,
        "path": match.path,
        "commit_sha": match.commit,
        "source": match.source,
    }


def read_symbol(
    conn: DbConnection,
    scope: Scope,
    *,
    name: str | None = None,
    path: str | None = None,
    start_line: int | None = None,
    end_line: int | None = None,
    from_line: int | None = None,
    max_lines: int = 400,
    limit: int = 3,
) -> list[SymbolSource]:
    """Source of the symbol(s) named `name` (optionally in `path`), or at `path`:`start-end`."""
    if name:
        matches = exact_symbols(conn, scope, name, limit=50)
        if path is not None:
            wanted = clean_path(path)
            matches = [m for m in matches if m.path == wanted]
        rows = [_as_row(m) for m in matches]
    elif path is not None and start_line is not None:
        rows = symbols_at(conn, scope, path, start_line, end_line or start_line)
    else:
        raise CodeatlasError("give a symbol name, or a path with a start line")
    return [
        symbol_source(conn, row, from_line=from_line, max_lines=max_lines) for row in rows[:limit]
    ]
