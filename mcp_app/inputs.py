"""One pydantic model per tool input; the field descriptions are what agents read."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

MAX_LIMIT = 50
MAX_OFFSET = 500
MAX_QUERY = 2000
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


def _commit_text(value: str) -> str:
    if not all(c in "0123456789abcdefABCDEF" for c in value):
        raise ValueError("must be a commit sha or a prefix of one (hex digits)")
    return value.lower()


QueryText = Annotated[str, AfterValidator(_utf8_text)]
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


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchCodeInput(_Input):
    query: QueryText = Field(
        min_length=1,
        max_length=MAX_QUERY,
        description="What to find: a question in plain words, an identifier, or both.",
    )
    repositories: list[RepositoryName] | None = Field(
        default=None,
        max_length=20,
        description="Repositories to search (default: every repository you can read).",
    )
    commit: Commit = None
    mode: Literal["hybrid", "semantic", "lexical"] = Field(
        default="hybrid",
        description="hybrid (default) fuses semantic and lexical retrieval and puts exact "
        "symbol-name matches first; semantic or lexical run one retriever.",
    )
    limit: Limit = 10
    offset: Offset = 0


class SearchSymbolsInput(_Input):
    name: SymbolName
    repositories: list[RepositoryName] | None = Field(
        default=None, max_length=20, description="Repositories to search (default: all yours)."
    )
    commit: Commit = None
    limit: Limit = 20
    offset: Offset = 0


class ReadSymbolInput(_Input):
    repository: RepositoryName
    name: SymbolName | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME,
        description="Symbol to read: bare or qualified name. Either this or path + start_line.",
    )
    path: Path | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PATH,
        description="File path: narrows `name` to one file, or with start_line picks the "
        "symbol(s) at those lines.",
    )
    start_line: int | None = Field(
        default=None, ge=1, le=MAX_LINE, description="First line of the range."
    )
    end_line: int | None = Field(
        default=None, ge=1, le=MAX_LINE, description="Last line (default start_line)."
    )
    from_line: int | None = Field(
        default=None, ge=1, le=MAX_LINE, description="Continue a truncated symbol from this line."
    )
    max_lines: int = Field(
        default=300, ge=1, le=MAX_READ_LINES, description="At most this many lines per symbol."
    )
    commit: Commit = None


class CallGraphInput(_Input):
    repository: RepositoryName
    name: SymbolName
    path: Path | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PATH,
        description="The file defining the symbol, when several definitions share the name.",
    )
    commit: Commit = None
    limit: Limit = 30
    offset: Offset = 0


class FileOutlineInput(_Input):
    repository: RepositoryName
    path: Path
    commit: Commit = None
    limit: int = Field(default=200, ge=1, le=500, description="At most this many symbols.")
    offset: int = Field(default=0, ge=0, le=100_000, description="Symbols to skip.")


class IndexFileInput(_Input):
    repository: RepositoryName
    path: Path
    content: str = Field(
        max_length=2 * MAX_FILE_BYTES,
        description=f"The file's full text (at most {MAX_FILE_BYTES:,} bytes as UTF-8), or "
        "base64 of its bytes when encoding is 'base64'.",
    )
    encoding: Literal["utf-8", "base64"] = Field(
        default="utf-8", description="How `content` is encoded."
    )


class ForgetFileInput(_Input):
    repository: RepositoryName
    path: Path | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PATH,
        description="The file to forget; omit to forget all your files in the repository.",
    )


class IndexStatusInput(_Input):
    repositories: list[RepositoryName] | None = Field(
        default=None, max_length=50, description="Repositories to report (default: all yours)."
    )


class ListRepositoriesInput(_Input):
    pass
