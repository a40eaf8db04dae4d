"""What retrieval returns: small, attributed records with paths and line ranges."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, LiteralString

# the exact keys of `codeatlas search --json` results (DESIGN §9); benchmarks depend on them
CONTRACT_KEYS = (
    "path",
    "start_line",
    "end_line",
    "symbol",
    "kind",
    "score",
    "retrievers",
    "commit",
)


# A declaration (class, interface, struct, enum, type...) longer than this is answered by a
# part of it: its head (declaration, docblock and the fields up to the first member: its first
# chunk) or the piece of its own text that matched (a group of fields, a stretch of an option
# interface); functions and methods are always answered whole.
SHORT_CONTAINER_LINES = 40

# the last line of the head of declaration `s` (its first chunk; NULL for a function-like
# symbol, which is answered whole): a SQL column
OUTLINE_END: LiteralString = """
    (SELECT max(h.end_line) FROM code_chunks h WHERE h.symbol_id = s.id AND h.piece = 0
       AND s.kind NOT IN ('function', 'method', 'constructor', 'macro')) AS outline_end
"""


def unit_range(
    start: int, end: int, outline_end: int | None, piece: tuple[int, int] | None = None
) -> tuple[int, int]:
    """The lines a hit on a symbol spans: all of it, or for a long declaration the `piece` of
    its text that matched (lines of a chunk after its first), else its head."""
    if outline_end is None or end - start + 1 <= SHORT_CONTAINER_LINES:
        return start, end
    if piece is not None:
        return piece
    return start, max(start, min(outline_end, end))


@dataclass
class Hit:
    """One search result: a whole symbol (pieces collapsed) or a file-level chunk."""

    repository: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None  # qualified name; None for a file-level chunk
    kind: str
    score: float
    retrievers: list[str]
    commit: str
    source: str  # "commit" | "working-tree"
    preview: str | None = None

    def contract(self) -> dict[str, Any]:
        """The `search --json` record: exactly the contract's keys."""
        record = asdict(self)
        return {key: record[key] for key in CONTRACT_KEYS}

    def as_dict(self, *, preview: bool = True) -> dict[str, Any]:
        """Everything, for MCP payloads (preview optional)."""
        record = asdict(self)
        if not preview or record["preview"] is None:
            record.pop("preview")
        return record


@dataclass
class SymbolMatch:
    """A definition found by name."""

    repository: str
    path: str
    start_line: int
    end_line: int
    symbol: str
    name: str
    kind: str
    signature: str
    commit: str
    source: str
    match: str  # exact | exact-insensitive | suffix | similar
    score: float
    symbol_id: int = field(default=0, repr=False)
    file_version_id: int = field(default=0, repr=False)
    outline_end: int | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The public fields (internal ids dropped)."""
        record = asdict(self)
        for internal in ("symbol_id", "file_version_id", "outline_end"):
            record.pop(internal)
        return record


@dataclass
class SymbolSource:
    """The complete source of one symbol (or as many lines as were asked for)."""

    repository: str
    path: str
    symbol: str
    kind: str
    signature: str
    start_line: int
    end_line: int
    commit: str
    source: str
    code: str
    code_start_line: int
    code_end_line: int
    truncated: bool

    def as_dict(self) -> dict[str, Any]:
        """All fields."""
        return asdict(self)


@dataclass
class CallSite:
    """One reference from a caller symbol to a callee name."""

    repository: str
    path: str
    line: int
    caller: str | None  # qualified name of the innermost enclosing symbol (None: top level)
    caller_kind: str | None
    callee: str  # the name called, with its qualifier as written ("self.save", "os.path.join")
    resolved_to: str | None  # "path:line" of the definition it resolves to, when known
    certainty: str  # certain | ambiguous
    commit: str
    source: str

    def as_dict(self) -> dict[str, Any]:
        """All fields."""
        return asdict(self)
