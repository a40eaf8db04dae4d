"""A run launcher without a cold start: each run is a child forked from a warm process.

Dagster's default launcher asks the code server to start a run, which spawns a new interpreter
that imports Dagster and the code location before the run's first event: 6-10 s of the 14-18 s
from push to searchable under `codeatlas dev` on a loaded 2-core machine (lab/LOG.md,
"Freshness"). This launcher keeps one Python fork server (multiprocessing's `forkserver`) that
has imported `orchestration.run_worker` (Dagster, the definitions, the tree-sitter grammars)
once; a run is a fork of it, started in milliseconds. The run still goes through the run queue,
records its events and its process like any run, and can be terminated from the UI.

Runs execute on the daemon's host, like the default launcher's; `CODEATLAS_EXECUTOR=celery`
sends their steps to workers elsewhere (README, "Scaling out").
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
from multiprocessing.process import BaseProcess
from typing import Any

from dagster import DagsterRun

from orchestration.runtime.dagster_internals import (
    CheckRunHealthResult,
    ConfigurableClassData,
    ConfiguredRunLauncher,
    LaunchRunContext,
    WorkerStatus,
    cold_run_command,
)
from orchestration.runtime.run_liveness import PROCESS_TAG, Liveness, run_liveness

PRELOAD = "orchestration.run_worker"


class WarmRunLauncher(ConfiguredRunLauncher):
    """Launch each run in a process forked from a fork server that preloaded the code."""

    def __init__(self, inst_data: ConfigurableClassData | None = None):
        self._context: Any = None  # the fork server's context, made on the first launch
        self._processes: dict[str, BaseProcess] = {}
        super().__init__(inst_data)

    def _fork_server(self):
        if self._context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([PRELOAD])
            self._context = context
        return self._context

    def launch_run(self, context: LaunchRunContext) -> None:
        """Fork a warm process for the run (a cold `dagster api execute_run` if the code changed
        since the fork server loaded it)."""
        run = context.dagster_run
        cold = cold_run_command(run, self._instance.get_ref())
        self._forget_finished()
        process = self._fork_server().Process(
            target=_execute_run,
            args=(run.run_id, self._instance.get_ref(), cold),
            name=f"dagster-run-{run.run_id[:8]}",
        )
        process.start()
        self._processes[run.run_id] = process

    def _forget_finished(self) -> None:
        for run_id, process in list(self._processes.items()):
            if not process.is_alive():
                process.join()
                process.close()
                del self._processes[run_id]

    def terminate(self, run_id: str) -> bool:
        """Interrupt the run's process (its steps see Ctrl-C and the run is marked canceled)."""
        run = self._instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            return False
        self._instance.report_run_canceling(run)
        pid = _local_pid(run)
        if pid is None:
            self._instance.report_engine_event(
                "codeatlas: no process of this run on this host to interrupt", run
            )
            return False
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            return False
        return True

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run: DagsterRun) -> CheckRunHealthResult:
        """Running while the run's recorded process lives (unknown before it records itself)."""
        record = self._instance.get_run_record_by_id(run.run_id)
        if record is None:
            return CheckRunHealthResult(WorkerStatus.NOT_FOUND)
        state = run_liveness(record, self._instance, local_storage=True)
        if state is Liveness.ALIVE:
            return CheckRunHealthResult(WorkerStatus.RUNNING)
        if state is Liveness.DEAD:
            return CheckRunHealthResult(WorkerStatus.FAILED, "the run's process is gone")
        return CheckRunHealthResult(WorkerStatus.UNKNOWN)


def _execute_run(run_id: str, instance_ref, cold_command: list[str]) -> None:
    """The forked child's target (the fork server preloaded the worker: importing it is free)."""
    try:
        from orchestration import run_worker
    except BaseException as exc:
        from dagster import DagsterInstance

        with DagsterInstance.from_ref(instance_ref) as instance:
            run = instance.get_run_by_id(run_id)
            if run is not None:
                instance.report_run_failed(run, f"codeatlas: the run could not load: {exc!r}")
        raise
    run_worker.execute_run(run_id, instance_ref, cold_command)


def _local_pid(run: DagsterRun) -> int | None:
    """The pid recorded on the run, when its process is on this host."""
    tag = run.tags.get(PROCESS_TAG)
    if not tag:
        return None
    host, pid, _started = tag.split(" ")
    return int(pid) if host == socket.gethostname() else None
