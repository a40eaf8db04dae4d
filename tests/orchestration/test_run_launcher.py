"""The warm run launcher's side of a run's life that the daemon end-to-end test does not reach:
terminating a run from the UI interrupts the process its tag names."""

import socket
import subprocess
import sys

import psutil
from dagster import DagsterInstance, DagsterRunStatus, job, op

from orchestration.run_launcher import WarmRunLauncher
from orchestration.runtime.run_liveness import PROCESS_TAG


@op
def wait_for_nothing() -> None:
    """A step."""


@job
def a_job() -> None:
    wait_for_nothing()


# a stand-in for a run's process: says when it listens, ends cleanly on Ctrl-C (its handler set
# as a run's is by Dagster's capture_interrupts: a shell's background job starts with SIGINT
# ignored, and a bare interpreter keeps that)
SLEEPER = """
import signal, time
signal.signal(signal.SIGINT, signal.default_int_handler)
print("ready", flush=True)
try:
    time.sleep(120)
except KeyboardInterrupt:
    pass
"""


def test_terminating_a_run_interrupts_the_process_its_tag_names():
    waiting = subprocess.Popen([sys.executable, "-c", SLEEPER], stdout=subprocess.PIPE, text=True)
    assert waiting.stdout is not None and waiting.stdout.readline() == "ready\n"
    try:
        with DagsterInstance.ephemeral() as instance:
            started = psutil.Process(waiting.pid).create_time()
            tag = f"{socket.gethostname()} {waiting.pid} {started:.2f}"
            run = instance.create_run_for_job(a_job, tags={PROCESS_TAG: tag})
            launcher = WarmRunLauncher()
            launcher.register_instance(instance)

            assert launcher.terminate(run.run_id) is True
            assert waiting.wait(30) == 0  # it saw Ctrl-C, as a run's steps do
            canceling = instance.get_run_by_id(run.run_id)
            assert canceling is not None and canceling.status == DagsterRunStatus.CANCELING
            assert launcher.check_run_worker_health(canceling).status.value == "FAILED"
    finally:
        waiting.kill()
        waiting.wait()
