"""Fault injection on the real command: `codeatlas index` killed with SIGKILL at each stage, two
runs at once, a run waiting on a slot. After each fault the next run finishes within a bounded
time and the tables end equal to those of a clean run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from core.database import dagster_storage_url, with_database
from tests.assets.pipeline_helpers import dump
from tests.conftest import TEMPLATE, GitRepo

CODEATLAS = str(Path(sys.executable).parent / "codeatlas")
# a healthy index of the test repository takes a few seconds; this bounds a loaded machine
NEXT_RUN_SECONDS = 180


class StallingEmbeddings:
    """An OpenAI-compatible endpoint that takes requests and never answers them: an index run
    using it sits in its embedding step, holding the embedding slot, until it is killed."""

    def __init__(self) -> None:
        self.received = threading.Event()
        self.release = threading.Event()
        stall = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                stall.received.set()
                stall.release.wait(120)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> StallingEmbeddings:
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def state(database_url: str, pg_server: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a user's `codeatlas` commands: this test's database, a Dagster
    database of its own, a state directory, the fake embedder."""
    storage = f"{urlsplit(database_url).path.strip('/')}_dagster"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{storage}"')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEATLAS_", "DAGSTER_"))}
    return {
        **env,
        "CODEATLAS_DATABASE_URL": database_url,
        "CODEATLAS_STATE_DIR": str(tmp_path / "state"),
        "CODEATLAS_DAGSTER_STORAGE_URL": with_database(dagster_storage_url(database_url), storage),
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
    }


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A repository of 150 files: parsed in three batches of 50, each its own transaction."""
    repo = GitRepo(tmp_path / "shop")
    for i in range(150):
        repo.write(
            f"shop/module_{i}.py",
            "".join(
                f"def refund_{i}_{j}(order, amount):\n"
                f'    """Refund part {j} of an order of module {i}."""\n'
                f"    return order.total - amount * {j}\n\n"
                for j in range(6)
            ),
        )
    repo.commit("shop")
    return repo


def index(
    env: dict[str, str], repo: GitRepo, name: str = "shop", ref: str | None = None
) -> subprocess.Popen:
    """Start `codeatlas index` as a user would, in its own process group."""
    return subprocess.Popen(
        [CODEATLAS, "index", str(repo.path), "--name", name, *(["--ref", ref] if ref else [])],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen, seconds: float = NEXT_RUN_SECONDS) -> tuple[int, str]:
    """Wait for a run; kill it and fail if it takes longer than `seconds`."""
    try:
        out, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"the run did not finish within {seconds:.0f}s:\n{out[-3000:]}")
    return proc.returncode, out


def kill_when(proc: subprocess.Popen, marker: str, seconds: float = 120) -> str:
    """SIGKILL the run as soon as its output shows `marker`; the output so far."""
    seen: list[str] = []
    deadline = time.monotonic() + seconds
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line)
        if marker in line or time.monotonic() > deadline:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    text = "".join(seen)
    assert marker in text, f"never saw {marker!r}:\n{text[-3000:]}"
    return text


def stalled(env: dict[str, str], stall: StallingEmbeddings) -> dict[str, str]:
    """The environment with embeddings from an endpoint that never answers."""
    return {
        **env,
        "CODEATLAS_EMBEDDING_PROVIDER": "openai",
        "CODEATLAS_OPENAI_BASE_URL": stall.base_url,
        "CODEATLAS_EMBEDDING_MODEL": "stall-embedder",
        "CODEATLAS_EMBEDDING_DIMENSIONS": "8",
    }


def content(url: str) -> dict[str, list]:
    """The index tables without ids (a re-run after a fault may leave gaps in sequences) and
    without run statistics (how much each run did), plus which commit is current."""
    tables = {
        table: sorted(
            repr(
                {k: v for k, v in row.items() if k not in ("id", "stats") and not k.endswith("_id")}
            )
            for row in rows
        )
        for table, rows in dump(url).items()
    }
    with psycopg.connect(url) as conn:
        tables["current"] = conn.execute(
            "SELECT r.name, s.commit_sha FROM repositories r"
            " JOIN snapshots s ON s.id = r.current_snapshot_id ORDER BY r.name"
        ).fetchall()
    return tables


def clean_run(
    pg_server: str, env: dict[str, str], repo: GitRepo, refs: tuple[str | None, ...] = (None,)
) -> dict[str, list]:
    """The tables after undisturbed runs (one per ref, in turn) into a database of its own."""
    name = f"clean_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE}"')
        conn.execute(f'CREATE DATABASE "{name}_dagster"')
    url = with_database(pg_server, name)
    clean = {
        **env,
        "CODEATLAS_DATABASE_URL": url,
        "CODEATLAS_DAGSTER_STORAGE_URL": with_database(dagster_storage_url(url), f"{name}_dagster"),
    }
    for ref in refs:
        code, out = finish(index(clean, repo, ref=ref))
        assert code == 0, out
    return content(url)


def test_a_run_killed_while_embedding_releases_its_slot_to_the_next_run(
    state, repo, database_url, pg_server
):
    with StallingEmbeddings() as stall:
        victim = index(stalled(state, stall), repo)
        if not stall.received.wait(120):
            os.killpg(victim.pid, signal.SIGKILL)
            pytest.fail("the run never reached its embedding step:\n" + victim.communicate()[0])
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()

    code, out = finish(index(state, repo))
    assert code == 0, out
    assert "had no live process: marked failed, its slots freed" in out
    assert content(database_url) == clean_run(pg_server, state, repo)


@pytest.mark.parametrize(
    "marker",
    ["parsed 50/150", "parsed 150/150", "published shop@"],
    ids=["while-parsing", "before-publishing", "after-publishing"],
)
def test_a_run_killed_at_any_stage_is_finished_by_the_next_run(
    state, repo, database_url, pg_server, marker
):
    kill_when(index(state, repo), marker)
    code, out = finish(index(state, repo))
    assert code == 0, out
    assert content(database_url) == clean_run(pg_server, state, repo)


def test_a_run_waiting_for_a_live_slot_says_for_whom_gives_up_and_stops_on_ctrl_c(state, repo):
    with StallingEmbeddings() as stall:
        holder = index(stalled(state, stall), repo)
        try:
            assert stall.received.wait(120), "the first run never reached its embedding step"
            # a bounded wait: one line naming the run it waited for, exit 1
            code, out = finish(index({**state, "CODEATLAS_RUN_WAIT_SECONDS": "3"}, repo))
            assert code == 1, out
            [error] = [line for line in out.splitlines() if line.startswith("codeatlas: error")]
            assert re.search(r"waited \d+s for the 'embedding_provider' concurrency slot", error)
            assert "held by run" in error
            assert f"pid {holder.pid}" in error
            assert "Traceback" not in out

            # Ctrl-C while waiting stops the command at once
            waiter = index(state, repo)
            assert waiter.stdout is not None
            for line in waiter.stdout:
                if "waiting for the 'embedding_provider' concurrency slot" in line:
                    break
            os.killpg(waiter.pid, signal.SIGINT)
            code, out = finish(waiter, 30)
            assert code == 130, out
            assert "codeatlas: interrupted" in out
        finally:
            os.killpg(holder.pid, signal.SIGKILL)
            holder.wait()
    code, out = finish(index(state, repo))
    assert code == 0, out


def test_two_runs_at_once_of_the_same_and_of_different_commits(
    state, repo, database_url, pg_server
):
    first = repo.git("rev-parse", "HEAD")
    repo.write("shop/extra.py", "def restock(item):\n    return item\n")
    second = repo.commit("extra")
    runs = [index(state, repo, ref=ref) for ref in (first, first, second)]
    for run in runs:
        code, out = finish(run)
        assert code == 0, out
    together = content(database_url)
    assert together["current"] == [("shop", second)]
    assert together == clean_run(pg_server, state, repo, refs=(first, second))


def embedded_state(state: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """A user's environment with no database configured: the embedded server in the state dir."""
    env = {k: v for k, v in state.items() if k not in ("CODEATLAS_DATABASE_URL",)}
    env.pop("CODEATLAS_DAGSTER_STORAGE_URL")
    env["CODEATLAS_STATE_DIR"] = str(tmp_path / "embedded-state")
    env["CODEATLAS_SERVER_IDLE_SECONDS"] = "0"  # stopped as soon as its last command exits
    return env


