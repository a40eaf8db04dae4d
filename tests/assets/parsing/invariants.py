"""What must hold for every parsed file, checked independently of how the parser works."""

from __future__ import annotations

import re

from assets.parsing.model import ParsedFile
from assets.parsing.redaction import redact

_TRIVIAL_LINE = re.compile(r"^(?:\s|[})\];,]|\bend\b|<\?php|\?>)*$")


def source_text(data: bytes, start: int, end: int) -> str:
    """The original text of a byte range, decoded the way chunks are."""
    piece = data[start:end]
    if start == 0 and piece.startswith(b"\xef\xbb\xbf"):
        piece = piece[3:]
    return piece.decode("utf-8", "replace")


def chunk_source(chunk_content: str, has_header: bool) -> str:
    """A chunk's content without its signature header line."""
    return chunk_content.split("\n", 1)[1] if has_header else chunk_content


def problems(data: bytes, parsed: ParsedFile) -> list[str]:
    """Every violated invariant of one parse, as readable messages (empty when all hold)."""
    found: list[str] = []
    line_starts = [0] + [m.end() for m in re.finditer(b"\n", data)]

    def line_of(offset: int) -> int:
        lo, hi = 0, len(line_starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if line_starts[mid] <= offset:
                lo = mid + 1
            else:
                hi = mid
        return lo

    symbols = parsed.symbols
    ancestors: list[set[int]] = []
    for i, s in enumerate(symbols):
        outer = {
            j
            for j, t in enumerate(symbols)
            if j != i and t.start_byte <= s.start_byte and s.end_byte <= t.end_byte
        }
        ancestors.append(outer)

    chunks = sorted(parsed.chunks, key=lambda c: c.start_byte)
    for a, b in zip(chunks, chunks[1:], strict=False):
        if b.start_byte < a.end_byte:
            found.append(f"chunks overlap: {a.start_line}-{a.end_line} and {b.start_line}")
    for c in chunks:
        where = f"chunk {c.qualified_name or 'file'} {c.start_line}-{c.end_line}"
        header = c.symbol is not None and c.piece_count > 1
        expected = redact(source_text(data, c.start_byte, c.end_byte))[0]
        if chunk_source(c.content, header) != expected:
            found.append(f"{where}: content differs from source")
        if c.start_line != line_of(c.start_byte) or c.end_line != line_of(
            max(c.start_byte, c.end_byte - 1)
        ):
            found.append(f"{where}: lines do not match bytes")
        for j, s in enumerate(symbols):
            disjoint = c.end_byte <= s.start_byte or s.end_byte <= c.start_byte
            inside = s.start_byte <= c.start_byte and c.end_byte <= s.end_byte
            if c.symbol is None and not disjoint:
                found.append(f"{where}: file chunk overlaps symbol {s.qualified_name}")
            elif c.symbol is not None and not disjoint:
                if j == c.symbol or (inside and j in ancestors[c.symbol]):
                    continue
                found.append(f"{where}: crosses symbol {s.qualified_name}")

    for i, s in enumerate(symbols):
        own = [c for c in chunks if c.symbol == i]
        if not own:
            found.append(f"symbol {s.qualified_name} has no chunk")
            continue
        if own[0].start_byte != s.start_byte:
            found.append(f"symbol {s.qualified_name}: first chunk does not start at the symbol")
        family = {i} | {j for j, outer in enumerate(ancestors) if i in outer}
        covering = [c for c in chunks if c.symbol in family]
        text = source_text(data, 0, len(data)) if data[:3] != b"\xef\xbb\xbf" else None
        lines = (text if text is not None else data.decode("utf-8", "replace")).split("\n")
        for line in range(s.start_line, s.end_line + 1):
            if _TRIVIAL_LINE.match(lines[line - 1] if line - 1 < len(lines) else ""):
                continue
            if not any(c.start_line <= line <= c.end_line for c in covering):
                found.append(f"symbol {s.qualified_name}: line {line} is in no chunk")
                break
    return found
