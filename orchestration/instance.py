"""The Dagster instance: runs and events stored in the same PostgreSQL (database `dagster`)."""

from __future__ import annotations

import os
from pathlib import Path

from codeatlas.core.config import Settings
from codeatlas.core.database import (
    DAGSTER_DATABASE,
    create_database_if_missing,
    dagster_storage_url,
    index_database_url,
)

DAGSTER_YAML = """\
# Written by codeatlas; the storage URL comes from CODEATLAS_DAGSTER_STORAGE_URL.
storage:
  postgres:
    postgres_url:
      env: CODEATLAS_DAGSTER_STORAGE_URL
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config:
    dequeue_interval_seconds: 1
# runs log through their structured events (the UI shows them); no per-step tail processes
compute_logs:
  module: dagster.core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
concurrency:
  pools:
    default_limit: 1
telemetry:
  enabled: false
# no "join the community" modal in the UI
nux:
  enabled: false
"""


def prepare_dagster_home(settings: Settings) -> Path:
    """Create DAGSTER_HOME with a dagster.yaml on PostgreSQL, export its env vars; return it."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.state_dir / "dagster")
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists() or config.read_text() != DAGSTER_YAML:
        config.write_text(DAGSTER_YAML)
    url = index_database_url(settings)
    create_database_if_missing(url, DAGSTER_DATABASE)
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ.setdefault("CODEATLAS_DAGSTER_STORAGE_URL", dagster_storage_url(url))
    # subprocesses (webserver, daemon, code server) reach the same server without restarting it
    os.environ.setdefault("CODEATLAS_DATABASE_URL", url)
    return home
