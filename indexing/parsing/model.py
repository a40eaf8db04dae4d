"""What parsing one file produces: symbols, chunks and edges, all plain data."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Symbol:
    """A definition found in a file (function, method, class, interface, ...)."""

    name: str
    qualified_name: str  # namespace/package/class path, e.g. "Flask.make_response"
    kind: str  # function | method | class | interface | trait | enum | struct | module | ...
    signature: str  # one line, no body
    start_line: int  # 1-based, inclusive; includes docblock/decorators above
    end_line: int  # 1-based, inclusive
    start_byte: int
    end_byte: int
    parent: int | None = None  # index into ParsedFile.symbols (method -> class)


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a file: a whole symbol, a piece of a large one, or the file header."""

    symbol: int | None  # index into ParsedFile.symbols; None for the file-level chunk
    symbol_name: str | None
    qualified_name: str | None
    kind: str  # the symbol's kind, or "file" for the file-level chunk
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    content: str  # redacted source of the range (pieces start with their symbol's signature line)
    content_hash: str  # sha256 over PARSER_VERSION + content, 128 bits in hex
    piece: int = 0  # 0-based index when a symbol was split, else 0
    piece_count: int = 1


@dataclass(frozen=True)
class Edge:
    """A reference from one place in a file to a name: a call, an import, extends/implements."""

    kind: str  # call | import | extends | implements
    callee_name: str  # the bare name referenced ("get_source", "Request")
    qualifier: str | None  # receiver or module text where the syntax shows one ("self", "os.path")
    line: int  # 1-based line of the reference
    caller: int | None  # index into ParsedFile.symbols of the innermost enclosing symbol


@dataclass
class ParsedFile:
    """Everything codeatlas keeps from one file version."""

    language: str
    symbols: list[Symbol] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    has_syntax_errors: bool = False
    redactions: int = 0
    # what its content shows it is for (`content_roles.content_role`; "code": nothing more)
    role: str | None = None
