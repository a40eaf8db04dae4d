"""A guard that stops a process group once the process that started it is gone, however it went.

`codeatlas dev` runs `dagster dev` in a session of its own (one signal to its group reaches the
webserver, daemon, code servers and run workers) and stops that group when it exits. A process
killed with SIGKILL runs no clean-up, and the group then ran on for hours, reparented to init
(issue 27). The guard is a small process outside both groups that waits for the parent to die,
then stops the group: SIGINT as Ctrl-C would, SIGKILL for whatever is left after the grace.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from core.embedded_server import detached_environment

TICK_SECONDS = 0.2


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def group_members(pgid: int) -> list[int]:
    """The running processes of a group (zombies waiting for init do not count)."""
    import psutil

    members = []
    for process in psutil.process_iter(["status"]):
        try:
            if os.getpgid(process.pid) == pgid and process.info["status"] != psutil.STATUS_ZOMBIE:
                members.append(process.pid)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return members


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


# Dagster's daemon is stopped a moment before the rest: signalled together, it went on ticking
# its sensors after the code server they ask had gone, and printed a traceback per sensor
DAEMON_MARK = "dagster._daemon"
DAEMON_FIRST_SECONDS = 1.5


def _stop_daemons_first(pgid: int, wait: float) -> set[int]:
    """SIGINT to the group's Dagster daemons; wait up to `wait` seconds for them to exit. The
    daemons and their children, which they stop themselves: the pids not to interrupt again."""
    import psutil

    daemons: list[psutil.Process] = []
    asked: set[int] = set()
    for pid in group_members(pgid):
        try:
            process = psutil.Process(pid)
            if any(DAEMON_MARK in part for part in process.cmdline()):
                asked |= {process.pid, *(c.pid for c in process.children(recursive=True))}
                process.send_signal(signal.SIGINT)
                daemons.append(process)
        except psutil.Error:
            continue
    if daemons:
        psutil.wait_procs(daemons, timeout=wait)
    return asked


def stop_group(pgid: int, grace: float, leader: subprocess.Popen | None = None) -> None:
    """SIGINT to every process of the group, as Ctrl-C would, each once (a second SIGINT
    reaching a process already on its way out interrupts its exit handlers, which print a
    traceback); SIGKILL for whatever is left after `grace` seconds. Dagster's processes take
    8-13 s to stop on two busy cores (the daemon waits for its threads, the webserver for its
    connections): that wait bought nothing, since a run killed mid-step resumes to the same rows
    (issue 48: `codeatlas dev` took 23 s to stop). `leader`, when this process started the
    group, is reaped as it exits."""
    interrupted = _stop_daemons_first(pgid, min(grace, DAEMON_FIRST_SECONDS))
    began = time.monotonic()
    killed = False
    while True:
        if leader is not None:
            leader.poll()  # a zombie leader would keep the group id alive
        members = group_members(pgid)
        if not members:
            return
        for pid in members:  # the rest once, and a process started meanwhile too
            if pid not in interrupted:
                interrupted.add(pid)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGINT)
        waited = time.monotonic() - began
        if waited > grace and not killed:
            _signal_group(pgid, signal.SIGKILL)
            killed = True
        if waited > grace + 10:  # a process in uninterruptible sleep: nothing more to do
            return
        time.sleep(TICK_SECONDS)


def guard(parent: int, pgid: int, grace: float) -> int:
    """Wait for `parent` to die, then stop group `pgid` if anything of it still runs."""
    while _alive(parent):
        time.sleep(TICK_SECONDS)
    if group_members(pgid):
        stop_group(pgid, grace)
    return 0


# How long Dagster's processes get to stop on SIGINT before SIGKILL (`codeatlas dev` and its
# guard alike): a quiet `dagster dev` stops in about 1 s; within 5 s in all.
SHUTDOWN_SECONDS = 3.0


def start_guard(pgid: int, grace: float = SHUTDOWN_SECONDS) -> subprocess.Popen:
    """Start a guard that stops group `pgid` when this process dies."""
    return subprocess.Popen(
        [sys.executable, "-m", "core.process_guard", str(os.getpid()), str(pgid)] + [str(grace)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # neither in the parent's group (Ctrl-C) nor in the guarded one
        close_fds=True,
        cwd="/",
        env=detached_environment(),
    )


if __name__ == "__main__":
    # the guard itself ignores the signals a terminal's hang-up or Ctrl-C would send
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    sys.exit(guard(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
