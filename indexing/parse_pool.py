"""Parsing and tokenizing files in worker processes, one batch ahead of the writes.

Parsing (tree-sitter plus chunking) and tokenizing are pure Python work that holds one core;
the writes wait on PostgreSQL. With `CODEATLAS_PARSE_WORKERS` processes (default: the machine's
cores) the next batch is parsed while the current one is written. Results are the same as in
one process: a worker runs exactly `prepare`, and the results come back in the files' order.
Memory stays bounded: at most two batches of files are in flight.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace

from core.terms import LexicalDocument
from indexing.parsing.model import ParsedFile

# fewer files than this are parsed in the process itself: starting workers (imports of the
# parser and its grammars) costs more than a short run saves
MIN_FILES_FOR_WORKERS = 100


@dataclass(frozen=True)
class PreparedFile:
    """One file's parse and the BM25 documents of its chunks, ready to be stored."""

    parsed: ParsedFile
    documents: list[LexicalDocument]


def prepare(path: str, content: bytes, max_tokens: int) -> PreparedFile:
    """Parse one file and tokenize its chunks (what a worker runs)."""
    from indexing.lexical_index import chunk_documents
    from indexing.parsing.parser import parse_file

    parsed = parse_file(path, content, max_tokens=max_tokens)
    return PreparedFile(parsed, chunk_documents(parsed, path))


def _exit_with_parent(parent: int) -> None:
    """A worker's initializer: exit once the index run that started it is gone. A run killed
    with SIGKILL never shuts its pool down, and its idle workers would wait for work forever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


@dataclass(frozen=True)
class ParseJob:
    """A blob of the snapshot: its path, bytes and language, or why it is skipped unparsed."""

    path: str
    blob_sha: str
    language: str
    content: bytes
    skip_reason: str | None = None


class ParsePool:
    """Prepares batches of files in `workers` processes (none: in this process)."""

    def __init__(self, workers: int, max_tokens: int) -> None:
        self.workers = workers
        self.max_tokens = max_tokens
        self._executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> ParsePool:
        if self.workers > 1:
            # spawn, not fork: the parent holds open database connections and threads
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_exit_with_parent,
                initargs=(os.getpid(),),
            )
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)

    def _submit(self, jobs: Sequence[ParseJob]) -> list[Future[PreparedFile] | None] | None:
        if self._executor is None:
            return None
        return [
            None
            if j.skip_reason
            else self._executor.submit(prepare, j.path, j.content, self.max_tokens)
            for j in jobs
        ]

    def prepared(
        self, batches: Iterator[Sequence[ParseJob]]
    ) -> Iterator[list[tuple[ParseJob, PreparedFile | None]]]:
        """Each batch's jobs with their prepared files (None for a skipped one), the next batch
        already submitted to the workers while the caller stores this one."""
        ahead: tuple[Sequence[ParseJob], list[Future[PreparedFile] | None] | None] | None = None
        for batch in batches:
            submitted = (batch, self._submit(batch))
            if ahead is not None:
                yield self._collect(*ahead)
            ahead = submitted
        if ahead is not None:
            yield self._collect(*ahead)

    def _collect(
        self,
        batch: Sequence[ParseJob],
        futures: list[Future[PreparedFile] | None] | None,
    ) -> list[tuple[ParseJob, PreparedFile | None]]:
        if futures is None:
            return [
                (j, None)
                if j.skip_reason
                else _outcome(j, lambda j=j: prepare(j.path, j.content, self.max_tokens))
                for j in batch
            ]
        return [
            (j, None) if f is None else _outcome(j, f.result)
            for j, f in zip(batch, futures, strict=True)
        ]


def _outcome(
    job: ParseJob, parse: Callable[[], PreparedFile]
) -> tuple[ParseJob, PreparedFile | None]:
    """The job's prepared file, or the job skipped with the reason its parse failed: one file
    that breaks the parser must not fail the index run of every other file. A pool whose worker
    died is not one file's fault, and fails the run."""
    try:
        return job, parse()
    except BrokenProcessPool:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure is this file's, reported with it
        return replace(job, skip_reason=f"parse failed: {type(exc).__name__}: {exc}"[:200]), None
