"""The functions of one file version exactly as codeatlas indexes them: its grammar, tag query,
symbol table and line ranges (`indexing/parsing`), so a mined positive is a symbol `locate`
and `search` can return, with the same qualified name and lines."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import QueryCursor

from indexing.parsing.grammars import tags_query
from indexing.parsing.parser import _parse
from indexing.parsing.source import Source
from indexing.parsing.symbols import find_symbols

# the symbols a fix changes and a report is answered with: code that runs
FUNCTION_KINDS = frozenset({"function", "method", "constructor"})

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@dataclass(frozen=True)
class Function:
    """A function or method of a file version, with its lines and text."""

    path: str
    symbol: str  # codeatlas' qualified name
    kind: str
    start_line: int
    end_line: int
    text: str

    def overlaps(self, first: int, last: int) -> bool:
        """True when the function shares a line with first..last."""
        return self.start_line <= last and first <= self.end_line


def file_functions(path: str, data: bytes, language: str) -> list[Function]:
    """The functions, methods and constructors of the file, in source order."""
    source = Source(data)
    root = _parse(language, source.for_parser).root_node
    matches = QueryCursor(tags_query(language)).matches(root)
    found = []
    for symbol in find_symbols(language, root, matches, source):
        if symbol.kind not in FUNCTION_KINDS:
            continue
        found.append(
            Function(
                path=path,
                symbol=symbol.qualified_name,
                kind=symbol.kind,
                start_line=source.line_of(symbol.start),
                end_line=source.end_line_of(symbol.start, symbol.end),
                text=source.text(symbol.start, symbol.end),
            )
        )
    return found


def terms(text: str) -> list[str]:
    """Lower-cased words of a text, identifiers split at case changes and underscores."""
    found: list[str] = []
    for identifier in _IDENTIFIER.findall(text.replace("_", " ")):
        parts = _CAMEL.findall(identifier)
        found.extend(part.lower() for part in parts)
        if len(parts) > 1:
            found.append(identifier.lower())
    return found


@lru_cache(maxsize=100_000)
def term_bag(text: str) -> Counter[str]:
    """The terms of a text with their counts (cached: a function's text is scored many times)."""
    return Counter(terms(text))
