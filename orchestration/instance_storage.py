"""The Dagster instance's storage: dagster-postgres on codeatlas' own server, found the way every
codeatlas command finds it, so a bare `dagster` command with only DAGSTER_HOME set works too.

`CODEATLAS_DAGSTER_STORAGE_URL` (exported by `codeatlas dev` and `codeatlas index` for their
children) wins; without it the URL comes from the `CODEATLAS_*` settings (`.env` included):
`CODEATLAS_DATABASE_URL`'s server, else the embedded one in the state dir, started if it is down.
"""

from __future__ import annotations

from typing import Any

from dagster_postgres import DagsterPostgresStorage

from core.config import Settings, load_settings
from core.database import (
    DAGSTER_DATABASE,
    create_database_if_missing,
    dagster_storage_url,
    index_database_url,
)


def storage_url(settings: Settings) -> str:
    """SQLAlchemy URL of the `dagster` database (created if missing)."""
    if settings.dagster_storage_url:
        return settings.dagster_storage_url
    url = index_database_url(settings)
    create_database_if_missing(url, DAGSTER_DATABASE)
    return dagster_storage_url(url)


class CodeatlasStorage(DagsterPostgresStorage):
    """`DagsterPostgresStorage` whose URL is derived, not written in dagster.yaml (it may hold a
    password, and the embedded server's socket lives in the state dir)."""

    @classmethod
    def config_type(cls) -> dict[str, Any]:
        """No settings in dagster.yaml: everything comes from the environment."""
        return {}

    @classmethod
    def from_config_value(cls, inst_data: Any, config_value: Any) -> CodeatlasStorage:
        """Built by Dagster from dagster.yaml's `storage: custom:` entry: the entry point of a
        Dagster process (webserver, daemon, code server, run), so it reads the settings."""
        return cls(postgres_url=storage_url(load_settings()), inst_data=inst_data)
