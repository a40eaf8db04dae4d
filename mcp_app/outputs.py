"""What each tool returns: its structured content, published as the tool's output schema.

The records inside an answer are `retrieval/`'s own dataclasses (`retrieval.hits`,
`retrieval.locate`), returned as they are: the SDK derives their schema from them, so a field
added there reaches agents and the schema without a change here. The schema is the one of what
is sent (serialization mode: a record's internal fields are not published). A key that is
sometimes absent is `NotRequired`. Every read tool's answer read on a streaming replica carries
`replica`: how far it trailed the primary.
"""

from __future__ import annotations

from typing import Any, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from retrieval.hits import CallSite, Definition, Hit, OutlineEntry, SymbolMatch, SymbolSource
from retrieval.locate import LocatedFile, RankedFunction
from retrieval.status import ReplicaLag

# publish what is sent: retrieval's records keep internal fields that never leave the server
SENT = ConfigDict(json_schema_mode_override="serialization")


@with_config(SENT)
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
    functions: list[RankedFunction]
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
    """find_callers' answer; `more_sites` (with a note) when the name was called more often than
    one answer resolves: then `total` counts the sites resolved, not every call."""

    definitions: list[Definition]
    callers: list[CallSite]
    next_offset: NotRequired[int]
    total: int
    more_sites: NotRequired[bool]
    note: NotRequired[str]


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
