"""Split a region of source that is too large into pieces at nested block boundaries.

Pieces are whole lines. A cut between two lines is *legal* when every syntax node crossing it
(starting before and ending after it, inside the region) is a block (a statement or member list),
a compound statement owning a block (`if`, `for`, `try`, a function, a class...), or a construct
whose own head sits on its first line around a crossing node that is itself legal
(`const f = () => {`, `describe("x", function () {`, or a bracket alone on that line:
`forwardRef(` then `function Row(props, ref) {`), or a JSX element (a list of its children).
So no cut falls inside an expression, a simple statement, a string or a comment. A legal cut
is *enabled* only when every crossing node below the region is itself too large for one piece:
statements that fit are never split, which is the same as recursing into a statement's blocks
only when it is too big. Pieces are packed greedily over the enabled cuts; a leaf statement too
big on its own becomes an oversized piece.
"""

from __future__ import annotations

from tree_sitter import Node

from indexing.parsing.grammars import BLOCK_TYPES, TRIVIAL
from indexing.parsing.source import Source


def split_region(root: Node, source: Source, start: int, end: int, budget: int) -> list[tuple]:
    """Byte ranges [(start, end), ...] covering [start, end) with pieces of at most `budget`."""
    first = source.line_of(start)
    last = source.end_line_of(start, end)
    if first == last or source.tokens(first, last) <= budget:
        return [(start, end)]
    owns_block: dict[int, bool] = {}  # node id -> has a block child (asked once per node)
    cuts = [
        line
        for line in range(first + 1, last + 1)
        if not source.is_blank(line)
        and _enabled(root, source, source.line_start(line), start, end, budget, owns_block)
    ]
    pieces: list[tuple[int, int]] = []  # (first line, last line)
    piece_start = first
    fitting: int | None = None  # the farthest cut so far that keeps the piece within budget
    for cut in cuts:
        if source.tokens(piece_start, cut - 1) <= budget:
            fitting = cut
            continue
        if fitting is not None and source.tokens(piece_start, fitting - 1) < budget // 4:
            fitting = None  # a small head joins the oversized statement that follows it
        if fitting is not None:
            pieces.append((piece_start, fitting - 1))
            piece_start, fitting = fitting, None
            if source.tokens(piece_start, cut - 1) <= budget:
                fitting = cut
                continue
        pieces.append((piece_start, cut - 1))  # one statement alone is too big
        piece_start = cut
    if (
        fitting is not None
        and source.tokens(piece_start, last) > budget
        and source.tokens(piece_start, fitting - 1) >= budget // 4
    ):
        pieces.append((piece_start, fitting - 1))
        piece_start = fitting
    pieces.append((piece_start, last))
    pieces = _merge_trivial(source, pieces)
    ranges = []
    for i, (a, b) in enumerate(pieces):
        piece_start_byte = start if i == 0 else source.line_start(a)
        while b > a and source.is_blank(b):
            b -= 1  # blank lines between pieces belong to no piece
        piece_end_byte = end if i == len(pieces) - 1 else source.line_end(b)
        ranges.append((piece_start_byte, piece_end_byte))
    return ranges


def _merge_trivial(source: Source, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A piece of nothing but closing brackets or `end` joins the piece before it."""
    merged: list[tuple[int, int]] = []
    for a, b in pieces:
        text = source.data[source.line_start(a) : source.line_end(b)]
        if merged and TRIVIAL.match(text):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def _enabled(
    root: Node,
    source: Source,
    cut: int,
    start: int,
    end: int,
    budget: int,
    owns_block: dict[int, bool],
) -> bool:
    """May the region be cut at byte offset `cut` (the start of a line)?"""
    chain = _crossing_chain(root, source, cut)
    for i, node in enumerate(chain):
        around = node.start_byte <= start and node.end_byte >= end
        if around and (node.start_byte < start or node.end_byte > end):
            continue  # something around the whole region (the file, a class)
        below = chain[i + 1] if i + 1 < len(chain) else None
        if not _splittable(node, below, source, owns_block):
            return False  # e.g. a region that is one big comment or string
        if around:
            continue  # the symbol itself: it is too large, that is why we split
        first = source.line_of(node.start_byte)
        if source.tokens(first, source.end_line_of(node.start_byte, node.end_byte)) <= budget:
            return False
    return True


def _crossing_chain(root: Node, source: Source, cut: int) -> list[Node]:
    """Nodes with start < cut < end, outermost first; a node whose rest after the cut is only
    blanks does not cross it (tree-sitter-swift ends a `case` at the next one's first token)."""
    node: Node | None = root.descendant_for_byte_range(cut, cut)
    chain = []
    while node is not None:
        if node.start_byte < cut < node.end_byte and (
            node.end_byte - cut > 64 or source.data[cut : node.end_byte].strip()
        ):
            chain.append(node)
        node = node.parent
    chain.reverse()
    return chain


# Nodes that may be cut between their children, though they are not blocks a node around them
# owns: a cut between `return (` and the JSX element it returns stays illegal.
_CHILD_LISTS = frozenset({"jsx_element"})


def _splittable(
    node: Node, below: Node | None, source: Source, owns_block: dict[int, bool]
) -> bool:
    if node.type in BLOCK_TYPES or node.type in _CHILD_LISTS or node.is_error:
        return True
    # cached: a node crosses every line it spans, and listing the children of a 10,000-entry
    # literal on each of its lines made one 600 KB data file take minutes (quadratic)
    if node.id not in owns_block:
        owns_block[node.id] = any(child.type in BLOCK_TYPES for child in node.named_children)
    if owns_block[node.id]:
        return True
    if below is None:
        return False
    # `const f = () => {`: a head on the node's first line, then the crossing child; or a
    # bracket alone before it (`forwardRef(` / `  function Row(props) {`, `return (` / `  <div>`)
    if source.line_of(below.start_byte) == source.line_of(node.start_byte):
        return True
    return source.data[node.start_byte : below.start_byte].strip() in (b"(", b"[")
