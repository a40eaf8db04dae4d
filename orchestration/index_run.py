"""Run the index job for one partition in-process, recorded in the Dagster instance."""

from __future__ import annotations

import getpass
import os
import socket
import sys
import time

from dagster import DagsterExecutionInterruptedError, DagsterInstance, Definitions

from assets.partitions import partition_key, snapshot_partitions
from core.config import Settings
from core.database import connection, index_database_url
from core.errors import CodeatlasError, DatabaseUnavailableError, first_line
from indexing import snapshots
from orchestration.instance import open_instance
from orchestration.runtime.run_liveness import live_execution, process_tags, reap_dead_runs
from orchestration.runtime.run_tags import LAUNCHED_BY_TAG, PRIORITY_TAG, PUSH_PRIORITY, TRIGGER_TAG


class IndexRunError(CodeatlasError):
    """The Dagster run indexing a commit failed."""


def _root_cause(exc: BaseException) -> BaseException:
    """The error a failed run began with (Dagster wraps what a step raised)."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, CodeatlasError):
            return exc
        inner = getattr(exc, "user_exception", None) or exc.__cause__
        if inner is None or type(inner).__name__ == "_RemoteTraceback":
            # a worker process's error carries its traceback as text in a `__cause__` whose
            # message begins with a line of `"""`: the error itself says what went wrong
            return exc
        exc = inner
    return exc


def _database_went_away(exc: BaseException) -> bool:
    """Whether the error is a lost or refused PostgreSQL connection (any driver)."""
    names = {type(e).__name__ for e in (exc, exc.__cause__, getattr(exc, "orig", None)) if e}
    return bool(names & {"OperationalError", "AdminShutdown", "InterfaceError"})


def run_failure(key: str, exc: BaseException) -> CodeatlasError:
    """The one-line error for a failed index run of `key`."""
    cause = _root_cause(exc)
    if isinstance(cause, CodeatlasError):
        return cause
    first = first_line(cause)
    if _database_went_away(cause):
        return DatabaseUnavailableError(
            f"PostgreSQL went away during the index run of {key} ({first}). Nothing already"
            " published was changed: once the server is back (the embedded one starts by"
            " itself), run the same command again and it resumes."
        )
    return IndexRunError(
        f"the index run of {key} failed: {first}. Nothing already published was changed;"
        " fix the cause and run the same command again (it resumes)."
    )


def _say(message: str) -> None:
    print(f"codeatlas: {message}", file=sys.stderr)


def cli_tags() -> dict[str, str]:
    """Tags of a run the CLI starts: launched by the CLI (the UI shows who, on which host),
    at the priority of a push (someone waits for it)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no USER and a uid without a passwd entry (containers)
        user = str(os.getuid())
    who = f"{user}@{socket.gethostname()}"
    return {
        TRIGGER_TAG: "cli",
        LAUNCHED_BY_TAG: f"codeatlas CLI ({who})",
        PRIORITY_TAG: PUSH_PRIORITY,
    }


def index_commit(
    settings: Settings,
    repository: str,
    commit_sha: str,
    instance: DagsterInstance | None = None,
    definitions: Definitions | None = None,
) -> dict:
    """Add the `<repository>@<commit>` partition and execute `index_snapshot` for it (the
    instance of `settings` unless one is given)."""
    if definitions is None:
        from orchestration.definitions import defs as definitions
    started = time.monotonic()
    if instance is None:
        instance = open_instance(settings)
    key = partition_key(repository, commit_sha)
    assert snapshot_partitions.name is not None
    instance.add_dynamic_partitions(snapshot_partitions.name, [key])
    job = definitions.resolve_job_def("index_snapshot")
    # runs killed earlier (SIGKILL, PostgreSQL stopped under them) release what they hold
    reap_dead_runs(instance, settings, log=_say)
    tags = {**process_tags(), **cli_tags()}
    try:
        with live_execution(tags):
            result = job.execute_in_process(
                instance=instance,
                partition_key=key,
                tags=tags,
                run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
                raise_on_error=True,
            )
    except DagsterExecutionInterruptedError as exc:  # Ctrl-C inside a step
        raise KeyboardInterrupt from exc
    except Exception as exc:  # noqa: BLE001 - every failure becomes one line for the user
        raise run_failure(key, exc) from exc
    with connection(index_database_url(settings)) as conn:
        stats = snapshots.stats_of(conn, repository, commit_sha)
    return {
        "run_id": result.run_id,
        "files": stats.get("files", 0),
        "chunks": stats.get("chunks", 0),
        "symbols": stats.get("symbols", 0),
        "seconds": time.monotonic() - started,
    }
