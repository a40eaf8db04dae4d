"""Log lines that strangers or outages can trigger, written at most once per interval per kind.

A client that disconnects mid-request, or a database that is down for a minute, would otherwise
write a line (or a traceback) per request: whoever can open a connection could fill the log.
Each kind of line is written at once, then at most every `interval` seconds with the number of
similar events left out in between.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

INTERVAL_SECONDS = 10.0


class ThrottledLog:
    """A logger whose lines are rate-limited per key (the kind of event)."""

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger, self.interval, self.clock = logger, interval, clock
        self._last: dict[str, float] = {}
        self._skipped: dict[str, int] = {}
        self._lock = threading.Lock()

    def warning(self, key: str, message: str, *args: object) -> bool:
        """Log `message % args` at WARNING unless a `key` line went out within the interval;
        True when it was written."""
        now = self.clock()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self.interval:
                self._skipped[key] = self._skipped.get(key, 0) + 1
                return False
            self._last[key] = now
            skipped = self._skipped.pop(key, 0)
        if skipped:
            message += f" ({skipped} more like it in the last {self.interval:g} s)"
        self.logger.warning(message, *args)
        return True
