"""Symbol retriever: exact (qualified) name, case-sensitive first, then trigram similarity."""

from __future__ import annotations

import re
from typing import LiteralString

from core.database import Row
from core.sql_files import statement_template
from retrieval.hits import OUTLINE_END, SymbolMatch
from retrieval.scope import DbConnection, Scope, visible_files_among

_SEPARATORS = re.compile(r"\s*(?:::|->|#|\\|/)\s*")
_SPACES = re.compile(r"\s+")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")

# the symbols matching a condition in the visible files, best first (sql/symbols/matching.sql)
_MATCHING = statement_template("symbols", "matching")
_VISIBLE_MATCHED = visible_files_among("SELECT file_version_id FROM matched")


def normalize_name(name: str) -> str:
    """`Foo::bar`, `Foo#bar`, `Foo->bar()` all become `Foo.bar`; backticks and `()` go."""
    name = name.strip().strip("`'\"")
    if name.endswith(")"):
        # what `re.sub(r"\(.*\)$", "", name)` did, in linear time: that regex tried each `(`
        # of the last line against the rest of it (60 KB of `(` took 4.7 s, issue 47)
        opening = name.find("(", name.rfind("\n") + 1)
        if opening >= 0:
            name = name[:opening].strip()
    # (one space for a run of them first: the separators' `\s*` tried every space of a run)
    return _SEPARATORS.sub(".", _SPACES.sub(" ", name))


# a text longer than this is no one identifier (a symbol name is at most 500 characters in the
# tools): it is not normalized whole, whose separators' regex is quadratic in a run of spaces
MAX_IDENTIFIER_TEXT = 500


def is_identifier(text: str) -> bool:
    """True when the text is one (possibly dotted) identifier."""
    return len(text) <= MAX_IDENTIFIER_TEXT and bool(_IDENTIFIER.match(normalize_name(text)))


def _rows(
    conn: DbConnection,
    scope: Scope,
    where: LiteralString,
    params: Row,
    limit: int,
    *,
    rank: LiteralString | None = None,
    file_where: LiteralString = "true",
) -> list[Row]:
    """Symbols matching `where` (on `s`, through an index of `code_symbols`) in the visible files
    matching `file_where` (on `f`), best `rank` (a SQL expression) first."""
    sql = _MATCHING.format(
        where=where,
        visible_files=_VISIBLE_MATCHED,
        outline_end=OUTLINE_END,
        rank=rank or "1.0",
        file_where=file_where,
    )
    return conn.execute(sql, {**scope.params(), **params, "limit": limit}).fetchall()


def _match(row: Row, match: str, score: float) -> SymbolMatch:
    return SymbolMatch(
        repository=row["repository"],
        path=row["path"],
        start_line=row["start_line"],
        end_line=row["end_line"],
        symbol=row["qualified_name"],
        name=row["name"],
        kind=row["kind"],
        signature=row["signature"],
        commit=row["commit_sha"],
        source=row["source"],
        match=match,
        score=round(score, 4),
        symbol_id=row["symbol_id"],
        file_version_id=row["file_version_id"],
        outline_end=row["outline_end"],
    )


def exact_symbols(
    conn: DbConnection, scope: Scope, name: str, limit: int = 20
) -> list[SymbolMatch]:
    """Definitions named exactly `name` (qualified or bare); case-sensitive matches win."""
    name = normalize_name(name)
    if not name or not scope.repositories:
        return []
    p = {"q": name}
    column: LiteralString = "qualified_name" if "." in name else "name"
    # case-sensitive equality through the index of lower(name) / lower(qualified_name)
    lowered: LiteralString = f"lower(s.{column}) = lower(%(q)s)"
    rows = _rows(conn, scope, f"{lowered} AND s.{column} = %(q)s", p, limit)
    if rows:
        return [_match(r, "exact", 1.0) for r in rows]
    rows = _rows(conn, scope, lowered, p, limit)
    if rows:
        return [_match(r, "exact-insensitive", 0.9) for r in rows]
    if "." in name:
        # `Inner.method` asked, `Outer.Inner.method` stored; or `pkg.module.func`; or a name
        # stored with the language's own separators (`Parser::parse`, `App\\Process.stop`)
        last = name.rsplit(".", 1)[1]
        rows = _rows(
            conn,
            scope,
            "lower(s.name) = lower(%(last)s) AND s.name = %(last)s",
            {"last": last, "name": name, "suffix": "%" + _like_escape("." + name)},
            limit,
            rank=f"({_DOTTED} = %(name)s)::int",
            file_where=f"('.' || {_DOTTED} LIKE %(suffix)s"
            " OR '.' || replace(regexp_replace(f.path, '[.][^./]+$', ''), '/', '.') || '.'"
            f" || {_DOTTED} LIKE %(suffix)s)",
        )
        return [_match(r, "exact", 1.0) if r["rank"] else _match(r, "suffix", 0.8) for r in rows]
    return []


# a stored qualified name with every separator written as `.` (Rust's and C++'s `::`, Ruby's
# `Rack::Utils.unescape`, PHP's namespaces), as `normalize_name` writes an asked one
_DOTTED: LiteralString = "regexp_replace(s.qualified_name, '::|\\\\', '.', 'g')"


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def similar_symbols(
    conn: DbConnection, scope: Scope, name: str, limit: int = 20
) -> list[SymbolMatch]:
    """Definitions whose name is like `name` (pg_trgm similarity on `code_symbols.name`)."""
    name = normalize_name(name)
    bare = name.rsplit(".", 1)[-1]
    if len(bare) < 2 or not scope.repositories:
        return []
    rows = _rows(
        conn,
        scope,
        "s.name %% %(q)s",
        {"q": bare},
        limit,
        rank="similarity(s.name, %(q)s)",
    )
    return [_match(r, "similar", r["rank"]) for r in rows]


def search_symbols(
    conn: DbConnection, scope: Scope, name: str, limit: int = 20, offset: int = 0
) -> list[SymbolMatch]:
    """Exact matches first, then similar names (deduplicated), `limit` from `offset`."""
    wanted = offset + limit
    found = exact_symbols(conn, scope, name, wanted)
    if len(found) < wanted:
        seen = {m.symbol_id for m in found}
        for match in similar_symbols(conn, scope, name, wanted + len(found)):
            if match.symbol_id not in seen:
                found.append(match)
                seen.add(match.symbol_id)
    return found[offset:wanted]


def query_identifiers(query: str) -> list[str]:
    """Identifier-looking words of a query: the whole query if it is one, else words that are
    unmistakably code (`snake_case`, `camelCase`, `Dotted.name`, `call()`, `backticked`)."""
    if is_identifier(query):
        return [normalize_name(query)]
    found: list[str] = []
    backticked = re.findall(r"`([^`]{1,200})`", query)
    words = re.findall(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*(?:\(\))?", query)
    for word in backticked + words:
        name = normalize_name(word)
        if not _IDENTIFIER.match(name):
            continue
        code_like = (
            word in backticked
            or "." in name
            or "_" in name.strip("_")
            or re.search(r"[a-z][A-Z]", name) is not None
            or word.endswith("()")
        )
        if code_like and name not in found:
            found.append(name)
    return found[:5]