def postmaster(state_dir: Path) -> int | None:
    """The pid of the embedded server of a state directory, if it runs."""
    pid_file = state_dir / "postgres" / "postmaster.pid"
    if not pid_file.exists():
        return None
    pid = int(pid_file.read_text().split()[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


def wait_stopped(state_dir: Path, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while postmaster(state_dir) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_embedded_server_faults_two_first_runs_a_stopped_server_and_a_killed_command(
    state, repo, tmp_path
):
    env = embedded_state(state, tmp_path)
    state_dir = Path(env["CODEATLAS_STATE_DIR"])
    try:
        # two first commands on a fresh state directory: both create the databases
        both = [index(env, repo), index(env, repo)]
        for run in both:
            code, out = finish(run)
            assert code == 0, out
            assert "Traceback" not in out
        assert wait_stopped(state_dir), "the embedded server outlived the commands that used it"

        # PostgreSQL stopped under a run: a short message, a non-zero exit, a re-run recovers
        run = index(env, repo, name="shop-copy")
        assert run.stdout is not None
        for line in run.stdout:
            if "parsed 50/150" in line:
                break
        os.kill(postmaster(state_dir) or 0, signal.SIGINT)  # PostgreSQL's fast shutdown
        code, out = finish(run)
        assert code == 1, out
        [error] = [line for line in out.splitlines() if line.startswith("codeatlas: error")]
        assert "PostgreSQL went away during the index run of shop-copy@" in error
        assert "run the same command again" in error
        assert len(out.strip().splitlines()) <= 5, out
        assert "Traceback" not in out
        code, out = finish(index(env, repo, name="shop-copy"))
        assert code == 0, out

        # a command killed with SIGKILL leaves its server for the next command to stop
        victim = index(env, repo)
        deadline = time.monotonic() + 60
        while postmaster(state_dir) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1)
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
        code, out = finish(index(env, repo))
        assert code == 0, out
        assert wait_stopped(state_dir), "the server of a killed command was never stopped"
    finally:
        if (pid := postmaster(state_dir)) is not None:
            os.kill(pid, signal.SIGINT)
