"""What retrieval returns: small, attributed records with paths and line ranges.

The MCP tools answer with these records as they are: the SDK derives each tool's output schema
from them, so a field added here reaches agents and the schema at once. They stay plain
dataclasses (pydantic is not imported here: the CLI would pay for it at every start); the
`metadata` of a field speaks pydantic's `Field` arguments, read only when a schema is built:
`INTERNAL` fields are ours alone (never sent, absent from the published schema, which the MCP
answers build in serialization mode), `ABSENT_IF_NONE` ones are left out when None.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any, LiteralString, cast

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
       AND s.kind NOT IN ('function', 'method', 'constructor', 'macro', 'property'))
       AS outline_end
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


# A function whose code is at most this many lines (its signature and a statement or two, not
# counting comments, docstrings, attributes and closing brackets) is *thin*: an accessor, a
# delegation, a one-line predicate. It names what it returns or forwards; the code that computes
# it answers a question about how (docs/retrieval.md).
THIN_FUNCTION_LINES = 3
THIN_FUNCTION_CHARACTERS = 300
# SQL columns of a candidate chunk's text, each row reading (and decompressing) its text once:
# the whole text of a chunk short enough to be a thin function (NULL for the others; search
# reads a function of several pieces whole: `with_whole_functions`), and the
# first HEAD_CHARACTERS of the others (NULL for the short ones: `head` gives them)
_SHORT = "c.piece_count = 1 AND c.end_line - c.start_line < 40"
_HEAD = "400"  # (a string: the SQL below stays a literal)
HEAD_CHARACTERS = int(_HEAD)
_TEXT = "codeatlas_chunk_text(c.file_version_id, c.ordinal)"
CHUNK_TEXT_COLUMNS: LiteralString = f"""
    CASE WHEN {_SHORT} THEN {_TEXT} END AS short_content,
    CASE WHEN NOT ({_SHORT}) THEN left({_TEXT}, {_HEAD}) END AS long_head
"""


def head(row: dict[str, Any]) -> str:
    """The first characters of a candidate chunk's text (see `CHUNK_TEXT_COLUMNS`)."""
    text = row["long_head"] if row["long_head"] is not None else row["short_content"]
    return (text or "")[:HEAD_CHARACTERS]


_COMMENT_LINE = re.compile(r"//|#|/\*|\*(?:\s|/|$)")
_BRACKETS_LINE = re.compile(r"[\[\]{}(),;:]*|end")
_TRIPLE_QUOTES = ('"""', "'''")


def code_lines(text: str) -> list[str]:
    """The lines of `text` holding code: not blank, not a comment or docstring line, not an
    attribute or decorator line (`@property`, `#[inline]`, `[Obsolete]`), not only brackets
    or `end`."""
    code: list[str] = []
    docstring = None
    for line in text.splitlines():
        stripped = line.strip()
        if docstring is not None:
            if docstring in stripped:
                docstring = None
            continue
        quote = stripped.lstrip("rRbBuU")[:3]
        if quote in _TRIPLE_QUOTES:
            if stripped.count(quote) < 2:
                docstring = quote
            continue
        if (
            _COMMENT_LINE.match(stripped)
            or _BRACKETS_LINE.fullmatch(stripped)
            or stripped.startswith("@")
            or (stripped.startswith("[") and stripped.endswith("]"))
        ):
            continue
        code.append(stripped)
    return code


def _is_none(value: object) -> bool:
    return value is None


def _string_or_absent(schema: dict[str, Any]) -> None:
    # the key is left out when None, so agents see a string or nothing (never null)
    title = schema.get("title")
    schema.clear()
    schema.update({"title": title, "type": "string"} if title else {"type": "string"})


# a field kept for retrieval's own use (database ids, ranking inputs): never sent nor published
INTERNAL: dict[str, Any] = {"exclude": True}
# an optional string left out of an answer when None
ABSENT_IF_NONE: dict[str, Any] = {"exclude_if": _is_none, "json_schema_extra": _string_or_absent}


def is_thin(short_content: str | None) -> bool:
    """True for a single-chunk function of at most `THIN_FUNCTION_LINES` short lines of code (a
    long one-liner holds more than an accessor)."""
    if short_content is None:
        return False
    code = code_lines(short_content)
    return len(code) <= THIN_FUNCTION_LINES and sum(map(len, code)) <= THIN_FUNCTION_CHARACTERS


@dataclass
class Hit:
    """One search result: a whole symbol, or a file-level chunk (symbol null)."""

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
    preview: str | None = field(default=None, metadata=ABSENT_IF_NONE)

    def contract(self) -> dict[str, Any]:
        """The `search --json` record: exactly the contract's keys."""
        record = asdict(self)
        return {key: record[key] for key in CONTRACT_KEYS}

    def as_dict(self) -> dict[str, Any]:
        """The record as an agent receives it (no preview when there is none)."""
        return public_record(self)


@dataclass
class SymbolMatch:
    """A definition found by name, and how it matched."""

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
    symbol_id: int = field(default=0, repr=False, metadata=INTERNAL)
    file_version_id: int = field(default=0, repr=False, metadata=INTERNAL)
    outline_end: int | None = field(default=None, repr=False, metadata=INTERNAL)

    def as_dict(self) -> dict[str, Any]:
        """The public fields (internal ids dropped)."""
        return public_record(self)

    def as_definition(self) -> Definition:
        """Where this definition is, as the call graph tools name it."""
        return Definition(
            symbol=self.symbol, path=self.path, start_line=self.start_line, kind=self.kind
        )


@dataclass
class Definition:
    """A definition of the symbol whose call graph is walked."""

    symbol: str
    path: str
    start_line: int
    kind: str


@dataclass
class SymbolSource:
    """The source of one symbol (or the lines of it asked for)."""

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
        return public_record(self)


@dataclass
class CallSite:
    """One call from a caller symbol to a callee name."""

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
        return public_record(self)


@dataclass
class OutlineEntry:
    """One symbol of a file outline."""

    repository: str
    path: str
    symbol: str
    name: str
    kind: str
    signature: str
    start_line: int
    end_line: int
    depth: int
    commit: str
    source: str


def public_record(record: Any) -> dict[str, Any]:
    """A record's fields as agents receive them: without `INTERNAL` fields and the
    `ABSENT_IF_NONE` ones that are None (nested records likewise)."""
    public: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        drop_if = f.metadata.get("exclude_if")
        if f.metadata.get("exclude") or (drop_if is not None and drop_if(value)):
            continue
        if isinstance(value, list):
            items = cast(list[Any], value)
            value = [public_record(v) if is_dataclass(v) else v for v in items]
        public[f.name] = value
    return public
