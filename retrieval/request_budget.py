"""The bound on one search or locate request, the same on every path (the MCP tools, `codeatlas
search`, `codeatlas locate -`, the resident query process): its text at most MAX_REQUEST_CHARS,
its time at most the configured seconds (`CODEATLAS_REQUEST_SECONDS`), the memory the process
gains while it runs at most the configured megabytes (`CODEATLAS_REQUEST_MEMORY_MB`), and the
memory it took handed back to the system when it ends.

The text is reduced before the costly steps (`retrieval/issue_text.py` caps the frames, paths,
modules and identifiers read; `core/terms.py` the terms), so any text within the limit costs
about what a report does (lab/worst_inputs.py). The time budget is the guard behind
that: a request still running past it is stopped at its next step with `RequestOverBudgetError`
rather than left holding a worker thread and the interpreter's lock from everyone else. One
statement can outlast it between steps (a trigram or BM25 read of a huge index, a wait on a
lock), so every connection the request runs statements on (its own and those lent to its
concurrent lookups) runs them in a transaction whose `statement_timeout` is what is left of the
budget (`bounded_statements`): PostgreSQL cancels the statement, the transaction rolls back and
the connection goes back to its pool clean, and the cancel is the same `RequestOverBudgetError`.
The memory budget is the same kind of guard, read from the process's resident size between steps:
requests served at the same time share the process, so the growth checked is the process's, and
the default (1 GiB) sits far above what four pathological requests at once take (166 MiB).
"""

from __future__ import annotations

import contextvars
import ctypes
import ctypes.util
import os
import time
from collections.abc import Callable, Generator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from core.errors import UsageError

if TYPE_CHECKING:
    from retrieval.principals import DbConnection

# a bug report pasted whole: GitHub caps an issue body at 65,536 characters
MAX_REQUEST_CHARS = 65_536
# texts longer than this leave enough freed memory behind to be worth handing back at the end
_TRIM_AFTER_CHARS = 8_192

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class _Budget:
    """One request's bounds: its deadline and seconds, the process's resident bytes when it
    began and how many more it may take (None: no memory budget)."""

    __slots__ = ("deadline", "seconds", "rss_start", "memory_bytes")

    def __init__(self, seconds: float, memory_mb: float | None) -> None:
        self.deadline = time.monotonic() + seconds
        self.seconds = seconds
        self.memory_bytes = None if memory_mb is None else int(memory_mb * 1024 * 1024)
        self.rss_start = resident_bytes() if memory_mb is not None else None

    def over_time(self, where: str) -> RequestOverBudgetError:
        """The error of a request past its time budget, saying `where` it was stopped."""
        return RequestOverBudgetError(
            f"the request took more than its {self.seconds:g} s budget ({where};"
            " CODEATLAS_REQUEST_SECONDS sets it): narrow the query (name the repository, send a"
            " shorter text) or raise CODEATLAS_REQUEST_SECONDS"
        )


_deadline: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "request_deadline", default=None
)


class RequestTooLargeError(UsageError):
    """A query or report longer than MAX_REQUEST_CHARS."""


class RequestOverBudgetError(UsageError):
    """A request still running when its time budget ran out."""


def checked_request_text(text: str, what: str) -> str:
    """`text` unchanged, or `RequestTooLargeError` naming `what` when it is over the limit."""
    if len(text) > MAX_REQUEST_CHARS:
        raise RequestTooLargeError(
            f"the {what} is {len(text):,} characters; at most {MAX_REQUEST_CHARS:,} are read"
            " (GitHub's limit on an issue body): keep the title, the error and its traceback,"
            " and cut the logs"
        )
    return text


@contextmanager
def request_budget(
    seconds: float,
    text: str = "",
    memory_mb: float | None = None,
    conn: DbConnection | None = None,
) -> Generator[None]:
    """Run one request within `seconds` and, given `memory_mb`, within that much growth of the
    process's resident memory (`check_budget` stops it past either), its statements on `conn`
    bounded too (`bounded_statements`); afterwards, for a long `text`, hand the freed memory
    back to the system."""
    token = _deadline.set(_Budget(seconds, memory_mb))
    try:
        with ExitStack() as bounded:
            if conn is not None:
                bounded.enter_context(bounded_statements(conn))
            yield
    finally:
        _deadline.reset(token)
        if len(text) > _TRIM_AFTER_CHARS:
            release_memory()


def check_budget(step: str) -> None:
    """Raise `RequestOverBudgetError` when the current request is past its time budget (no
    budget set: nothing to check). Called between the steps of a search or a locate."""
    budget = _deadline.get()
    if budget is None:
        return
    if time.monotonic() >= budget.deadline:
        raise budget.over_time(f"stopped at {step}")
    if budget.memory_bytes is not None and budget.rss_start is not None:
        grown = resident_bytes() - budget.rss_start
        if grown > budget.memory_bytes:
            raise RequestOverBudgetError(
                f"the request took {grown / 2**20:,.0f} MB, more than its"
                f" {budget.memory_bytes / 2**20:,.0f} MB budget (stopped at {step};"
                " CODEATLAS_REQUEST_MEMORY_MB sets it): send a shorter text, or name the"
                " repository"
            )


# transaction-local: it ends with the request's transaction, never outlives it on a pooled
# connection
_STATEMENT_TIMEOUT = "SELECT set_config('statement_timeout', %s, true)"


@contextmanager
def bounded_statements(conn: DbConnection) -> Generator[None]:
    """Run the statements on `conn` in one transaction whose `statement_timeout` is what is left
    of the current request's time budget (no request: unbounded, no transaction). A statement
    PostgreSQL cancels past it rolls the transaction back (the connection stays usable) and is
    raised as `RequestOverBudgetError`. Called where a request's statements get a connection:
    `request_budget` for its own, `run_concurrently` for the lent ones."""
    from psycopg.errors import QueryCanceled  # (here: the CLI's thin client imports this module)

    budget = _deadline.get()
    if budget is None:
        yield
        return
    # (at least 1 ms: a timeout of 0 turns the bound off)
    left_ms = max(1, int((budget.deadline - time.monotonic()) * 1000))
    try:
        with conn.transaction():
            conn.execute(_STATEMENT_TIMEOUT, (f"{left_ms}ms",))
            yield
    except QueryCanceled as exc:
        raise budget.over_time("a database statement was cancelled at its end") from exc


def resident_bytes() -> int:
    """The process's resident memory now (Linux's /proc; 0 where there is none to read)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return 0


def release_memory() -> None:
    """Return the C heap's free pages to the system (glibc keeps them for reuse otherwise, and
    a server's RSS never goes down after one large request); elsewhere, nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


_TRIM: list[Callable[[int], int] | None] = []


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, looked up once (None elsewhere)."""
    if not _TRIM:
        name = ctypes.util.find_library("c")
        try:
            _TRIM.append(getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None)
        except OSError:
            _TRIM.append(None)
    return _TRIM[0]
