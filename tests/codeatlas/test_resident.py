"""The resident query process (codeatlas/resident.py), with real commands on a real embedded
server: a second search is answered by it, byte for byte as the command would have answered
itself, and whatever goes wrong with it (a stale socket, a death mid-request, another
configuration) the command answers in-process; `codeatlas server stop` takes it down."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from core import embedded_server, query_socket
from tests.conftest import GitRepo
from tests.core.test_embedded_server import wait_for
from tests.retrieval.indexing import fake_embedder, index_repository

# runs the CLI, then says on stderr which heavy modules the command process imported
PROBE = (
    "import sys\nfrom codeatlas.cli import main\ncode = main(sys.argv[1:])\n"
    "heavy = [m for m in ('numpy', 'psycopg', 'ctranslate2') if m in sys.modules]\n"
    "print('heavy: ' + ','.join(heavy), file=sys.stderr)\nsys.exit(code)"
)
SEARCH = ("search", "refund approval", "--repo", "shop", "--json")


class User:
    """A user's environment on an embedded server of its own (kept up 10 minutes), with the
    repository `shop` indexed (fake embedder)."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.state = tmp_path / "state"
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("CODEATLAS_", "DAGSTER_"))
        }
        self.env.update(
            CODEATLAS_STATE_DIR=str(self.state),
            CODEATLAS_EMBEDDING_PROVIDER="fake",
            CODEATLAS_SERVER_IDLE_SECONDS="600",
        )
        for name in [k for k in os.environ if k.startswith("CODEATLAS_")]:
            monkeypatch.delenv(name)
        for name, value in self.env.items():
            if name.startswith("CODEATLAS_"):
                monkeypatch.setenv(name, value)
        self.repo = GitRepo(tmp_path / "shop")
        self.repo.write(
            "shop/refunds.py",
            "def approve_refund(order):\n    '''Approve a refund of an order.'''\n"
            "    return check_refund(order)\n\n\n"
            "def check_refund(order):\n    return order.total > 0\n",
        )
        self.repo.commit()
        self.index()

    def index(self) -> None:
        """Index HEAD of the repository into the embedded server (this process then leaves)."""
        from core.config import load_settings
        from core.database import ensure_index_database

        url = ensure_index_database(load_settings())
        try:
            index_repository(url, self.repo.path, "shop", embedder=fake_embedder())
        finally:
            embedded_server.release(self.state / "postgres")

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        """The CLI as a new process, as a user types it; `heavy: ...` ends its stderr."""
        return subprocess.run(
            [sys.executable, "-c", PROBE, *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=300,
        )

    def in_process(self, *args: str) -> subprocess.CompletedProcess:
        """The CLI answering itself, with the resident process turned off."""
        done = self.run(*args, CODEATLAS_QUERY_PROCESS="off")
        assert done.returncode == 0, done.stderr
        assert "psycopg" in heavy(done)
        return done

    def resident_ready(self) -> bool:
        """Whether a resident process listens (it binds its socket once warmed up)."""
        return (
            query_socket.resident_pid(self.state) is not None
            and query_socket.socket_path(self.state).exists()
        )

    def stop(self) -> None:
        query_socket.stop(self.state)
        embedded_server.stop(self.state / "postgres")


def heavy(done: subprocess.CompletedProcess) -> list[str]:
    """The heavy modules a probed command imported."""
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("heavy:"), done.stderr
    return [m for m in last.removeprefix("heavy:").strip().split(",") if m]


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[User]:
    you = User(tmp_path, monkeypatch)
    yield you
    you.stop()


def test_the_second_search_is_answered_by_the_resident_process_as_the_command_would(user):
    first = user.run(*SEARCH)
    assert first.returncode == 0, first.stderr
    assert "approve_refund" in first.stdout
    assert wait_for(user.resident_ready), (user.state / "run" / "query.log").read_text()

    second = user.run(*SEARCH)
    assert second.returncode == 0, second.stderr
    assert heavy(second) == [], "the command searched in-process"
    assert second.stdout == first.stdout == user.in_process(*SEARCH).stdout
    for args in (
        ("search", "refund", "--repo", "shop", "--mode", "lexical"),
        ("symbols", "check_refund", "--repo", "shop", "--json"),
        ("callers", "check_refund", "--repo", "shop", "--json"),
    ):
        served = user.run(*args)
        assert heavy(served) == [] and served.returncode == 0, served.stderr
        assert served.stdout == user.in_process(*args).stdout
    # a user's error is the same line, and the same exit code
    unknown = user.run("search", "refund", "--repo", "nope")
    assert heavy(unknown) == [] and unknown.returncode == 1
    assert unknown.stderr.startswith("codeatlas: error: no repository named 'nope'")

    # a new commit indexed meanwhile is in the next answer: each request reads the index
    user.repo.write("shop/ledger.py", "def settle_ledger(day):\n    return approve_refund(day)\n")
    user.repo.commit()
    user.index()
    callers = ("callers", "approve_refund", "--repo", "shop", "--json")
    after = user.run(*callers)
    assert heavy(after) == [] and "settle_ledger" in after.stdout
    assert after.stdout == user.in_process(*callers).stdout


def test_a_stale_socket_is_answered_in_process_and_replaced(user):
    path = query_socket.socket_path(user.state)
    query_socket.run_dir(user.state)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(os.fspath(path))  # a socket file nobody listens on: a killed process'
    assert path.exists() and query_socket.resident_pid(user.state) is None

    first = user.run(*SEARCH)
    assert first.returncode == 0, first.stderr
    assert first.stdout == user.in_process(*SEARCH).stdout
    assert wait_for(user.resident_ready)
    second = user.run(*SEARCH)
    assert heavy(second) == [] and second.stdout == first.stdout


def test_a_process_that_dies_mid_request_leaves_the_answer_to_the_command(user):
    path = query_socket.socket_path(user.state)
    query_socket.run_dir(user.state)
    asked = []

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dying:
        dying.bind(os.fspath(path))
        dying.listen(1)

        def die_on_the_first_request() -> None:
            client, _ = dying.accept()
            with client:
                asked.append(client.makefile("rb").readline())
                client.sendall(b'{"status": "ok", "exit": 0, "std')  # and no more

        thread = threading.Thread(target=die_on_the_first_request)
        thread.start()
        done = user.run(*SEARCH)
        thread.join(timeout=60)
    assert asked and b'"command": "search"' in asked[0], "the command never asked"
    assert done.returncode == 0, done.stderr
    assert done.stdout == user.in_process(*SEARCH).stdout


def test_a_process_started_for_another_configuration_does_not_answer(user):
    assert user.run(*SEARCH).returncode == 0
    assert wait_for(user.resident_ready)
    pid = query_socket.resident_pid(user.state)
    assert heavy(user.run(*SEARCH)) == []

    other = user.run(*SEARCH, CODEATLAS_EMBEDDING_MODEL="another-model")
    assert other.returncode == 0, other.stderr
    assert "psycopg" in heavy(other), "answered by a process of another configuration"
    assert other.stdout == user.in_process(*SEARCH).stdout
    # it leaves for the newer configuration, whose next command starts its own
    assert wait_for(lambda: query_socket.resident_pid(user.state) != pid)


def test_server_stop_takes_the_resident_process_down(user):
    assert user.run(*SEARCH).returncode == 0
    assert wait_for(user.resident_ready)
    pid = query_socket.resident_pid(user.state)
    assert pid is not None
    status = user.run("server", "status")
    assert f"resident query process (pid {pid})" in status.stdout

    stopped = user.run("server", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "stopped the resident query process" in stopped.stderr
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert not query_socket.socket_path(user.state).exists()
    assert embedded_server.postmaster(user.state / "postgres") is None


@pytest.mark.parametrize("edited", ["core/config.py", "sql/repositories/get.sql"])
def test_the_resident_process_notices_an_edit_in_core_and_in_sql(tmp_path, monkeypatch, edited):
    # a checkout of its own, so that the edit touches no file of this one
    from codeatlas import resident
    from core.layers import package_folders

    for folder in package_folders():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    monkeypatch.setattr(resident, "__file__", str(tmp_path / "codeatlas" / "resident.py"))
    loaded = max(p.stat().st_mtime for p in tmp_path.rglob("*.py")) + 10
    monkeypatch.setattr(resident, "LOADED_AT", loaded)
    assert not resident.code_changed()

    path = tmp_path / edited
    path.parent.mkdir(exist_ok=True)
    path.write_text("-- edited\n")
    os.utime(path, (loaded + 1, loaded + 1))  # written after the process loaded its code
    assert resident.code_changed()
