"""Stopping a process group (core/process_guard.py, what `codeatlas dev` and its guard do): the
daemons first, then every other process, each interrupted once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from core.process_guard import DAEMON_MARK, group_members, stop_group

# counts the SIGINTs it receives into a file; after the first it takes `delay` seconds to exit
CHILD = """
import signal, sys, time
from pathlib import Path
out, delay, received = Path(sys.argv[1]), float(sys.argv[2]), [0]
def count(*_):
    received[0] += 1
    out.write_text(str(received[0]))
signal.signal(signal.SIGINT, count)
out.write_text("0")
while not received[0]:
    time.sleep(0.05)
time.sleep(delay)
"""
# starts both and waits for them, ignoring the interrupt itself (the daemon's mark comes in the
# environment: in its own command line it would make the leader a daemon)
LEADER = """
import os, signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
daemon, worker = sys.argv[1], sys.argv[2]
children = [
    subprocess.Popen([sys.executable, "-c", sys.argv[3], daemon, "2.5", os.environ["MARK"]]),
    subprocess.Popen([sys.executable, "-c", sys.argv[3], worker, "0"]),
]
for child in children:
    child.wait()
"""


def test_a_slow_daemon_is_interrupted_once_and_the_rest_once_after_it(tmp_path: Path):
    daemon, worker = tmp_path / "daemon", tmp_path / "worker"
    leader = subprocess.Popen(
        [sys.executable, "-c", LEADER, str(daemon), str(worker), CHILD],
        start_new_session=True,
        env={**os.environ, "MARK": DAEMON_MARK},
    )
    try:
        deadline = time.monotonic() + 30
        while not (daemon.exists() and worker.exists()):
            assert time.monotonic() < deadline, "the group's processes did not start"
            time.sleep(0.05)
        assert len(group_members(leader.pid)) == 3

        # the daemon takes longer to exit than the daemons' head start (1.5 s)
        stop_group(leader.pid, grace=10.0, leader=leader)

        assert not group_members(leader.pid)
        assert daemon.read_text() == "1"
        assert worker.read_text() == "1"
    finally:
        if leader.poll() is None:
            leader.kill()
