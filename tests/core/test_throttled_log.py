"""Lines strangers can trigger are written once per interval per kind, with a count of the rest."""

from __future__ import annotations

import logging

from core.throttled_log import ThrottledLog


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_flood_is_one_line_per_interval_and_the_next_line_counts_what_was_left_out(caplog):
    clock = Clock()
    throttled = ThrottledLog(logging.getLogger("test.throttled"), interval=10, clock=clock)
    caplog.set_level(logging.WARNING)
    written = [throttled.warning("disconnect", "client %s left", "10.0.0.1") for _ in range(300)]
    other = throttled.warning("slow-body", "client %s was slow", "10.0.0.2")
    clock.now += 10
    again = throttled.warning("disconnect", "client %s left", "10.0.0.3")
    assert written.count(True) == 1 and other and again
    assert [r.getMessage() for r in caplog.records if r.name == "test.throttled"] == [
        "client 10.0.0.1 left",
        "client 10.0.0.2 was slow",
        "client 10.0.0.3 left (299 more like it in the last 10 s)",
    ]
