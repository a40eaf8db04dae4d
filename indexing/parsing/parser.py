"""Parse one file version into symbols, chunks and edges (pure: no database, no Dagster).

Byte offsets and lines always refer to the original bytes: a UTF-8 BOM is parsed as blanks and
left out of content, invalid UTF-8 is decoded with U+FFFD in content only, CRLF line ends are
kept in content as they are in the file. Syntax errors never raise: what tree-sitter recovered is
kept and `has_syntax_errors` is set. Bump PARSER_VERSION whenever output for the same bytes may
change; it is part of every content hash, so stored parses and vectors are invalidated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from tree_sitter import Node, QueryCursor, Tree

from indexing.parsing.apple import (
    blank_objc_cplusplus,
    blank_objc_macros,
    blank_swift_conditionals,
    blank_swift_words,
    read_ns_enums,
)
from indexing.parsing.chunking import build_chunks
from indexing.parsing.content_roles import CODE, READ_CHARS, content_role
from indexing.parsing.directives import (
    blank_attribute_macros,
    blank_conditional_lines,
    blank_cplusplus_branches,
    blank_directive_comments,
    keep_first_branches,
)
from indexing.parsing.edges import find_edges
from indexing.parsing.grammars import parser_for, tags_query
from indexing.parsing.languages import LANGUAGES, detect_language
from indexing.parsing.model import ParsedFile, Symbol
from indexing.parsing.redaction import redact
from indexing.parsing.source import Source, estimate_tokens
from indexing.parsing.symbols import find_symbols

# .7: Swift, Objective-C, Scala, Lua; C/C++ prototypes and macros; blank-tailed nodes cut
# .6: C's directives and attribute macros, JS/TS object members; .5: C#, Kotlin
PARSER_VERSION = "2025.7-ts0.26-lp0.13"

log = logging.getLogger(__name__)

# A file that does not parse is parsed again with each of these rewrites (same offsets), and
# the parse with the fewest bytes in errors is kept (the first of equals). C and C++: attribute
# macros of declarations (`int f(int a) ATTR;`); C also: only the first branch of each
# conditional (`#ifdef` cutting through a function; see directives.py).
_RETRY_REWRITES: dict[str, tuple[Callable[[bytes, Node], bytes], ...]] = {
    # C#: conditionals cutting through a declaration (`class A : B` / `#if X` / `, C` / `#endif`)
    "csharp": (lambda data, _: blank_conditional_lines(data),),
    "c": (
        lambda data, _: blank_attribute_macros(data),
        lambda data, root: keep_first_branches(blank_attribute_macros(data), _conditionals(root)),
    ),
    "cpp": (lambda data, _: blank_attribute_macros(data),),
    # Objective-C: macros; then the C++ of `.mm` files; Swift: Swift 6 words, then `#if` lines
    # (see apple.py)
    "objc": (
        lambda data, _: blank_objc_macros(data),
        lambda data, _: blank_objc_cplusplus(data),
        lambda data, root: keep_first_branches(blank_objc_cplusplus(data), _conditionals(root)),
    ),
    "swift": (
        lambda data, _: blank_swift_words(data),
        lambda data, _: blank_swift_conditionals(data),
    ),
    "scala": (lambda data, _: _ascii_scala_arrows(data),),
}

# Scala 2 also writes `=>` and `<-` as the Unicode arrows `⇒` and `←`, which tree-sitter-scala
# does not know: each is three bytes in UTF-8, as `=> ` and `<- ` are.
_SCALA_ARROWS = {"⇒".encode(): b"=> ", "←".encode(): b"<- "}


def _ascii_scala_arrows(data: bytes) -> bytes:
    for arrow, ascii_arrow in _SCALA_ARROWS.items():
        data = data.replace(arrow, ascii_arrow)
    return data


def _conditionals(root: Node) -> set[int]:
    """Where the conditionals the grammar parsed without errors start."""
    found: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("preproc_if", "preproc_ifdef") and not node.has_error:
            found.add(node.start_byte)
        stack.extend(node.children)
    return found


def parse_file(
    path: str,
    source: bytes,
    *,
    max_tokens: int = 256,
    count_tokens: Callable[[str], int] | None = None,
    language: str | None = None,
) -> ParsedFile:
    """Symbols, chunks (at most ~max_tokens each, secrets redacted) and edges of one file."""
    language = language or detect_language(path, source)
    if language not in LANGUAGES:
        return ParsedFile(language=language or "unknown", role=CODE)
    text = Source(source, count_tokens or estimate_tokens)
    tree = _parse(language, text.for_parser)
    root = tree.root_node
    matches = QueryCursor(tags_query(language)).matches(root)
    found = find_symbols(language, root, matches, text)
    chunks, redactions = build_chunks(root, text, found, max(max_tokens, 8), PARSER_VERSION, redact)
    edges = []
    for edge in find_edges(matches, text, found):
        # a receiver can be a literal (`"AKIA...".lower()`): qualifiers are shown by find_callees
        if edge.qualifier:
            qualifier, count = redact(edge.qualifier)
            if count:
                redactions += count
                edge = replace(edge, qualifier=qualifier)
        edges.append(edge)
    symbols = []
    for s in found:
        signature, count = redact(s.signature)
        redactions += count
        symbols.append(
            Symbol(
                name=s.name,
                qualified_name=s.qualified_name,
                kind=s.kind,
                signature=signature,
                start_line=text.line_of(s.start),
                end_line=text.end_line_of(s.start, s.end),
                start_byte=s.start,
                end_byte=s.end,
                parent=s.parent,
            )
        )
    return ParsedFile(
        language=language,
        symbols=symbols,
        chunks=chunks,
        edges=edges,
        has_syntax_errors=root.has_error,
        redactions=redactions,
        role=content_role(language, text.text(0, READ_CHARS)),
    )


def _parse(language: str, data: bytes) -> Tree:
    """The file's syntax tree; for C, C++ and Objective-C, with the comments inside directives
    blanked, for C the `#ifdef __cplusplus` code too (see directives.py) and for Objective-C
    `NS_ENUM(...)` read as `enum` (see apple.py); when it has errors, the tree of
    the retry rewrite leaving the fewest bytes in errors, if fewer (offsets unchanged: only the
    rewritten bytes become spaces)."""
    if language in ("c", "cpp", "objc"):
        data = blank_directive_comments(data)
    if language == "objc":
        data = read_ns_enums(data)
    if language == "c":
        data = blank_cplusplus_branches(data)
    tree = parser_for(language).parse(data)
    if not tree.root_node.has_error:
        return tree
    best, errors = tree, _error_bytes(tree.root_node)
    for rewrite in _RETRY_REWRITES.get(language, ()):
        rewritten = rewrite(data, tree.root_node)
        if rewritten == data:
            continue
        retry = parser_for(language).parse(rewritten)
        if (retry_errors := _error_bytes(retry.root_node)) < errors:
            best, errors = retry, retry_errors
    return best


def _error_bytes(root: Node) -> int:
    """How many bytes of the tree lie in ERROR nodes (a missing token counts as one).

    A loop, not a recursion: real files nest deeper than Python's recursion limit (the Linux
    kernel's drivers/clk/ingenic/jz4780-cgu.c, whose tree with errors is ~500 levels deep)."""
    total, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            total += max(node.end_byte - node.start_byte, 1)
        elif node.has_error:
            stack.extend(node.children)
    return total
