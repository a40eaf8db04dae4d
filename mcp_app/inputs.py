"""The types of the tools' arguments: constraints, validators and the descriptions agents read.
Each tool's input schema is built by the SDK from its typed parameters (`mcp_app.tools`)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from retrieval.request_budget import MAX_REQUEST_CHARS

MAX_LIMIT = 50
MAX_OFFSET = 500
# a bug report pasted whole: prose, a traceback, code (GitHub caps an issue body at 65,536);
# search takes one too (it answers it with locate's ranking). The CLI's limit is the same one.
MAX_ISSUE = MAX_REQUEST_CHARS
MAX_QUERY = MAX_ISSUE
MAX_NAME = 500
MAX_PATH = 1024
MAX_FILE_BYTES = 1_000_000
MAX_READ_LINES = 1000
MAX_LINE = 10_000_000


def _utf8_text(value: str) -> str:
    """Text PostgreSQL can store: no NUL, no lone surrogates (JSON escapes can carry both)."""
    if "\x00" in value:
        raise ValueError("must not contain NUL bytes")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return value


def _name_text(value: str) -> str:
    """A name or path: one line of printable text."""
    _utf8_text(value)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in value):
        raise ValueError("must not contain control or invisible formatting characters")
    if value != value.strip():
        raise ValueError("must not start or end with whitespace")
    return value


def _query_text(value: str) -> str:
    """A query with something to find: a blank one would still get the chunks nearest the
    empty text from the semantic retriever, answers that look real."""
    _utf8_text(value)
    if not value.strip():
        raise ValueError("must say what to find (it is empty or only whitespace)")
    return value


def _commit_text(value: str) -> str:
    if not all(c in "0123456789abcdefABCDEF" for c in value):
        raise ValueError("must be a commit sha or a prefix of one (hex digits)")
    return value.lower()


NameText = Annotated[str, AfterValidator(_name_text)]

RepositoryName = Annotated[
    NameText,
    Field(
        min_length=1,
        max_length=200,
        description="Repository name, as list_repositories shows it.",
    ),
]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"Results per page (1-{MAX_LIMIT}).")]
Offset = Annotated[
    int,
    Field(
        ge=0, le=MAX_OFFSET, description="Results to skip: the next_offset of the previous page."
    ),
]
Path = Annotated[
    NameText,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="File path relative to the repository root, with '/' separators.",
    ),
]
SymbolName = Annotated[
    NameText,
    Field(
        min_length=1,
        max_length=MAX_NAME,
        description="Symbol name: bare ('get_source') or qualified ('Loader.get_source').",
    ),
]
Commit = Annotated[
    Annotated[str, AfterValidator(_commit_text)] | None,
    Field(
        default=None,
        min_length=4,
        max_length=64,
        description="Read this indexed commit (sha or unique prefix) instead of the current one; "
        "only with a single repository. Your uncommitted files (index_file) apply only to the "
        "current snapshot.",
    ),
]

# arguments of one tool or two (defaults are given in the tools' signatures)
# the length rules come before the text check, as pydantic applies them in this order
Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY,
        description="What to find: a question in plain words, an identifier, or both; or a "
        "bug report pasted whole (several lines: ranked as the locate tool ranks it).",
    ),
    AfterValidator(_query_text),
]
IssueText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ISSUE,
        description="The bug report or task, pasted whole: its prose, stack trace, quoted file "
        "paths and code.",
    ),
    AfterValidator(_utf8_text),
]
LocateLimit = Annotated[
    int, Field(ge=1, le=MAX_LIMIT, description=f"Files to return (1-{MAX_LIMIT}).")
]
SearchedRepositories = Annotated[
    list[RepositoryName] | None,
    Field(
        max_length=20,
        description="Repositories to search (default: every repository you can read).",
    ),
]
SearchMode = Annotated[
    Literal["hybrid", "semantic", "lexical"],
    Field(
        description="hybrid (default) fuses semantic and lexical retrieval and puts exact "
        "symbol-name matches first; semantic or lexical run one retriever.",
    ),
]
SymbolRepositories = Annotated[
    list[RepositoryName] | None,
    Field(max_length=20, description="Repositories to search (default: all yours)."),
]
SymbolToRead = Annotated[
    SymbolName | None,
    Field(
        min_length=1,
        max_length=MAX_NAME,
        description="Symbol to read: bare or qualified name. Either this or path + start_line.",
    ),
]
PathToRead = Annotated[
    Path | None,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="File path: narrows `name` to one file, or with start_line picks the "
        "symbol(s) at those lines.",
    ),
]
StartLine = Annotated[int | None, Field(ge=1, le=MAX_LINE, description="First line of the range.")]
EndLine = Annotated[
    int | None, Field(ge=1, le=MAX_LINE, description="Last line (default start_line).")
]
FromLine = Annotated[
    int | None,
    Field(ge=1, le=MAX_LINE, description="Continue a truncated symbol from this line."),
]
MaxLines = Annotated[
    int, Field(ge=1, le=MAX_READ_LINES, description="At most this many lines per symbol.")
]
DefiningPath = Annotated[
    Path | None,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="The file defining the symbol, when several definitions share the name.",
    ),
]
OutlineLimit = Annotated[int, Field(ge=1, le=500, description="At most this many symbols.")]
OutlineOffset = Annotated[int, Field(ge=0, le=100_000, description="Symbols to skip.")]
FileContent = Annotated[
    str,
    Field(
        max_length=2 * MAX_FILE_BYTES,
        description=f"The file's full text (at most {MAX_FILE_BYTES:,} bytes as UTF-8), or "
        "base64 of its bytes when encoding is 'base64'.",
    ),
]
ContentEncoding = Annotated[
    Literal["utf-8", "base64"], Field(description="How `content` is encoded.")
]
PathToForget = Annotated[
    Path | None,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="The file to forget; omit to forget all your files in the repository.",
    ),
]
ReportedRepositories = Annotated[
    list[RepositoryName] | None,
    Field(max_length=50, description="Repositories to report (default: all yours)."),
]
