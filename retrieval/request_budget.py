"""The bound on one search or locate request, the same on every path (the MCP tools, `codeatlas
search`, `codeatlas locate -`, the resident query process): its text at most MAX_REQUEST_CHARS,
its time at most the configured seconds (`CODEATLAS_REQUEST_SECONDS`), and the memory it took
handed back to the system when it ends.

The text is reduced before the costly steps (`retrieval/issue_text.py` caps the frames, paths,
modules and identifiers read; `core/terms.py` the terms), so any text within the limit costs
about what a report does (lab/worst_inputs.py). The time budget is the guard behind
that: a request still running past it is stopped at its next step with `RequestOverBudgetError`
rather than left holding a worker thread and the interpreter's lock from everyone else.
"""

from __future__ import annotations

import contextvars
import ctypes
import ctypes.util
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager

from core.errors import UsageError

# a bug report pasted whole: GitHub caps an issue body at 65,536 characters
MAX_REQUEST_CHARS = 65_536
# texts longer than this leave enough freed memory behind to be worth handing back at the end
_TRIM_AFTER_CHARS = 8_192

_deadline: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
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
def request_budget(seconds: float, text: str = "") -> Generator[None]:
    """Run one request within `seconds` (`check_budget` stops it past them); afterwards, for a
    long `text`, hand the freed memory back to the system."""
    token = _deadline.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)
        if len(text) > _TRIM_AFTER_CHARS:
            release_memory()


def check_budget(step: str) -> None:
    """Raise `RequestOverBudgetError` when the current request is past its time budget (no
    budget set: nothing to check). Called between the steps of a search or a locate."""
    budget = _deadline.get()
    if budget is not None and time.monotonic() >= budget[0]:
        raise RequestOverBudgetError(
            f"the request took more than its {budget[1]:g} s budget (stopped at {step}; "
            "CODEATLAS_REQUEST_SECONDS sets it): send a shorter text, or name the repository"
        )


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
