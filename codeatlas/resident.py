"""The resident query process: `search`, `symbols` and `callers` answered by one process that
keeps the model loaded and a connection open, so a second command answers in a fraction of the
~0.65 s a new interpreter needs (issue 27; lab/LOG.md, "everyday use").

One per state dir, started in the background by the first of those commands that finds none
(and by `codeatlas server start`); it warms what a query needs (imports, the embedders of the
indexed models, the query path) before it listens on its socket (core/query_socket.py).
It answers by running the commands' own functions on its connection, one request at a time,
each a fresh read of the index; a client gets `REQUEST_SECONDS` (1 s) to send its request and
take its answer, so one that stalls cannot keep the others waiting, and a socket file deleted
or replaced by another file is bound again within a tick (issue 47). It is not one of the
server's listed users: each query marks the server used (the keeper's idle clock), and it exits
once the idle period passes without a query, when the server stops or restarts (`codeatlas
server stop`, the keeper), on SIGTERM, after a request for another configuration, once the code
on disk changed, or after a request failed (then no command starts another for a minute:
`query.log` in the run folder says why).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from codeatlas.commands.operator_access import operator_scope
from codeatlas.commands.search import Command, Reader, run_callers, run_search, run_symbols
from core import embedded_server, query_socket
from core.config import Settings, load_settings
from core.errors import CodeatlasError, DatabaseUnavailableError
from core.layers import RUNTIME_SUFFIXES, package_folders

LOADED_AT = time.time()
COMMANDS: dict[str, Command] = {
    "search": run_search,
    "symbols": run_symbols,
    "callers": run_callers,
}
SOURCE_FOLDERS = package_folders()  # what the answers run, and the SQL they load: core/layers.py
TICK_SECONDS = 0.5
FAILED_FILE = "query.failed"  # marks a failure; no new process is started for a minute after
FAILURE_PAUSE_SECONDS = 60


def start(settings: Settings) -> bool:
    """Start the resident process for `settings` in the background, unless one runs (or this
    configuration uses none); whether one was started."""
    if not query_socket.serves(settings) or query_socket.resident_pid(settings.state_dir):
        return False
    failed = query_socket.run_dir(settings.state_dir) / FAILED_FILE
    with contextlib.suppress(OSError):
        if time.time() - failed.stat().st_mtime < FAILURE_PAUSE_SECONDS:
            return False  # a process that keeps failing would cost every command a start in vain
    env = embedded_server.detached_environment()
    if settings.state_dir_from == "CODEATLAS_STATE_DIR":
        env["CODEATLAS_STATE_DIR"] = str(settings.state_dir)  # a relative one meant this folder
    log = query_socket.run_dir(settings.state_dir) / query_socket.LOG_NAME
    with log.open("a") as output:
        subprocess.Popen(
            [sys.executable, "-m", "codeatlas.resident"],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,  # not in the command's group: Ctrl-C or killpg spare it
            close_fds=True,
            cwd="/",
            env={**env, "PYTHONWARNINGS": "ignore"},
        )
    return True


class WarmReader(Reader):
    """The index through one connection kept open, the operator's scope read afresh per
    request."""

    def __init__(self, settings: Settings) -> None:
        from core.database import INDEX_DATABASE, connect, migrate_database

        self.settings = settings
        self.pgdata = settings.state_dir / "postgres"
        running = embedded_server.running_url(self.pgdata, INDEX_DATABASE)
        if running is None:
            raise DatabaseUnavailableError(f"the embedded server in {self.pgdata} is not running")
        self.postmaster, url = running
        migrate_database(url)
        self.conn = connect(url, autocommit=True)

    @contextmanager
    def opened(self, repo: str | None) -> Iterator[tuple[Any, Any, Any]]:
        """(settings, connection, scope) on the kept connection."""
        from retrieval.principals import ensure_operator

        operator = ensure_operator(self.conn)
        yield self.settings, self.conn, operator_scope(self.conn, operator, repo)

    def server_changed(self) -> bool:
        """Whether the server this connection reached stopped or was restarted."""
        return embedded_server.postmaster(self.pgdata) != self.postmaster


def run(command: Command, args: dict[str, Any], reader: Reader) -> query_socket.Answer:
    """Run `command` as the CLI would, its output captured; a user's error is an answer (the
    same line the CLI prints), an unreachable database or any other failure is raised."""
    from codeatlas.cli import error_message

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = command(argparse.Namespace(**args), reader)
        except DatabaseUnavailableError:
            raise
        except CodeatlasError as exc:
            print(error_message(exc), file=sys.stderr)
            code = 1
    return query_socket.Answer(int(code or 0), out.getvalue(), err.getvalue())


def warm_up(reader: Reader) -> None:
    """Load what the first query needs: the query path's modules and statements, and the
    embedders of the indexed models (a hybrid search over every repository)."""
    args = {"query": "warm up", "repo": None, "limit": 1, "json": True, "mode": "hybrid"}
    run(run_search, args, reader)


def code_changed() -> bool:
    """Whether a source file this process runs was written after it loaded (an upgrade or an
    edit): its answers could differ from a new process'."""
    root = Path(__file__).resolve().parent.parent

    def newest(folder: str) -> float:
        latest = 0.0
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    latest = max(latest, newest(entry.path))
                elif entry.name.endswith(RUNTIME_SUFFIXES):
                    latest = max(latest, entry.stat().st_mtime)
        return latest

    return any(newest(str(root / folder)) > LOADED_AT for folder in SOURCE_FOLDERS)


