"""What a warm run process executes: one Dagster run, in a child forked from a process that has
already imported Dagster and the code location (see orchestration/run_launcher.py).

This module is the fork server's preload: importing it pays, once, what a cold run process pays
on every run (about 1.5 s of imports on an idle 2-core machine, 6-10 s when it is loaded).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from dagster import DagsterInstance, in_process_executor, job, op

import orchestration.definitions  # noqa: F401 - the point: imported before any fork
from core.layers import runtime_files
from indexing.parsing import grammars, languages
from orchestration.runtime.dagster_internals import (
    InstanceRef,
    capture_interrupts,
    execute_launched_run,
)
from orchestration.runtime.run_liveness import mark_run_process

ROOT = Path(__file__).resolve().parent.parent


def code_state(root: Path) -> dict[Path, float]:
    """Each file the code loads at run time (modules, statements, tree-sitter queries, in every
    package folder: core/layers.py) and when it was last written."""
    state = {}
    for path in runtime_files(root):
        with contextlib.suppress(FileNotFoundError):  # removed while we looked: absent
            state[path] = path.stat().st_mtime
    return state


LOADED = code_state(ROOT)
SILENT = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@op
def _nothing() -> None:
    """A step that does nothing."""


@job(executor_def=in_process_executor)
def _warm_up_job() -> None:
    _nothing()


def _warm_up() -> None:
    """Import, before any fork, what a run imports on its way (the PostgreSQL run storage, the
    execution machinery, the tree-sitter grammars); leaves no thread or connection behind."""
    import dagster_postgres  # noqa: F401 - sqlalchemy, alembic: ~4 s of a cold run's start

    with DagsterInstance.ephemeral() as instance:
        _warm_up_job.execute_in_process(instance=instance, run_config=SILENT)
    for language in languages.LANGUAGES:
        grammars.parser_for(language)
        grammars.tags_query(language)


def code_changed_since_load() -> bool:
    """Whether a file the code loads was written, added, removed or renamed since this process
    loaded it (an edit during `codeatlas dev`): the run must then load the code afresh."""
    return code_state(ROOT) != LOADED


def execute_run(run_id: str, instance_ref: InstanceRef, cold_command: list[str]) -> None:
    """Execute run `run_id` in this (forked) process; if the code changed since the fork server
    loaded it, replace this process with Dagster's own cold run command instead."""
    if code_changed_since_load():
        os.execv(cold_command[0], cold_command)
    with capture_interrupts(), DagsterInstance.from_ref(instance_ref) as instance:
        run = instance.get_run_by_id(run_id)
        if run is None:
            raise RuntimeError(f"run {run_id} is not in the run storage of {instance_ref}")
        # one kept connection per storage instead of one per event written (~180 a run, 13 ms
        # each on a loaded machine): what the webserver does for its own queries
        instance.optimize_for_webserver(statement_timeout=0, pool_recycle=3600, max_overflow=4)
        try:
            mark_run_process(instance, run)
            # what `dagster api execute_run` runs: events, the run's pid, cancellation
            execute_launched_run(run_id, instance)
        except BaseException:
            if not (instance.get_run_by_id(run_id) or run).is_finished:
                instance.report_run_failed(run, "codeatlas: the warm run process failed to start")
            raise


_warm_up()
