"""The resident query process against clients that misbehave (issue 47): one that stalls
mid-request, trickling a byte now and then, is dropped within `REQUEST_SECONDS`, so the next
`codeatlas search` is still answered by the process; a socket file replaced by another file
is bound again, so commands do not answer in-process for the rest of the process' life."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading

from core import query_socket
from tests.codeatlas.test_resident import SEARCH, heavy, user  # noqa: F401
from tests.core.test_embedded_server import wait_for


def _is_socket(path) -> bool:
    with contextlib.suppress(OSError):
        return stat.S_ISSOCK(path.lstat().st_mode)
    return False


def test_a_client_stalled_mid_request_does_not_keep_the_next_search_waiting(user):  # noqa: F811
    first = user.run(*SEARCH)
    assert first.returncode == 0, first.stderr
    assert wait_for(user.resident_ready)

    stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stalled.connect(os.fspath(query_socket.socket_path(user.state)))
    stalled.sendall(b'{"config": ')  # a request begun and never finished
    finished = threading.Event()

    def trickle() -> None:
        # a byte every 0.2 s: a per-read timeout would never fire
        while not finished.wait(0.2):
            try:
                stalled.sendall(b" ")
            except OSError:
                return

    thread = threading.Thread(target=trickle)
    thread.start()
    try:
        served = user.run(*SEARCH)
    finally:
        finished.set()
        thread.join(timeout=10)
    assert served.returncode == 0, served.stderr
    assert heavy(served) == [], "the command gave up on the resident process"
    assert served.stdout == first.stdout
    # the stalled client was dropped: its socket is closed from the other end
    stalled.settimeout(10)
    with contextlib.suppress(ConnectionResetError):
        assert stalled.recv(1) == b""
    stalled.close()


def test_a_socket_file_replaced_by_another_file_is_bound_again(user):  # noqa: F811
    first = user.run(*SEARCH)
    assert first.returncode == 0, first.stderr
    assert wait_for(user.resident_ready)
    pid = query_socket.resident_pid(user.state)
    path = query_socket.socket_path(user.state)

    path.unlink()
    path.write_text("not a socket\n")
    assert wait_for(lambda: _is_socket(path)), (user.state / "run" / "query.log").read_text()

    served = user.run(*SEARCH)
    assert served.returncode == 0, served.stderr
    assert heavy(served) == [], "the command answered in-process"
    assert served.stdout == first.stdout
    assert query_socket.resident_pid(user.state) == pid, "repaired by the same process"
    assert "was replaced" in (user.state / "run" / "query.log").read_text()
