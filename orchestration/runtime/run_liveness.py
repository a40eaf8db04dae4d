"""Which unfinished Dagster runs still have a live process, and releasing what dead ones hold.

A run's process can vanish without a word: SIGKILL, a crash, PostgreSQL stopping under it.
Its run then stays STARTED forever and keeps its concurrency slots, so every later run that
needs the slot would wait for it. Each run records its process in a tag; the next run fails
the runs whose process is gone and frees their slots.
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from enum import Enum

import psutil
from dagster import (
    DagsterInstance,
    DagsterRun,
    DagsterRunStatus,
    RunRecord,
    RunsFilter,
)

from core.config import Settings
from orchestration.runtime.dagster_internals import (
    engine_event_pid,
    free_pool_slots_of_run,
    pool_slot_users,
)
from orchestration.runtime.run_tags import PARTITION_TAG

PROCESS_TAG = "codeatlas/process"  # "<host> <pid> <process start time>"
EXECUTION_TAG = "codeatlas/execution"  # one id per execution inside a process

UNFINISHED = [
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
]

# executions running in this process now: one of its runs not listed here is over
_live_executions: set[str] = set()


class Liveness(Enum):
    """What is known of a run's process."""

    ALIVE = "alive"
    DEAD = "dead"
    UNKNOWN = "unknown"  # no process recorded, or on another host


def _this_process() -> str:
    me = psutil.Process()
    return f"{socket.gethostname()} {me.pid} {me.create_time():.2f}"


def process_tags() -> dict[str, str]:
    """Tags naming this process and one execution in it (pass them to the run)."""
    return {PROCESS_TAG: _this_process(), EXECUTION_TAG: uuid.uuid4().hex}


@contextlib.contextmanager
def live_execution(tags: dict[str, str]) -> Iterator[None]:
    """Mark the execution tagged `tags` as running in this process while the block runs."""
    token = tags[EXECUTION_TAG]
    _live_executions.add(token)
    try:
        yield
    finally:
        _live_executions.discard(token)


def mark_run_process(instance: DagsterInstance, run: DagsterRun) -> None:
    """Record this process on a run that did not get the tags at launch (daemon-launched runs)."""
    if PROCESS_TAG not in run.tags:
        instance.add_run_tags(run.run_id, {PROCESS_TAG: _this_process()})


def _process_state(pid: int, started_before: float | None) -> Liveness:
    """Whether process `pid` exists and is the one that began no later than `started_before`."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return Liveness.DEAD
        # a pid reused by a newer process is not the run's process
        if started_before is not None and proc.create_time() > started_before + 1:
            return Liveness.DEAD
    except psutil.NoSuchProcess:
        return Liveness.DEAD
    except psutil.Error:
        return Liveness.UNKNOWN
    return Liveness.ALIVE


def run_liveness(record: RunRecord, instance: DagsterInstance, local_storage: bool) -> Liveness:
    """Whether the process executing this run is still there.

    Runs without our tag (started before it existed) are judged by the pid in Dagster's
    "Executing steps in process" event, only when the run storage is local (`local_storage`):
    then the pid is of this host.
    """
    run = record.dagster_run
    tag = run.tags.get(PROCESS_TAG)
    if tag:
        host, pid_text, started_text = tag.split(" ")
        if host != socket.gethostname():
            return Liveness.UNKNOWN
        pid, started = int(pid_text), float(started_text)
        if pid == os.getpid() and f"{started:.2f}" == _this_process().split(" ")[2]:
            token = run.tags.get(EXECUTION_TAG)
            return Liveness.DEAD if token and token not in _live_executions else Liveness.ALIVE
        return _process_state(pid, started)
    if not local_storage:
        return Liveness.UNKNOWN
    pid = engine_event_pid(instance, run.run_id)
    if pid is None:
        return Liveness.UNKNOWN
    began = record.start_time or record.create_timestamp.timestamp()
    return _process_state(pid, began)


def describe(run: DagsterRun) -> str:
    """`run 1a2b3c4d (repo@commit, pid 123 on host)`, for messages."""
    where = ""
    if tag := run.tags.get(PROCESS_TAG):
        host, pid, _ = tag.split(" ")
        where = f", pid {pid} on {host}"
    partition = run.tags.get(PARTITION_TAG, run.job_name)
    return f"run {run.run_id[:8]} ({partition}{where})"


def reap_dead_runs(
    instance: DagsterInstance, settings: Settings, log: Callable[[str], None] = lambda _m: None
) -> list[str]:
    """Fail unfinished runs whose process is gone, free slots no live run can use; their ids."""
    # with the embedded server every run of this state directory is on this host
    local_storage = settings.database_url is None
    reaped = []
    for record in instance.get_run_records(RunsFilter(statuses=UNFINISHED)):
        if run_liveness(record, instance, local_storage) is Liveness.DEAD:
            run = record.dagster_run
            instance.report_run_failed(
                run,
                "codeatlas: the process executing this run is gone (killed, or PostgreSQL"
                " stopped under it); marked failed so it releases its concurrency slots",
            )
            log(f"{describe(run)} had no live process: marked failed, its slots freed")
            reaped.append(run.run_id)
    free_slots_of_finished_runs(instance)
    return reaped


def free_slots_of_finished_runs(instance: DagsterInstance) -> None:
    """Free concurrency slots (and queued claims) held by runs that are over or unknown."""
    for run_id in pool_slot_users(instance):
        run = instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            free_pool_slots_of_run(instance, run_id)
