"""One file's bytes and its line table: offsets index the original bytes, lines are 1-based."""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

BOM = b"\xef\xbb\xbf"
_WORD_PIECE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


def estimate_tokens(text: str) -> int:
    """Rough token count of code for BPE tokenizers: word pieces, with long words costing more."""
    count = 0
    for piece in _WORD_PIECE.findall(text):
        count += 1 if len(piece) <= 6 else math.ceil(len(piece) / 6)
    return count


class Source:
    """The original bytes of a file plus a line table; never fails on odd encodings."""

    def __init__(self, data: bytes, count_tokens: Callable[[str], int] = estimate_tokens):
        self.data = data
        self.count_tokens = count_tokens
        self.line_starts = [0]
        self.line_starts.extend(m.end() for m in re.finditer(b"\n", data))
        self._line_tokens: list[int] | None = None

    @property
    def for_parser(self) -> bytes:
        """The bytes handed to tree-sitter: a BOM becomes spaces so offsets stay the same."""
        if self.data.startswith(BOM):
            return b"   " + self.data[3:]
        return self.data

    def text(self, start: int, end: int) -> str:
        """Decoded text of a byte range (invalid UTF-8 replaced, a leading BOM dropped)."""
        chunk = self.data[start:end]
        if start == 0 and chunk.startswith(BOM):
            chunk = chunk[3:]
        return chunk.decode("utf-8", "replace")

    def line_of(self, offset: int) -> int:
        """1-based line of a byte offset."""
        return bisect_right(self.line_starts, offset)

    def end_line_of(self, start: int, end: int) -> int:
        """1-based line of the last byte of a non-empty range [start, end)."""
        return self.line_of(max(start, end - 1))

    def line_start(self, line: int) -> int:
        """Byte offset where 1-based `line` starts."""
        return self.line_starts[line - 1]

    def line_end(self, line: int) -> int:
        """Byte offset of the end of 1-based `line`, before its "\\r\\n" or "\\n"."""
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.data)
        if end > 0 and end <= len(self.data) and self.data[end - 1 : end] == b"\r":
            end -= 1
        return max(end, self.line_starts[line - 1])

    def widen_to_lines(self, start: int, end: int, trailing: bytes = b" \t;,") -> tuple[int, int]:
        """Extend a range to whole lines where only blanks (or `trailing` bytes) lie outside it."""
        first = self.line_of(start)
        head = self.line_start(first)
        if not self.data[head:start].strip(b" \t"):
            start = head
        last = self.end_line_of(start, end)
        tail = self.line_end(last)
        if end < tail and not self.data[end:tail].strip(trailing):
            end = tail
        return start, end

    def is_blank(self, line: int) -> bool:
        """True when 1-based `line` holds only whitespace."""
        return not self.data[self.line_start(line) : self.line_end(line)].strip()

    def tokens(self, first_line: int, last_line: int) -> int:
        """Estimated tokens of lines first_line..last_line (1-based, inclusive)."""
        if self._line_tokens is None:
            counts = [
                self.count_tokens(self.text(self.line_start(n), self.line_end(n)))
                for n in range(1, len(self.line_starts) + 1)
            ]
            self._line_tokens = [0, *accumulate(counts)]
        return self._line_tokens[last_line] - self._line_tokens[first_line - 1]
