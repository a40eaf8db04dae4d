"""The connection pool of a long-running server (the MCP server, the webhook receiver): it says
at once when PostgreSQL is down instead of waiting out the checkout, and is itself again within
about a second of the database's return, without a restart.

How: a checkout that fails is followed by a direct connection attempt (a probe, bounded by a
short connect timeout). While the last probe failed, checkouts fail at once with
`DatabaseDownError` (a server answers 503 with Retry-After), probing again at most every
`PROBE_INTERVAL_SECONDS`. When a probe succeeds the pool's idle connections, all dead after a
restart, are checked and replaced before any is handed out, and a connection found dead at
checkout is replaced at once (psycopg_pool's own check would sleep a second per dead connection).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from core.database import open_pool, unreachable_reason
from core.errors import DatabaseUnavailableError, first_line
from core.throttled_log import ThrottledLog

log = logging.getLogger("codeatlas.database")
throttled = ThrottledLog(log)

CHECKOUT_SECONDS = 10.0  # a busy pool: how long a request waits for a free connection
FIRST_WAIT_SECONDS = 1.0  # then a probe decides: busy (wait on) or down (answer at once)
PROBE_CONNECT_SECONDS = 2  # libpq's connect_timeout of a probe (whole seconds)
PROBE_INTERVAL_SECONDS = 0.5  # while down, one probe per this many seconds decides for all
RETRY_AFTER_SECONDS = 5  # what a server tells clients to wait while the database is down


class DatabaseDownError(DatabaseUnavailableError):
    """PostgreSQL cannot be reached right now; a retry after `retry_after` seconds may work."""

    retry_after = RETRY_AFTER_SECONDS


class DatabaseBusyError(DatabaseUnavailableError):
    """PostgreSQL answers, but every pooled connection stayed in use for the whole wait."""

    retry_after = 1


DOWN_MESSAGE = (
    f"the index database is unavailable right now; retry in {RETRY_AFTER_SECONDS} s"
    " (nothing was changed)"
)
BUSY_MESSAGE = "the index database is busy right now; retry in a second (nothing was changed)"


class ServingPool:
    """`size` connections to `url` opened in the background, for a server that must stay up
    while the database comes and goes; `read_only` sessions on a streaming replica."""

    def __init__(
        self,
        url: str,
        size: int,
        name: str,
        checkout_seconds: float = CHECKOUT_SECONDS,
        *,
        read_only: bool = False,
    ) -> None:
        self.url, self.name = url, name
        self.size, self.checkout_seconds = size, checkout_seconds
        self._pool: ConnectionPool[Any] = open_pool(
            url, max_size=size, name=name, read_only=read_only
        )
        # psycopg_pool warns on every failed reconnection attempt of every connection (several a
        # second while the database is down); this pool says it once, and once when it is back
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        self._lock = threading.Lock()
        self._down = False
        self._probed_at = float("-inf")

    @property
    def down(self) -> bool:
        """Whether the last probe found the database unreachable."""
        return self._down

    @contextmanager
    def connection(self) -> Generator[Any, None, None]:
        """A pooled connection whose work commits on success (rolls back on error); raises
        DatabaseDownError or DatabaseBusyError (typed, one line) instead of waiting on a dead
        server or leaking a psycopg error."""
        if self._down and not self.probe():
            raise DatabaseDownError(DOWN_MESSAGE)
        conn = self._checkout()
        try:
            with conn:  # a pooled connection is not closed here, only committed/rolled back
                yield conn
        except psycopg.OperationalError as exc:
            self._lost(exc)
            self.probe(force=True)  # down: the next requests are answered at once
            raise DatabaseDownError(DOWN_MESSAGE) from exc
        finally:
            self._pool.putconn(conn)  # a broken one is discarded and replaced by the pool

    def _checkout(self) -> Any:
        for attempt in range(2):
            conn = self._getconn()
            try:
                ConnectionPool.check_connection(conn)
            except psycopg.Error as exc:
                self._pool.putconn(conn)  # discarded: it is broken
                self._lost(exc)
                if attempt or not self.probe(force=True):
                    raise DatabaseDownError(DOWN_MESSAGE) from exc
                # the server was restarted: its idle neighbours died too; replace them all now
                self._pool.check()
                continue
            return conn
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _getconn(self) -> Any:
        """A pooled connection; while none comes, a probe tells a busy pool (wait on, up to
        `checkout_seconds`) from a dead server (give up at once)."""
        first = min(self.checkout_seconds, FIRST_WAIT_SECONDS)
        try:
            return self._pool.getconn(timeout=first)
        except PoolTimeout as exc:
            if not self.probe(force=True):
                raise DatabaseDownError(DOWN_MESSAGE) from exc
        try:
            return self._pool.getconn(timeout=max(self.checkout_seconds - first, 0.1))
        except PoolTimeout as exc:
            if not self.probe(force=True):
                raise DatabaseDownError(DOWN_MESSAGE) from exc
            throttled.warning(f"{self.name}:busy", "%s: every connection busy", self.name)
            raise DatabaseBusyError(BUSY_MESSAGE) from exc

    def _lost(self, exc: BaseException) -> None:
        throttled.warning(
            f"{self.name}:lost", "%s: connection to the database lost: %s", self.name,
            first_line(exc)[:200],
        )  # fmt: skip

    def probe(self, *, force: bool = False) -> bool:
        """Whether the database accepts a new connection now (a direct attempt, at most every
        PROBE_INTERVAL_SECONDS unless `force`; requests that ask while one runs share its
        answer); on its return, dead pooled connections are replaced before the pool is used."""
        asked = time.monotonic()
        with self._lock:
            if self._probed_at >= asked:  # another request probed while this one waited
                return not self._down
            if not force and asked - self._probed_at < PROBE_INTERVAL_SECONDS:
                return not self._down
            reason = unreachable_reason(self.url, PROBE_CONNECT_SECONDS)
            self._probed_at = time.monotonic()
            if reason is not None:
                if not self._down:
                    log.warning("%s: the database is unreachable: %s", self.name, reason)
                self._down = True
                return False
            if self._down:
                self._pool.check()  # every idle connection died with the old server
                log.warning("%s: the database is reachable again", self.name)
            self._down = False
            return True

    def health(self) -> dict[str, str]:
        """What `/healthz` says: the database `ok`, or `unreachable` (status `unavailable`)."""
        if self.probe():
            return {"status": "ok", "database": "ok"}
        return {"status": "unavailable", "database": "unreachable"}

    def close(self) -> None:
        """Close every connection (at server shutdown)."""
        self._pool.close()
