"""`index_file`: parse and embed one uncommitted file into the principal's overlay.

The file is stored like any committed blob (content-addressed by its git blob sha, parsed at the
current snapshot's parser version) and mapped to its path in `overlay_files`, where only this
principal sees it, marked `working-tree`, until it expires or is forgotten
(`mcp_app.overlay_retention`). The work is bounded: at most 1 MB of text and 3,000 chunks, and
embedding stops when the call's time budget is spent (the rest stays lexically searchable).
"""

from __future__ import annotations

import base64
import binascii
import time
from typing import TYPE_CHECKING

from core.errors import CodeatlasError
from indexing import storage
from mcp_app.app_context import AppContext
from mcp_app.inputs import MAX_FILE_BYTES
from mcp_app.outputs import IndexFileResult
from mcp_app.overlay_retention import check_quota, expire, expiry, keep
from retrieval.principals import DbConnection, Principal
from retrieval.reading import clean_path
from retrieval.scope import resolve_scope

if TYPE_CHECKING:
    from indexing.parsing.model import ParsedFile

EMBED_BATCH = 32


class UnindexableFileError(CodeatlasError):
    """The content sent to index_file cannot be indexed (binary, not UTF-8, too large, ...)."""


def decode_content(content: str, encoding: str) -> bytes:
    """The file's bytes, checked to be UTF-8 text within the size limit."""
    if encoding == "base64":
        try:
            data = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise UnindexableFileError("content is not valid base64") from exc
    else:
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates sent as JSON escapes
            raise UnindexableFileError("content is not valid UTF-8 text") from exc
    if len(data) > MAX_FILE_BYTES:
        raise UnindexableFileError(f"file is larger than {MAX_FILE_BYTES:,} bytes")
    if b"\x00" in data:
        raise UnindexableFileError("content looks binary (NUL bytes); only source text is indexed")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnindexableFileError("content is not valid UTF-8 text") from exc
    return data


def index_file(
    app: AppContext,
    conn: DbConnection,
    principal: Principal,
    repository: str,
    path: str,
    data: bytes,
) -> IndexFileResult:
    """Parse, store, embed (when the repository's model is available) and map into the overlay."""
    from indexing import lexical_index
    from indexing.file_index import store_file_version
    from indexing.parse_version import effective_parser_version
    from indexing.parsing.file_rules import skip_reason
    from indexing.parsing.languages import detect_language

    deadline = time.monotonic() + app.limits.index_file_seconds
    scope = resolve_scope(conn, principal, [repository])
    view = scope.repositories[0]
    path = clean_path(path)
    expire(conn)
    language = detect_language(path, data)
    reason = skip_reason(path, len(data), data, max_bytes=MAX_FILE_BYTES)
    if reason or language is None:
        raise UnindexableFileError(f"{path} is not indexed ({reason or 'unsupported language'})")
    version = effective_parser_version(app.settings)
    blob_sha = storage.git_blob_sha(data)
    with conn.transaction():
        check_quota(conn, principal.id, view.repository_id, path, app.limits)
        file_version_id, _parsed = store_file_version(
            conn,
            view.repository_id,
            path,
            blob_sha,
            language,
            data,
            version,
            app.settings,
            accept=lambda parsed: _within_chunk_limit(app, path, parsed),
        )
        lexical_index.ensure_file_terms(conn, file_version_id, path)
        lexical_index.post_file_versions(conn, view.repository_id, [file_version_id])
        keep(
            conn,
            view.repository_id,
            principal.id,
            path,
            file_version_id,
            app.limits.overlay_ttl_hours * 3600,
        )
    counts = storage.counts(conn, file_version_id)
    assert counts is not None
    embedded, note = _embed(app, conn, view.active_model, file_version_id, path, deadline)
    expires = expiry(conn, view.repository_id, principal.id, path)
    result: IndexFileResult = {
        "repository": repository,
        "path": path,
        "language": language,
        "blob_sha": blob_sha,
        "symbols": counts["symbols"],
        "chunks": counts["chunks"],
        "embedded_chunks": embedded,
        "source": "working-tree",
        "expires_at": expires["at"].isoformat() if expires else None,
    }
    if note:
        result["note"] = note
    return result


def _within_chunk_limit(app: AppContext, path: str, parsed: ParsedFile) -> None:
    if len(parsed.chunks) > app.limits.overlay_max_chunks:
        raise UnindexableFileError(
            f"{path} parses into {len(parsed.chunks):,} chunks; index_file takes at most "
            f"{app.limits.overlay_max_chunks:,} (commit it and let the indexer take it)"
        )


def _embed(
    app: AppContext,
    conn: DbConnection,
    model: str | None,
    file_version_id: int,
    path: str,
    deadline: float,
) -> tuple[int, str | None]:
    from indexing import chunk_embeddings, embedding_registry
    from indexing.embedding.base import document_text

    if model is None:
        return 0, "the repository has no embedding model yet: lexical and symbol search only"
    embedder = app.embedders.embedder_for(model)
    if embedder is None:
        return 0, f"no embedder for model {model!r} here: lexical and symbol search only"
    todo = chunk_embeddings.missing_in_file_version(conn, file_version_id, model)
    # bounded: what fits in the call's time budget is embedded (shortest first, so most
    # chunks); the rest is still found by lexical and symbol search
    done = 0
    for start in range(0, len(todo), EMBED_BATCH):
        if time.monotonic() >= deadline:
            break
        batch = todo[start : start + EMBED_BATCH]
        vectors = embedder.embed_documents(
            [document_text(embedder, r["content"], path, r["qualified_name"]) for r in batch]
        )
        hashes = [r["content_hash"] for r in batch]
        with conn.transaction():
            embedding_registry.ensure_embedding_model(conn, model, embedder.dimensions)
            chunk_embeddings.store(conn, model, hashes, vectors)
            # a later index_file of the path may have deleted this version meanwhile: its
            # vectors must not outlive it
            chunk_embeddings.delete_unused_among(conn, hashes)
        done += len(batch)
    if done < len(todo):
        return done, (
            f"embedded {done} of {len(todo)} new chunks within the "
            f"{app.limits.index_file_seconds:g} s budget of index_file; the rest are found by "
            "lexical and symbol search"
        )
    return done, None
