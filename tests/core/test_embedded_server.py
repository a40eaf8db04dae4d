"""The embedded server's lifetime, with real commands: it stays up for the idle period after its
last user, stops at once with `codeatlas server stop`, and is stopped by whoever is left last,
whatever restarted it (issue 28)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core import embedded_server


def wait_for(condition: Callable[[], object], seconds: float = 90) -> bool:
    """Whether `condition` became true within `seconds` (two shared cores: generous)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@pytest.fixture
def user_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A user's environment with no database configured: the embedded server in a state dir of
    its own; stopped at the end whatever the test did."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEATLAS_", "DAGSTER_"))}
    env["CODEATLAS_STATE_DIR"] = str(tmp_path / "state")
    env["CODEATLAS_EMBEDDING_PROVIDER"] = "fake"
    yield env
    pgdata = tmp_path / "state" / "postgres"
    embedded_server.stop(pgdata)


def codeatlas(env: dict[str, str], *args: str, idle: int = 0) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", *args],
        env={**env, "CODEATLAS_SERVER_IDLE_SECONDS": str(idle)},
        capture_output=True,
        text=True,
        timeout=180,
    )


def mcp_server(env: dict[str, str]) -> subprocess.Popen:
    """`codeatlas serve-mcp` over stdio, which runs until its stdin closes (its stderr in the
    state dir)."""
    log = Path(env["CODEATLAS_STATE_DIR"]).parent / f"mcp-{time.monotonic_ns()}.log"
    with log.open("w") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "codeatlas.cli", "serve-mcp"],
            env={**env, "CODEATLAS_SERVER_IDLE_SECONDS": "0"},
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def logs(env: dict[str, str]) -> str:
    return "\n".join(p.read_text() for p in Path(env["CODEATLAS_STATE_DIR"]).parent.glob("mcp-*"))


def test_the_server_outlives_a_command_for_the_idle_period_and_stops_on_request(user_env):
    pgdata = Path(user_env["CODEATLAS_STATE_DIR"]) / "postgres"
    first = codeatlas(user_env, "status", idle=600)
    assert first.returncode == 0, first.stderr
    pid = embedded_server.postmaster(pgdata)
    assert pid is not None, "the server stopped with the command"
    # the next command joins the same server instead of starting one
    second = codeatlas(user_env, "server", "status", idle=600)
    assert second.stdout.startswith(f"embedded PostgreSQL running (pid {pid}, 0 processes")
    assert "10 min" in second.stdout and "codeatlas server stop" in second.stdout
    again = codeatlas(user_env, "status", idle=600)
    assert again.returncode == 0 and embedded_server.postmaster(pgdata) == pid
    assert f"pid {pid}" in again.stdout

    stopped = codeatlas(user_env, "server", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert embedded_server.postmaster(pgdata) is None
    assert wait_for(lambda: not embedded_server.describe(pgdata)["keeper"]), "the keeper stayed"
    assert codeatlas(user_env, "server", "status").stdout.startswith("embedded PostgreSQL stopped")

    started = codeatlas(user_env, "server", "start", idle=600)  # started, and its cache filled
    assert started.returncode == 0, started.stderr
    assert re.search(r"; \d+ pages of the index warmed in", started.stderr), started.stderr
    assert embedded_server.postmaster(pgdata) not in (None, pid)


def test_the_server_stops_once_the_idle_period_has_passed(user_env):
    pgdata = Path(user_env["CODEATLAS_STATE_DIR"]) / "postgres"
    done = codeatlas(user_env, "status", idle=1)
    assert done.returncode == 0, done.stderr
    assert wait_for(lambda: embedded_server.postmaster(pgdata) is None), "never stopped"
    log = pgdata / embedded_server.KEEPER_LOG
    assert wait_for(lambda: "stopped the server after" in log.read_text()), log.read_text()


def test_stop_refuses_while_a_server_uses_it_unless_forced(user_env):
    pgdata = Path(user_env["CODEATLAS_STATE_DIR"]) / "postgres"
    server = mcp_server(user_env)
    try:
        assert wait_for(lambda: server.pid in embedded_server.users(pgdata)), logs(user_env)
        refused = codeatlas(user_env, "server", "stop")
        assert refused.returncode == 1
        assert f"pids {server.pid}" in refused.stderr and "--force" in refused.stderr
        assert embedded_server.postmaster(pgdata) is not None
        forced = codeatlas(user_env, "server", "stop", "--force")
        assert forced.returncode == 0 and embedded_server.postmaster(pgdata) is None
    finally:
        server.kill()
        server.wait()


def test_a_server_restarted_under_running_servers_stops_when_the_last_of_them_exits(user_env):
    """Issue 28: the server stopped under two MCP servers and restarted by another command used
    to outlive all of them (each exiting process checked the postmaster it had seen start)."""
    pgdata = Path(user_env["CODEATLAS_STATE_DIR"]) / "postgres"
    servers = [mcp_server(user_env), mcp_server(user_env)]
    try:
        joined = wait_for(lambda: {s.pid for s in servers} <= set(embedded_server.users(pgdata)))
        assert joined, logs(user_env)
        first = embedded_server.postmaster(pgdata)
        assert first is not None
        os.kill(first, signal.SIGINT)  # PostgreSQL's fast shutdown, under the servers
        assert wait_for(lambda: embedded_server.postmaster(pgdata) is None)

        restarted = codeatlas(user_env, "status")  # starts it again, then exits
        assert restarted.returncode == 0, restarted.stderr
        second = embedded_server.postmaster(pgdata)
        assert second is not None and second != first

        for server in servers:
            assert server.stdin is not None
            server.stdin.close()  # a stdio server exits when its client goes
            server.wait(timeout=60)
        assert wait_for(lambda: embedded_server.postmaster(pgdata) is None), (
            "the restarted server outlived every process that used it"
        )
    finally:
        for server in servers:
            if server.poll() is None:
                server.kill()
                server.wait()


def test_a_query_answered_by_the_resident_process_counts_as_a_use(tmp_path: Path):
    """The resident query process is no listed user: the keeper's idle clock restarts at each
    query it answers instead (else the server would stop under a user's searches)."""
    pgdata = tmp_path / "postgres"
    pgdata.mkdir()
    long_ago = time.monotonic() - 3600
    assert embedded_server.seconds_idle(pgdata, long_ago) >= 3600
    embedded_server.note_query(pgdata)
    assert embedded_server.seconds_idle(pgdata, long_ago) < 60
