"""Documentation left out of what is searched: the lines of mined docs become empty lines, so
every other line keeps its number and the gold ranges stay those of the file as committed."""

from __future__ import annotations

from collections.abc import Iterable


def blank_lines(data: bytes, lines: Iterable[int]) -> bytes:
    """`data` with the given 1-based lines emptied (their line ends kept, `\\r\\n` included)."""
    wanted = set(lines)
    if not wanted:
        return data
    # split on "\n" alone, as codeatlas numbers lines (bytes.splitlines also splits on "\r",
    # form feeds and other separators)
    lines_of = data.split(b"\n")
    for number in wanted:
        if 1 <= number <= len(lines_of):
            line = lines_of[number - 1]
            lines_of[number - 1] = b"\r" if line.endswith(b"\r") else b""
    return b"\n".join(lines_of)
