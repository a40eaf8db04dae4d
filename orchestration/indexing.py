"""Run the index job for one partition in-process, recorded in the Dagster instance."""

from __future__ import annotations

import time

from dagster import DagsterError, DagsterInstance, Definitions

from assets.partitions import partition_key, snapshot_partitions
from codeatlas.config import load_settings
from codeatlas.database import connect, index_database_url
from codeatlas.errors import CodeatlasError
from orchestration.instance import prepare_dagster_home


class IndexRunError(CodeatlasError):
    """The Dagster run indexing a commit failed."""


def index_commit(
    repository: str,
    commit_sha: str,
    instance: DagsterInstance | None = None,
    definitions: Definitions | None = None,
) -> dict:
    """Add the `<repository>@<commit>` partition and execute `index_snapshot` for it."""
    if definitions is None:
        from orchestration.definitions import defs as definitions
    started = time.monotonic()
    settings = load_settings()
    if instance is None:
        prepare_dagster_home(settings)
        instance = DagsterInstance.get()
    key = partition_key(repository, commit_sha)
    assert snapshot_partitions.name is not None
    instance.add_dynamic_partitions(snapshot_partitions.name, [key])
    job = definitions.resolve_job_def("index_snapshot")
    try:
        result = job.execute_in_process(
            instance=instance,
            partition_key=key,
            run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
            raise_on_error=True,
        )
    except DagsterError as exc:
        cause = getattr(exc, "user_exception", None) or exc.__cause__
        if isinstance(cause, CodeatlasError):
            raise cause from exc
        raise IndexRunError(
            f"the index run of {key} failed: {cause or exc}. Nothing already published was"
            " changed; fix the cause and run the same command again (it resumes)."
        ) from exc
    conn = connect(index_database_url(settings))
    try:
        row = conn.execute(
            "SELECT s.stats FROM snapshots s JOIN repositories r ON r.id = s.repository_id"
            " WHERE r.name = %s AND s.commit_sha = %s",
            (repository, commit_sha),
        ).fetchone()
    finally:
        conn.close()
    stats = (row or {}).get("stats") or {}
    return {
        "run_id": result.run_id,
        "files": stats.get("files", 0),
        "chunks": stats.get("chunks", 0),
        "symbols": stats.get("symbols", 0),
        "seconds": time.monotonic() - started,
    }
