"""What each tool returns: its structured content, published as the tool's output schema.

Records made by `retrieval/` keep any field it adds (`extra="allow"`), so a new field reaches
agents without a change here; a key that is sometimes absent is `NotRequired`. Every read
tool's answer read on a streaming replica carries `replica`: how far it trailed the primary.
"""

from __future__ import annotations

from typing import Any, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from retrieval.status import ReplicaLag

_OPEN = ConfigDict(extra="allow")


@with_config(_OPEN)
class Hit(TypedDict):
    """One search result: a whole symbol, or a file-level chunk (symbol null)."""

    repository: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str
    score: float
    retrievers: list[str]
    commit: str
    source: str
    preview: NotRequired[str]


@with_config(_OPEN)
class SymbolMatch(TypedDict):
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
    match: str
    score: float


@with_config(_OPEN)
class SymbolSource(TypedDict):
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


class Definition(TypedDict):
    """A definition of the symbol whose call graph is walked."""

    symbol: str
    path: str
    start_line: int
    kind: str


@with_config(_OPEN)
class CallSite(TypedDict):
    """One call from a caller symbol to a callee name."""

    repository: str
    path: str
    line: int
    caller: str | None
    caller_kind: str | None
    callee: str
    resolved_to: str | None
    certainty: str
    commit: str
    source: str


@with_config(_OPEN)
class OutlineEntry(TypedDict):
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


@with_config(_OPEN)
class LocatedFunction(TypedDict):
    """A likely function of a located file, and why."""

    symbol: str
    kind: str
    start_line: int
    end_line: int
    score: float
    evidence: list[str]


@with_config(_OPEN)
class LocatedFile(TypedDict):
    """A file likely to change for a bug report: its role, evidence and likely functions."""

    repository: str
    path: str
    commit: str
    source: str
    role: str
    score: float
    evidence: list[str]
    functions: list[LocatedFunction]


class ReadAnswer(TypedDict):
    """What every read tool's answer may carry: the replica's lag when read on one."""

    replica: NotRequired[ReplicaLag]


class SearchCodeResult(ReadAnswer):
    """search_code's answer."""

    results: list[Hit]
    next_offset: NotRequired[int]
    notes: NotRequired[list[str]]


class LocateResult(ReadAnswer):
    """locate's answer."""

    files: list[LocatedFile]
    notes: NotRequired[list[str]]


class SearchSymbolsResult(ReadAnswer):
    """search_symbols' answer."""

    symbols: list[SymbolMatch]
    next_offset: NotRequired[int]


class ReadSymbolResult(ReadAnswer):
    """read_symbol's answer (a note when nothing matched)."""

    symbols: list[SymbolSource]
    note: NotRequired[str]


class PageCounts(TypedDict):
    """A call graph page's counts: all the sites, and the next page's offset if there is one."""

    next_offset: NotRequired[int]
    total: int


class CallersResult(ReadAnswer):
    """find_callers' answer."""

    definitions: list[Definition]
    callers: list[CallSite]
    next_offset: NotRequired[int]
    total: int


class CalleesResult(ReadAnswer):
    """find_callees' answer."""

    definitions: list[Definition]
    callees: list[CallSite]
    next_offset: NotRequired[int]
    total: int


class FileOutlineResult(ReadAnswer):
    """file_outline's answer."""

    symbols: list[OutlineEntry]
    next_offset: NotRequired[int]


class IndexFileResult(TypedDict):
    """index_file's answer."""

    repository: str
    path: str
    language: str
    blob_sha: str
    symbols: int
    chunks: int
    embedded_chunks: int
    source: str
    expires_at: str | None
    note: NotRequired[str]


class ForgetFileResult(TypedDict):
    """forget_file's answer."""

    repository: str
    removed: list[str]
    note: NotRequired[str]


class IndexStatusResult(ReadAnswer):
    """index_status' answer: one record per repository (`retrieval.status`; read on a replica,
    each also names the primary's `primary_commit`)."""

    repositories: list[dict[str, Any]]


class Repository(TypedDict):
    """A repository the principal can read."""

    name: str
    branch: str | None
    current_commit: str | None
    indexed_at: str | None
    embedding_model: str | None


class ListRepositoriesResult(ReadAnswer):
    """list_repositories' answer."""

    repositories: list[Repository]