def answer(client: Any, reader: WarmReader, config: str) -> bool:
    """Answer one request; False when this process should exit after it."""
    try:
        request = query_socket.receive_within(client, query_socket.REQUEST_SECONDS)
    except (OSError, ValueError):
        return True  # the client went away, or stalled, before asking: the next one's turn
    embedded_server.note_query(reader.pgdata)
    request = request if isinstance(request, dict) else {}
    command = COMMANDS.get(request.get("command", ""))
    keep = True
    if request.get("config") != config:
        reply: dict[str, Any] = {"status": "mismatch"}
        keep = False  # the latest configuration wins: the next command starts its own
    elif code_changed():
        reply, keep = {"status": "stale"}, False
    elif command is None:
        reply = {"status": "failed"}
    else:
        try:
            done = run(command, request.get("args") or {}, reader)
            reply = {"status": "ok", "exit": done.exit_code, "stdout": done.stdout}
            reply["stderr"] = done.stderr
        except Exception:  # noqa: BLE001 - the client answers in-process; this process quits
            traceback.print_exc()
            (query_socket.run_dir(reader.settings.state_dir) / FAILED_FILE).touch()
            reply, keep = {"status": "failed"}, False
    with contextlib.suppress(OSError):  # the client gave up waiting, or takes no answer
        query_socket.send_within(client, reply, query_socket.REQUEST_SECONDS)
    return keep


def serve(settings: Settings) -> int:
    """Warm up, then answer requests until the idle period passes without one or the server
    stops; 0 also when another process already serves this state dir."""
    if not query_socket.serves(settings):
        return 0
    with query_socket.holding_lock(settings.state_dir) as held:
        if not held:
            return 0
        reader = WarmReader(settings)
        warm_up(reader)
        config = query_socket.fingerprint(settings)
        _note(f"serving {settings.state_dir} ({time.time() - LOADED_AT:.1f} s to warm up)")
        with query_socket.listening(settings.state_dir) as listener:
            last = time.monotonic()
            while time.monotonic() - last < settings.server_idle_seconds:
                if listener.repair():
                    _note(f"the socket {listener.path} was replaced; listening there again")
                server = listener.server
                assert server is not None
                server.settimeout(TICK_SECONDS)
                try:
                    client, _ = server.accept()
                except TimeoutError:
                    if reader.server_changed():
                        _note("the server stopped")
                        return 0
                    continue
                with client:
                    if not answer(client, reader, config):
                        _note("exiting after a request it does not serve")
                        return 0
                last = time.monotonic()
            _note(f"idle for {settings.server_idle_seconds} s")
    return 0


def _note(text: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {text}", flush=True)


def main() -> int:
    """Entry point of the background process."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # the socket is removed on the way out
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(0))
    settings = load_settings()
    try:
        return serve(settings)
    except CodeatlasError as exc:  # e.g. the server stopped before this process connected
        _note(f"not serving: {exc}")
        return 1
    except Exception:
        traceback.print_exc()
        (query_socket.run_dir(settings.state_dir) / FAILED_FILE).touch()
        return 1


if __name__ == "__main__":
    sys.exit(main())
