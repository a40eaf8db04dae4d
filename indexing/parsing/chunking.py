"""Chunks of one file: one per symbol, pieces of large symbols, and file-level chunks.

- A function-like or leaf symbol's chunk is its whole range (nested closures included).
- A container (class, interface, trait, enum, struct, module, impl...) owns the parts of its range
  that no member symbol covers: its header (docblock, decorators, signature, fields up to the first
  member) and any fields between or after members. Parts holding only blanks and closing
  punctuation (`}`, `end`, `);`) are not chunks.
- The file owns what no top-level symbol covers (package/namespace, imports, top-level code) as
  `kind="file"` chunks, numbered as pieces of the file; they never carry a header line.
- When a symbol has several chunks (`piece_count > 1`), each chunk's content is the symbol's
  signature, a newline, then the exact source of the piece; otherwise content is the exact source.
  Redaction happens after slicing, so byte offsets always refer to the original file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from tree_sitter import Node

from indexing.parsing.grammars import CONTAINER_KINDS, TRIVIAL
from indexing.parsing.model import Chunk
from indexing.parsing.source import Source
from indexing.parsing.splitting import split_region
from indexing.parsing.symbols import FoundSymbol

# bits of sha256 a content hash keeps: it names a content for the shared vectors and is stored in
# every chunk row, its key and the vectors' key (sql/migrations/015 cut the stored ones)
CONTENT_HASH_HEX = 32


def content_hash(parser_version: str, content: str) -> str:
    """sha256 of the parser version and a chunk's (redacted) content, 128 bits in hex."""
    return hashlib.sha256(f"{parser_version}\0{content}".encode()).hexdigest()[:CONTENT_HASH_HEX]


def build_chunks(
    root: Node,
    source: Source,
    symbols: list[FoundSymbol],
    max_tokens: int,
    parser_version: str,
    redact: Callable[[str], tuple[str, int]],
) -> tuple[list[Chunk], int]:
    """All chunks of the file in source order, and how many secrets were redacted."""
    plans: list[tuple[int | None, list[tuple[int, int]]]] = []
    top_level = [i for i, s in enumerate(symbols) if s.enclosing is None]
    plans.append((None, _owned_regions(source, 0, len(source.data), symbols, top_level)))
    for index, symbol in enumerate(symbols):
        if symbol.kind in CONTAINER_KINDS and symbol.children:
            regions = _owned_regions(source, symbol.start, symbol.end, symbols, symbol.children)
            plans.append((index, regions or [(symbol.start, symbol.end)]))
        else:
            plans.append((index, [(symbol.start, symbol.end)]))

    chunks: list[Chunk] = []
    redactions = 0
    for index, regions in plans:
        symbol = symbols[index] if index is not None else None
        header = symbol.signature if symbol is not None else ""
        budget = max_tokens
        if header:
            budget = max(max_tokens - source.count_tokens(header) - 1, max_tokens // 2)
        ranges = [piece for a, b in regions for piece in split_region(root, source, a, b, budget)]
        for piece, (start, end) in enumerate(ranges):
            text = source.text(start, end)
            if symbol is not None and len(ranges) > 1:
                text = f"{header}\n{text}"
            text, count = redact(text)
            redactions += count
            chunks.append(
                Chunk(
                    symbol=index,
                    symbol_name=symbol.name if symbol else None,
                    qualified_name=symbol.qualified_name if symbol else None,
                    kind=symbol.kind if symbol else "file",
                    start_line=source.line_of(start),
                    end_line=source.end_line_of(start, end),
                    start_byte=start,
                    end_byte=end,
                    content=text,
                    content_hash=content_hash(parser_version, text),
                    piece=piece,
                    piece_count=len(ranges),
                )
            )
    chunks.sort(key=lambda c: (c.start_byte, c.end_byte))
    return chunks, redactions


def _owned_regions(
    source: Source, start: int, end: int, symbols: list[FoundSymbol], members: list[int]
) -> list[tuple[int, int]]:
    """Parts of [start, end) outside the member symbols, trimmed, without trivial parts."""
    regions = []
    cursor = start
    for member in sorted(members, key=lambda i: symbols[i].start):
        regions.append((cursor, symbols[member].start))
        cursor = max(cursor, symbols[member].end)
    regions.append((cursor, end))
    owned = []
    for a, b in regions:
        text = source.data[a:b]
        if TRIVIAL.match(text):
            continue
        a += len(text) - len(text.lstrip())
        b -= len(text) - len(text.rstrip())
        owned.append(source.widen_to_lines(a, b, trailing=b" \t"))
    return owned
