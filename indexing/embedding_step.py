"""Embedding the chunks of a snapshot: only content hashes with no vector for the model yet."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import psycopg

from core.database import analyze, connection, transaction
from indexing import chunk_embeddings, embedding_registry, repositories, snapshots
from indexing.embedding.base import Embedder, document_text
from indexing.embedding_eta import EmbeddingEta

COMMIT_EVERY = 512
# chunks per call to the model, and per turn at the embedding pool's slot: another run waiting
# for the slot waits one such batch (seconds), not the whole step
# (orchestration/runtime/pool_slots.py)
TURN_CHUNKS = 128
ANALYZE_AFTER_VECTORS = 500


def missing_content(conn, snapshot_id: int, model: str, base_id: int | None = None) -> list[dict]:
    """(content_hash, length in bytes) of the snapshot's chunk contents with no vector for
    `model` (in any repository: vectors are shared by content); with `base_id`, a snapshot that
    has every vector of `model`, only those of the file versions it lacks."""
    return chunk_embeddings.missing(conn, snapshot_id, model, base_id)


def embed_snapshot(
    url: str,
    repository_name: str,
    commit_sha: str,
    embedder: Embedder,
    progress: Callable[[str], None] = lambda _msg: None,
    turn: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
    clock: Callable[[], float] = time.monotonic,
) -> dict:
    """Embed what the snapshot lacks for `embedder`'s model; commits every ~500 vectors.
    Each call to the model runs inside `turn()` (a turn at the embedding pool's slot)."""
    started = clock()
    with connection(url) as conn:
        repo = repositories.get(conn, repository_name)
        snap_id = snapshots.id_of(conn, repo.id, commit_sha)
        if snap_id is None:
            raise RuntimeError(f"{repository_name}@{commit_sha}: no snapshot to embed")
        embedding_registry.ensure_embedding_model(conn, embedder.model_name, embedder.dimensions)
        conn.commit()
        # a first embedding starts from the previous snapshot's vectors when it has them all
        # (issue 30: reading every chunk of the kernel for the few that are new took seconds);
        # a snapshot embedded before (a re-run, the nightly check) is read whole
        base = (
            None
            if snapshots.has_vectors(conn, snap_id, embedder.model_name)
            else snapshots.previous_with_vectors(conn, snap_id, embedder.model_name)
        )
        todo = missing_content(conn, snap_id, embedder.model_name, base)
    # similar lengths together: less padding per batch; contents are read one group at a time
    # so memory stays bounded however large the repository
    todo.sort(key=lambda r: r["length"])
    eta = EmbeddingEta([r["length"] for r in todo], embedder.max_tokens, clock())
    for start in range(0, len(todo), COMMIT_EVERY):
        group = todo[start : start + COMMIT_EVERY]
        hashes = [r["content_hash"] for r in group]
        with transaction(url) as tx:
            texts = _documents(tx, embedder, snap_id, hashes)
        vectors: list[list[float]] = []
        for at in range(0, len(texts), TURN_CHUNKS):
            # a batch in one call: the provider batches it further (a remote one sends its
            # requests concurrently, so a GPU server gets more than one batch at a time)
            with turn():
                vectors += embedder.embed_documents(texts[at : at + TURN_CHUNKS])
            eta.advance(len(texts[at : at + TURN_CHUNKS]), clock())
        with transaction(url) as tx:
            chunk_embeddings.store(tx, embedder.model_name, hashes, vectors)
        progress(
            f"embedded {eta.done_chunks}/{len(todo)} chunks"
            f" ({eta.chunks_per_second(started):.1f}/s, ETA {eta.seconds_left():.0f}s)"
        )
    with transaction(url) as tx:
        snapshots.mark_vectors_complete(tx, snap_id, embedder.model_name)
    if len(todo) >= ANALYZE_AFTER_VECTORS:
        analyze(url, ("chunk_embeddings",))
    return {
        "model": embedder.model_name,
        "embedded": len(todo),
        "from_snapshot": base,
        "seconds": round(clock() - started, 3),
    }


def _documents(conn, embedder: Embedder, snapshot_id: int, hashes: list[str]) -> list[str]:
    """The text `embedder` reads for each hash, in the order given (a content at several paths
    of the snapshot is read at the first of them)."""
    rows = chunk_embeddings.documents_to_embed(conn, snapshot_id, hashes)
    by_hash = {
        r["content_hash"]: document_text(embedder, r["content"], r["path"], r["qualified_name"])
        for r in rows
    }
    return [by_hash[h] for h in hashes]


def coverage_since(
    conn: psycopg.Connection[Any], snapshot_id: int, model: str
) -> tuple[int, int, int | None]:
    """`coverage` of the snapshot, counted over the file versions that entered since the
    previous snapshot when that one has every vector of `model` (then the third value, else
    None): what a commit's own check reads."""
    base = snapshots.previous_with_vectors(conn, snapshot_id, model)
    if base is None:
        return (*coverage(conn, snapshot_id, model), None)
    return (*chunk_embeddings.coverage_of_entering(conn, snapshot_id, model, base), base)


def coverage(conn: psycopg.Connection[Any], snapshot_id: int, model: str) -> tuple[int, int]:
    """(distinct chunk contents with a vector for `model`, distinct chunk contents)."""
    return chunk_embeddings.coverage_of_snapshot(conn, snapshot_id, model)
