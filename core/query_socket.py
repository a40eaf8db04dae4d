"""The resident query process' protocol: a Unix socket in the state dir, one JSON line each way.

A new interpreter per `codeatlas search` paid ~260 ms to import numpy and psycopg and ~150 ms to
load the model, on top of the query (issue 27). The resident query process
(`codeatlas/resident.py`) holds them loaded with a warm connection; the CLI asks it through
`ask`, which imports only the standard library, and answers in-process when it gets no answer.

A request is `{"config": <fingerprint>, "command": "search", "args": {...}}`; the answer is
`{"status": "ok", "exit": 0, "stdout": "...", "stderr": "..."}`, or another status (`mismatch`,
`stale`, `failed`) that means "answer it yourself". The fingerprint covers every setting, the
interpreter and the source folder, so a process started for another configuration or another
checkout never answers. Only this user reaches the socket: its folder is 0700, the socket 0600.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from core.config import Settings

RUN_DIR = "run"  # under the state dir, 0700
SOCKET_NAME = "query.sock"
LOCK_NAME = "query.lock"  # held by the resident process for its lifetime; holds its pid
LOG_NAME = "query.log"
COMMANDS = ("search", "symbols", "callers")  # what the resident process answers
# a reply slower than this is given up (the command then runs in-process): a hung process
# must not hang the CLI, and the slowest real query answers in seconds
REPLY_SECONDS = 60.0
# what a client has to send its whole request and to take its answer: the process answers one
# client at a time, so one that stalls mid-request (or trickles a byte now and then) is dropped
# after this, instead of keeping every other command waiting (issue 47: 60 s); a real client
# sends its few hundred bytes at once
REQUEST_SECONDS = 1.0
MAX_REQUEST_BYTES = 1 << 20
# how long a command that started the resident process waits for it to listen (it warms up
# first: imports, the index's connection, the models' embedders) before answering in-process
WARM_UP_SECONDS = 60.0
START_SECONDS = 10.0  # for its interpreter to start and take the lock, on two busy cores
_MAX_SUN_PATH = 100  # sockaddr_un holds 104-108 bytes, depending on the platform


@dataclass(frozen=True)
class Answer:
    """What the command prints and its exit code, as the in-process path would have."""

    exit_code: int
    stdout: str
    stderr: str


def serves(settings: Settings) -> bool:
    """Whether this configuration uses a resident process: the embedded server (kept up by its
    keeper for the idle period), read from directly, with the process not turned off."""
    return (
        settings.query_process
        and settings.server_idle_seconds > 0
        and settings.database_url is None
        and settings.read_database_url is None
    )


def fingerprint(settings: Settings) -> str:
    """What a process must share with its client to answer for it: the settings, the
    interpreter and the source folder of this code."""
    source = Path(__file__).resolve().parent.parent.parent
    text = f"{settings!r}\0{sys.executable}\0{source}"
    return hashlib.sha256(text.encode()).hexdigest()


def run_dir(state_dir: Path) -> Path:
    """The folder of the socket and the lock, made 0700 (only this user may connect)."""
    folder = state_dir / RUN_DIR
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def socket_path(state_dir: Path) -> Path:
    """The socket's path: in the state dir, or (a state dir too deep for a socket's address) in a
    0700 folder of this user under the temporary folder, named after the state dir."""
    path = state_dir / RUN_DIR / SOCKET_NAME
    if len(os.fsencode(path)) <= _MAX_SUN_PATH:
        return path
    import tempfile  # here: it costs every command ~7 ms to import (shutil, random)

    short = Path(tempfile.gettempdir()) / f"codeatlas-{os.getuid()}"
    short.mkdir(mode=0o700, exist_ok=True)
    info = short.lstat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        # someone else's folder, or one others may write into: not a place to trust
        return path
    digest = hashlib.sha256(os.fsencode(state_dir)).hexdigest()[:16]
    return short / f"{digest}.sock"


def ask(settings: Settings, command: str, args: dict[str, Any]) -> Answer | None:
    """The resident process' answer to `command` with `args`, or None when none answers for this
    configuration (not running, a stale socket, another configuration, died mid-request)."""
    if not serves(settings) or command not in COMMANDS:
        return None
    path = socket_path(settings.state_dir)
    request = {"config": fingerprint(settings), "command": command, "args": args}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(REPLY_SECONDS)
            client.connect(os.fspath(path))
            send(client, request)
            reply = receive(client.makefile("rb"))
    except (OSError, ValueError):  # absent, refused (stale), reset, timed out, cut short
        return None
    if not isinstance(reply, dict) or reply.get("status") != "ok":
        return None
    return Answer(int(reply["exit"]), str(reply["stdout"]), str(reply["stderr"]))


def socket_identity(state_dir: Path) -> tuple[int, int] | None:
    """(inode, change time) of the socket file now: a process that binds it anew changes both."""
    try:
        info = socket_path(state_dir).stat()
    except OSError:
        return None
    return info.st_ino, info.st_ctime_ns


def wait_until_listening(state_dir: Path, before: tuple[int, int] | None, seconds: float) -> bool:
    """Whether a resident process just started listens within `seconds`: a socket other than the
    one there `before` it started (a dead process'), bound by a live process (it holds the lock
    from its first second to its last; given up on once none holds it)."""
    deadline = time.monotonic() + seconds
    unheld_since: float | None = None
    while time.monotonic() < deadline:
        now = socket_identity(state_dir)
        if now is not None and now != before and resident_pid(state_dir) is not None:
            return True
        if resident_pid(state_dir) is None:
            # not started yet (a new interpreter takes a moment), or exited
            unheld_since = unheld_since or time.monotonic()
            if time.monotonic() - unheld_since > START_SECONDS:
                return False
        else:
            unheld_since = None
        time.sleep(0.05)
    return False


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    """Write one message: a JSON object on one line."""
    sock.sendall(json.dumps(message).encode() + b"\n")


def receive(stream: BinaryIO) -> Any:
    """Read one message; ValueError if the line is cut short (the writer died) or not JSON."""
    line = stream.readline()
    if not line.endswith(b"\n"):
        raise ValueError("the message was cut short")
    return json.loads(line)


def receive_within(sock: socket.socket, seconds: float, limit: int = MAX_REQUEST_BYTES) -> Any:
    """Read one message within `seconds` in all (not per read, which a client trickling bytes
    would stretch for ever); TimeoutError, or ValueError when it is cut short, too long or not
    JSON."""
    deadline = time.monotonic() + seconds
    data = bytearray()
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not come in time")
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            raise ValueError("the message was cut short")
        data += chunk
        if len(data) > limit:
            raise ValueError("the message is too long")
    return json.loads(bytes(data))


def send_within(sock: socket.socket, message: dict[str, Any], seconds: float) -> None:
    """Write one message, giving up after `seconds` (a client that takes no answer)."""
    sock.settimeout(seconds)
    send(sock, message)


@contextlib.contextmanager
def holding_lock(state_dir: Path) -> Iterator[bool]:
    """Hold the resident process' lock of `state_dir` (writing this pid into it); False when
    another process holds it."""
    lock = os.open(run_dir(state_dir) / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        # `resident_pid` holds the lock shared for an instant to see whether it is free: a few
        # tries, so that a look at the lock does not turn the only starting process away
        for attempt in range(10):
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 9:
                    yield False
                    return
                time.sleep(0.02)
        os.ftruncate(lock, 0)
        os.write(lock, str(os.getpid()).encode())
        yield True
    finally:
        os.close(lock)  # lets the lock go


class Listener:
    """The resident process' listening socket at `path`; `repair` binds it again when the file
    there is no longer this socket (deleted, or replaced by another file), which would
    otherwise leave every command answering in-process for the process' lifetime."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.server: socket.socket | None = None
        self.identity: tuple[int, int] | None = None

    def bind(self) -> socket.socket:
        """Listen at the path (replacing whatever file is there); the listening socket."""
        self.close()
        self.path.unlink(missing_ok=True)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_mask = os.umask(0o177)  # created 0600: no moment when others could connect
        try:
            server.bind(os.fspath(self.path))
        except OSError:
            server.close()
            raise
        finally:
            os.umask(old_mask)
        server.listen(16)
        self.server, self.identity = server, _identity(self.path)
        return server

    def replaced(self) -> bool:
        """Whether the file at the path is not the socket this process bound."""
        return _identity(self.path) != self.identity

    def repair(self) -> bool:
        """Bind again when the socket file was replaced; True when it was."""
        if not self.replaced():
            return False
        self.bind()
        return True

    def close(self) -> None:
        """Stop listening; the socket file goes only if it is still this process'."""
        if self.server is not None:
            if not self.replaced():
                self.path.unlink(missing_ok=True)
            self.server.close()
            self.server = self.identity = None


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


@contextlib.contextmanager
def listening(state_dir: Path) -> Iterator[Listener]:
    """Listen on the socket of `state_dir` (under `holding_lock`: a socket file there is a stale
    one, left by a killed process, and is replaced); removed on exit."""
    listener = Listener(socket_path(state_dir))
    listener.bind()
    try:
        yield listener
    finally:
        listener.close()


def resident_pid(state_dir: Path) -> int | None:
    """The pid of the resident process of `state_dir`, if one runs."""
    path = state_dir / RUN_DIR / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = path.read_text().strip()
            return int(text) if text.isdigit() else None
        return None  # the lock was free: nobody holds it
    finally:
        os.close(fd)


def stop(state_dir: Path, wait_seconds: float = 10.0) -> bool:
    """Stop the resident process of `state_dir` (SIGTERM, SIGKILL if it lingers); False if none
    ran."""
    pid = resident_pid(state_dir)
    if pid is None:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_seconds
    while resident_pid(state_dir) == pid:
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    return True
