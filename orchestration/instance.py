"""The Dagster instance: runs and events stored in the same PostgreSQL (database `dagster`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import Settings
from core.database import (
    DAGSTER_DATABASE,
    connection,
    create_database_if_missing,
    dagster_storage_url,
    index_database_url,
)

if TYPE_CHECKING:
    from dagster import DagsterInstance

DAGSTER_YAML = """\
# Written by codeatlas. Storage: database `dagster` on codeatlas' PostgreSQL, found from
# CODEATLAS_DAGSTER_STORAGE_URL, else the CODEATLAS_* settings (orchestration/instance_storage.py),
# so `DAGSTER_HOME=... dagster ...` works with nothing else set.
storage:
  custom:
    module: orchestration.instance_storage
    class: CodeatlasStorage
    config: {{}}
# the queue is polled every second (Dagster's default: 5 s)
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config:
    dequeue_interval_seconds: 1
{launcher}# runs log through their structured events (the UI shows them); no per-step tail processes
compute_logs:
  module: dagster.core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
# pools (embedding_provider, index_database_writes) hold one step at a time unless raised with
# `dagster instance concurrency set POOL N`; one run per repository at a time, and backfills
# (which run at priority -1, behind pushes) take at most half of the run slots
concurrency:
  pools:
    default_limit: 1
  runs:
    max_concurrent_runs: {runs}
    tag_concurrency_limits:
      - key: codeatlas/repository
        value:
          applyLimitPerUniqueValue: true
        limit: 1
      - key: dagster/backfill
        limit: {backfill_runs}
# sensors tick in a thread pool: a slow tick of one sensor (local_commit_sensor's git checks)
# never holds back the webhook sensor's in the same pass. The pass itself comes every 5 s
# whatever is set here (fixed in Dagster's sensor daemon): a push waits 2.5 s on average for it
sensors:
  use_threads: true
  num_workers: 2
# nothing here uses declarative automation or freshness policies: without these two daemons
# the daemon process only polls for what it runs
auto_materialize:
  enabled: false
  use_sensors: false
freshness:
  enabled: false
telemetry:
  enabled: false
# no "join the community" modal in the UI
nux:
  enabled: false
"""


# runs start as forks of a process that has loaded the code (orchestration/run_launcher.py)
WARM_LAUNCHER = """\
run_launcher:
  module: orchestration.run_launcher
  class: WarmRunLauncher
"""
# runs are tasks of celery workers, on any machine (README, "Scaling out")
CELERY_LAUNCHER = """\
run_launcher:
  module: dagster_celery.launcher
  class: CeleryRunLauncher
  config:
    broker:
      env: CODEATLAS_CELERY_BROKER_URL
    backend:
      env: CODEATLAS_CELERY_BROKER_URL
"""


def dagster_yaml(settings: Settings) -> str:
    """The instance's dagster.yaml for these settings (run launcher, run slots)."""
    runs = settings.max_concurrent_runs
    return DAGSTER_YAML.format(
        launcher=CELERY_LAUNCHER if settings.run_launcher == "celery" else WARM_LAUNCHER,
        runs=runs,
        backfill_runs=max(1, runs // 2),
    )


def prepare_dagster_home(settings: Settings) -> Path:
    """Create DAGSTER_HOME with a dagster.yaml on PostgreSQL, export its env vars; return it."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.state_dir / "dagster")
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    text = dagster_yaml(settings)
    if not config.exists() or config.read_text() != text:
        config.write_text(text)
    url = index_database_url(settings)
    create_database_if_missing(url, DAGSTER_DATABASE)
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ.setdefault("CODEATLAS_DAGSTER_STORAGE_URL", dagster_storage_url(url))
    # subprocesses (webserver, daemon, code server) reach the same server without restarting it
    os.environ.setdefault("CODEATLAS_DATABASE_URL", url)
    return home


# advisory lock id: one process at a time opens the instance (and so creates Dagster's tables)
_INSTANCE_LOCK = 7_345_002


def open_instance(settings: Settings) -> DagsterInstance:
    """The Dagster instance of these settings, DAGSTER_HOME prepared. The first opening on a new
    database creates Dagster's tables; two first commands doing it at once failed with `type
    "job_ticks" already exists`, so openings take turns on an advisory lock."""
    from dagster import DagsterInstance

    prepare_dagster_home(settings)
    with connection(index_database_url(settings), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_INSTANCE_LOCK,))
        try:
            return DagsterInstance.get()
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_INSTANCE_LOCK,))
