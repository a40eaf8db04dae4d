"""What must hold for every parsed file, checked independently of how the parser works."""

from __future__ import annotations

import re
from bisect import bisect_left

from indexing.parsing.model import ParsedFile
from indexing.parsing.redaction import redact

_TRIVIAL_LINE = re.compile(r"^(?:\s|[})\];,]|\bend\b|@end\b|<\?php|\?>)*$")


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
    order = sorted(range(len(symbols)), key=lambda i: (symbols[i].start_byte, -symbols[i].end_byte))
    starts = [symbols[i].start_byte for i in order]
    # Ranges nest: a sweep with a stack gives each symbol its innermost enclosing symbol.
    enclosing: dict[int, int | None] = {}
    stack: list[int] = []
    for i in order:
        while stack and symbols[stack[-1]].end_byte <= symbols[i].start_byte:
            stack.pop()
        if stack and symbols[i].end_byte > symbols[stack[-1]].end_byte:
            found.append(f"symbols overlap: {symbols[stack[-1]].qualified_name}, {symbols[i].name}")
        enclosing[i] = stack[-1] if stack else None
        stack.append(i)

    def ancestors_of(i: int) -> set[int]:
        result, j = set(), enclosing[i]
        while j is not None:
            result.add(j)
            j = enclosing[j]
        return result

    def overlapping(start: int, end: int) -> set[int]:
        hits = {order[k] for k in range(bisect_left(starts, start), bisect_left(starts, end))}
        k = bisect_left(starts, start) - 1
        j = order[k] if k >= 0 else None
        while j is not None:
            if symbols[j].end_byte > start:
                hits.add(j)
            j = enclosing[j]
        return hits

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
        allowed = {c.symbol} | ancestors_of(c.symbol) if c.symbol is not None else set()
        for j in overlapping(c.start_byte, c.end_byte):
            s = symbols[j]
            if j not in allowed:
                found.append(f"{where}: crosses symbol {s.qualified_name}")
            elif j != c.symbol and not (s.start_byte <= c.start_byte and c.end_byte <= s.end_byte):
                found.append(f"{where}: sticks out of symbol {s.qualified_name}")

    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    by_symbol: dict[int | None, list] = {}
    for c in chunks:
        by_symbol.setdefault(c.symbol, []).append(c)
    descendants: dict[int, set[int]] = {i: {i} for i in range(len(symbols))}
    for i in range(len(symbols)):
        for j in ancestors_of(i):
            descendants[j].add(i)
    for i, s in enumerate(symbols):
        own = by_symbol.get(i, [])
        if not own:
            found.append(f"symbol {s.qualified_name} has no chunk")
            continue
        if own[0].start_byte != s.start_byte:
            found.append(f"symbol {s.qualified_name}: first chunk does not start at the symbol")
        covering = [c for j in descendants[i] for c in by_symbol.get(j, [])]
        for line in range(s.start_line, s.end_line + 1):
            if _TRIVIAL_LINE.match(lines[line - 1] if line - 1 < len(lines) else ""):
                continue
            if not any(c.start_line <= line <= c.end_line for c in covering):
                found.append(f"symbol {s.qualified_name}: line {line} is in no chunk")
                break
    return found
