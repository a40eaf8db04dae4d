"""Errors a user can cause are printed as one line."""

from __future__ import annotations

from core.errors import first_line


def test_the_first_line_of_a_multi_line_message():
    assert first_line(RuntimeError("  connection refused\n\tIs the server running?\n")) == (
        "connection refused"
    )


def test_an_error_without_a_message_is_named_by_its_type():
    assert first_line(TimeoutError()) == "TimeoutError"
