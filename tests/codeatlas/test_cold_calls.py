"""After `codeatlas server stop`, the first query command is the only cold one: it starts the
server and the resident query process and is answered by it, so the next command is warm at
once (issue 48: the first two commands were each cold, 2-3.4 s)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core import embedded_server, query_socket
from tests.codeatlas.test_resident import SEARCH, User, heavy


@pytest.fixture
def stopped_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[User]:
    """A user with `shop` indexed, after `codeatlas server stop`."""
    you = User(tmp_path, monkeypatch)
    stopped = you.run("server", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert embedded_server.postmaster(you.state / "postgres") is None
    yield you
    you.stop()


def test_the_command_after_a_stop_is_answered_by_the_process_it_started(stopped_user):
    user = stopped_user
    first = user.run(*SEARCH)
    assert first.returncode == 0, first.stderr
    assert "approve_refund" in first.stdout
    # it started the server (hence psycopg here) and then asked the resident process, which
    # listens by the time the command returns: no other command warms anything up again
    assert "psycopg" in heavy(first)
    assert user.resident_ready()
    assert "ctranslate2" not in heavy(first) and "numpy" not in heavy(first)

    for args in (SEARCH, ("symbols", "check_refund", "--repo", "shop")):
        warm = user.run(*args)
        assert warm.returncode == 0, warm.stderr
        assert heavy(warm) == [], "answered in-process: a second cold command"
    assert first.stdout == user.in_process(*SEARCH).stdout


def test_a_resident_process_that_cannot_start_leaves_the_answer_to_the_command(stopped_user):
    user = stopped_user
    # a process that failed a moment ago: no new one for a minute, and no wait for one
    (query_socket.run_dir(user.state) / "query.failed").touch()
    first = user.run(*SEARCH)
    assert first.returncode == 0, first.stderr
    assert "numpy" in heavy(first), "not answered in-process"
    assert query_socket.resident_pid(user.state) is None
    assert first.stdout == user.in_process(*SEARCH).stdout
