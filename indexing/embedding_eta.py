"""How long the rest of an embedding step takes: work still to do over the recent rate.

Issue 48: the first estimator divided the bytes still to embed by the bytes embedded per
second since the start, and said "ETA 1452s" for a step that ended 437 s later. Two things
were wrong. Chunks go shortest first, and a model reads at most its window (256 tokens, about
1 KB of code): the long chunks at the end cost one window each, not their length, so the bytes
left overstated the work. And a rate since the start remembers the start: a loaded machine
(load 0.6 -> 6.7 in that run) or a model warming up pulls it for the whole step.

So a chunk's work is its bytes plus a fixed cost per chunk (the [CLS] and [SEP] tokens, the
path line a context-reading model reads first, its share of a call), at most one window, and
the rate is the work done over the last `WINDOW_SECONDS`. Measured with the default local model
(int8, window 256, 64 chunks per length, load 9-11): 10 ms a chunk of 30 bytes, 14 of 100, 38 of
300, 67 of 600, 95 of 1,000, 83-100 of 1,500-3,000 bytes: about 0.1 ms a byte from 70 bytes
on, flat past ~1 KB (benchmarks/results/embedding_eta.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

BYTES_PER_TOKEN = 4  # code through a BERT tokenizer: median 4.3 bytes a token (lean Python)
PER_CHUNK_BYTES = 64  # [CLS], [SEP] and a path line: about 16 tokens a chunk, whatever its length
WINDOW_SECONDS = 60.0


def chunk_work(length: int, max_tokens: int) -> int:
    """The work of embedding one chunk of `length` bytes with a model reading `max_tokens`."""
    return min(length + PER_CHUNK_BYTES, max_tokens * BYTES_PER_TOKEN)


class EmbeddingEta:
    """Remaining seconds of an embedding step, updated as batches finish."""

    def __init__(self, lengths: Sequence[int], max_tokens: int, started: float) -> None:
        self._work = [chunk_work(n, max_tokens) for n in lengths]
        self.total = sum(self._work)
        self.done_chunks = 0
        self.done_work = 0
        # (time, work done by then): the window's first point is the rate's start
        self._points: deque[tuple[float, int]] = deque([(started, 0)])

    def advance(self, chunks: int, now: float) -> None:
        """`chunks` more chunks (the next ones in order) are embedded at time `now`."""
        self.done_work += sum(self._work[self.done_chunks : self.done_chunks + chunks])
        self.done_chunks += chunks
        self._points.append((now, self.done_work))
        # keep one point at or before the window's start, so the window is never empty
        while len(self._points) > 2 and self._points[1][0] <= now - WINDOW_SECONDS:
            self._points.popleft()

    def rate(self) -> float:
        """Work per second over the recent window (0 before any batch)."""
        (t0, w0), (t1, w1) = self._points[0], self._points[-1]
        return (w1 - w0) / (t1 - t0) if t1 > t0 else 0.0

    def chunks_per_second(self, started: float) -> float:
        """Chunks per second since `started` (what the progress line reports)."""
        elapsed = self._points[-1][0] - started
        return self.done_chunks / elapsed if elapsed > 0 else 0.0

    def seconds_left(self) -> float:
        """The work still to do at the recent rate (0 once all is done)."""
        left = self.total - self.done_work
        if left <= 0:
            return 0.0
        rate = self.rate()
        return left / rate if rate > 0 else float("inf")
