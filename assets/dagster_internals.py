"""Every private Dagster API codeatlas relies on, and only here.

Dagster's public namespace (`import dagster`) has no base class for a run launcher, no way to
execute a launched run in the current process (what `dagster api execute_run` does), no hold
on Ctrl-C between a run's steps and no accessor for the metadata it puts on log records. The
warm run launcher (orchestration/run_launcher.py, run_worker.py) and the console logger
(orchestration/console_log.py) need them, so they come from `dagster._…` modules, imported in
this module alone: ruff's TID253 bans them at module level everywhere else, and
tests/test_dagster_boundary.py finds any other import. tests/assets/test_dagster_internals.py
holds one test per behaviour relied on: after a Dagster upgrade it fails first and says which.

It sits in `assets/`, the lowest layer that imports Dagster, so every layer above can use it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from dagster import DagsterInstance, DagsterRun
from dagster._cli.api import _execute_run_command_body
from dagster._core.instance.ref import InstanceRef
from dagster._core.launcher import (
    CheckRunHealthResult,
    LaunchRunContext,
    RunLauncher,
    WorkerStatus,
)
from dagster._core.log_manager import LOG_RECORD_METADATA_ATTR
from dagster._grpc.types import ExecuteRunArgs
from dagster._serdes import ConfigurableClass, ConfigurableClassData
from dagster._utils.interrupts import capture_interrupts

__all__ = [
    "CheckRunHealthResult",
    "ConfigurableClass",
    "ConfigurableClassData",
    "InstanceRef",
    "LaunchRunContext",
    "RunLauncher",
    "WorkerStatus",
    "capture_interrupts",
    "cold_run_command",
    "execute_launched_run",
    "run_log_metadata",
]


def execute_launched_run(run_id: str, instance: DagsterInstance) -> None:
    """Execute the launched run `run_id` in this process, as `dagster api execute_run` does:
    its job loaded from the run's code origin, its events and pid recorded, a failure recorded
    on the run rather than raised, cancellation honoured."""
    _execute_run_command_body(
        run_id,
        instance,
        write_stream_fn=lambda _event: None,
        set_exit_code_on_failure=False,
    )


def cold_run_command(run: DagsterRun, instance_ref: InstanceRef) -> list[str]:
    """The command line of Dagster's own (cold) process for `run`: `dagster api execute_run`
    with the run's serialized arguments."""
    if run.job_code_origin is None:
        raise ValueError(f"run {run.run_id} has no code origin to load its job from")
    return list(
        ExecuteRunArgs(
            job_origin=run.job_code_origin,
            run_id=run.run_id,
            instance_ref=instance_ref,
            set_exit_code_on_failure=True,
        ).get_command_args()
    )


def run_log_metadata(record: logging.LogRecord) -> Mapping[str, Any]:
    """What Dagster attached to a log record of a run (`step_key`, `orig_message`, `run_id`...);
    empty for records that did not come through a run's log manager."""
    return getattr(record, LOG_RECORD_METADATA_ATTR, None) or {}
