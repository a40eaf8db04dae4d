"""What the code under test logged, apart from what other tests leave behind."""

from __future__ import annotations

import logging

import pytest

# codeatlas talks to PostgreSQL through psycopg; SQLAlchemy here is only Dagster's storage of
# earlier tests, whose SQLite connections are finalized by whichever thread collects them and
# log a traceback there ("SQLite objects created in a thread can only be used in that same
# thread"), in the middle of an unrelated test.
OTHER_TESTS_LEFTOVERS = ("sqlalchemy",)


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The records with a traceback, from every logger but those of other tests' leftovers."""
    return [
        r for r in caplog.records if r.exc_info and not r.name.startswith(OTHER_TESTS_LEFTOVERS)
    ]
