"""Parsing a snapshot: one parse per blob not parsed before at this parser version.

A file's symbols, chunks and edges are written in the same transaction (edges point at symbol
ids and chunks at symbols), so none exists without the others.
"""

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from core.config import Settings
from core.database import analyze, connection, transaction
from indexing import git_source, lexical_index, repositories, snapshot_files, snapshots
from indexing.file_index import store_file_version
from indexing.parse_pool import MIN_FILES_FOR_WORKERS, ParseJob, ParsePool
from indexing.parse_version import effective_parser_version
from indexing.parsing.file_rules import skip_reason
from indexing.parsing.languages import detect_language
from indexing.role_backfill import fill_missing_roles

BATCH_FILES = 50
ANALYZE_AFTER_FILES = 50
ANALYZE_FRACTION = 10  # ANALYZE when a tenth of the snapshot's files or more were parsed


def _pending_blobs(conn, snapshot_id: int, version: str) -> list[dict]:
    return snapshot_files.pending_blobs(conn, snapshot_id, version)


def _jobs(checkout: Path, pending: list[dict], settings: Settings) -> Iterator[list[ParseJob]]:
    """The pending blobs in batches of BATCH_FILES, read from git, each with its language or
    the reason its content is skipped (one job per blob and language)."""
    for start in range(0, len(pending), BATCH_FILES):
        batch = {(b["blob_sha"], b["language"]): b for b in pending[start : start + BATCH_FILES]}
        contents = dict(git_source.read_blobs(checkout, sorted({sha for sha, _ in batch})))
        jobs = []
        for (blob_sha, language), item in batch.items():
            content = contents[blob_sha]
            if content is None:  # listed, then lost or corrupt: skipped, the rest go on
                jobs.append(
                    ParseJob(item["path"], blob_sha, language, b"", snapshot_files.UNREADABLE_BLOB)
                )
                continue
            reason = skip_reason(
                item["path"], len(content), content, max_bytes=settings.max_file_bytes
            )
            language = detect_language(item["path"], content) or language
            jobs.append(ParseJob(item["path"], blob_sha, language, content, reason))
        yield jobs


def _worth_analyzing(url: str, snapshot_id: int, files_parsed: int) -> bool:
    """Whether this parse changed the tables enough to ANALYZE them at once: at least
    ANALYZE_AFTER_FILES files, and a tenth of the snapshot's indexable ones (autovacuum's own
    threshold, `autovacuum_analyze_scale_factor`, is a tenth of a table: it catches up with
    smaller changes). ANALYZE reads a sample of every table it is given, however few rows
    changed: on the whole Linux kernel, seconds of a fifty-file commit."""
    if files_parsed < ANALYZE_AFTER_FILES:
        return False
    with connection(url) as conn:
        indexable = snapshot_files.indexable_count(conn, snapshot_id)
    return files_parsed * ANALYZE_FRACTION >= indexable


def parse_snapshot(
    url: str,
    settings: Settings,
    repository_name: str,
    commit_sha: str,
    progress: Callable[[str], None] = lambda _msg: None,
) -> dict:
    """Parse every blob of the snapshot not parsed before at this parser version."""
    started = time.monotonic()
    version = effective_parser_version(settings)
    with connection(url) as conn:
        repo = repositories.get(conn, repository_name)
        snap_id = snapshots.id_of(conn, repo.id, commit_sha)
        if snap_id is None:
            raise RuntimeError(f"{repository_name}@{commit_sha}: materialize source_files first")
        pending = _pending_blobs(conn, snap_id, version)
    checkout = repositories.git_dir(settings, repo.origin)
    totals: dict[str, float] = {
        "files_parsed": 0,
        "chunks": 0,
        "symbols": 0,
        "edges": 0,
        "syntax_errors": 0,
        "redactions": 0,
        "skipped_by_content": 0,
        "bytes": 0,
    }
    done = 0
    workers = settings.parse_workers if len(pending) >= MIN_FILES_FOR_WORKERS else 0
    with ParsePool(workers, settings.chunk_max_tokens) as pool:
        for batch in pool.prepared(_jobs(checkout, pending, settings)):
            with transaction(url) as tx:
                for job, prepared in batch:
                    if job.skip_reason:
                        snapshot_files.skip_blob(tx, snap_id, job.blob_sha, job.skip_reason)
                        totals["skipped_by_content"] += 1
                        continue
                    fv_id, parsed = store_file_version(
                        tx,
                        repo.id,
                        job.path,
                        job.blob_sha,
                        job.language,
                        job.content,
                        version,
                        settings,
                        prepared=prepared,
                    )
                    if parsed is not None:
                        totals["files_parsed"] += 1
                        totals["chunks"] += len(parsed.chunks)
                        totals["symbols"] += len(parsed.symbols)
                        totals["edges"] += len(parsed.edges)
                        totals["syntax_errors"] += int(parsed.has_syntax_errors)
                        totals["redactions"] += parsed.redactions
                        totals["bytes"] += len(job.content)
                    snapshot_files.set_file_version(tx, snap_id, job.blob_sha, fv_id)
            done += len(batch)
            elapsed = time.monotonic() - started
            rate = done / elapsed if elapsed else 0.0
            eta = (len(pending) - done) / rate if rate else 0.0
            progress(f"parsed {done}/{len(pending)} files ({rate:.0f} files/s, ETA {eta:.0f}s)")
    with transaction(url) as tx:
        totals["roles_read_from_chunks"] = fill_missing_roles(tx, snap_id)
    with connection(url, autocommit=True) as conn:
        totals["files_tokenized"] = lexical_index.index_snapshot_terms(conn, snap_id, progress)
    if _worth_analyzing(url, snap_id, int(totals["files_parsed"])):
        # fresh statistics, or the first queries plan as if the tables were empty
        analyze(
            url,
            (
                "file_versions",
                "snapshot_files",
                "code_symbols",
                "code_chunks",
                "code_edges",
                "lexical_chunk_terms",
            ),
        )
    totals["seconds"] = round(time.monotonic() - started, 3)
    totals["files_pending"] = len(pending)
    return totals
