"""One file's parse, stored once per blob: the write path of commits and of working-tree files.

A blob is parsed at most once per parser version; commits (`indexing.parse_step`) and files an
agent sends from its working tree (`mcp_app.overlay`) both go through `store_file_version`.
"""

from __future__ import annotations

from collections.abc import Callable

from core.config import Settings
from core.database import DictConnection
from indexing import lexical_index, storage
from indexing.parse_pool import PreparedFile, prepare
from indexing.parsing.model import ParsedFile


def store_file_version(
    conn: DictConnection,
    repository_id: int,
    path: str,
    blob_sha: str,
    language: str,
    content: bytes,
    parser_version: str,
    settings: Settings,
    accept: Callable[[ParsedFile], None] = lambda _parsed: None,
    prepared: PreparedFile | None = None,
) -> tuple[int, ParsedFile | None]:
    """(file version id, its new parse) of the blob, with its BM25 terms; the parse is None
    when it was parsed before at `parser_version`. `accept` may refuse a new parse by raising
    before anything is stored. `prepared` is the blob's parse done beforehand (by a worker
    process: `indexing.parse_pool`), used only when the blob is new."""
    file_version_id, parsed_before = storage.claim_file_version(
        conn, repository_id, blob_sha, language, parser_version, len(content)
    )
    if parsed_before:
        return file_version_id, None
    prepared = prepared or prepare(path, content, settings.chunk_max_tokens)
    parsed, documents = prepared.parsed, prepared.documents
    accept(parsed)
    chunk_ids = storage.store_parsed_file(
        conn, file_version_id, parsed, [d.length for d in documents]
    )
    lexical_index.write_new_file_terms(conn, file_version_id, chunk_ids, documents)
    return file_version_id, parsed
