"""Dagster resources: the index database and the embedding provider (real and fake)."""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from pathlib import Path

from dagster import ConfigurableResource, InitResourceContext
from pydantic import PrivateAttr

from core.config import Settings, load_settings
from core.database import DictConnection, ensure_index_database, migrate_database
from core.embedding_providers import provider_named
from indexing.embedding.base import Embedder
from indexing.embedding_registry import (
    ModelSpec,
    configured_spec,
    embedder_for_model,
    embedder_for_spec,
    indexing_model,
)


class IndexDatabase(ConfigurableResource):
    """The codeatlas PostgreSQL database, resolved and migrated once when a run (or a sensor's
    tick) starts; fields left empty come from the `CODEATLAS_*` settings of the process."""

    url: str = ""  # empty: CODEATLAS_DATABASE_URL, else the embedded server in the state dir
    state_dir: str = ""  # empty: CODEATLAS_STATE_DIR, else the per-user data dir
    _settings: Settings | None = PrivateAttr(default=None)
    _database_url: str | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        """Read the settings and create/migrate the database before the first step uses it."""
        self._open()

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        """Forget the settings: the next run reads them afresh."""
        self._settings = self._database_url = None

    def _open(self) -> tuple[Settings, str]:
        if self._settings is None or self._database_url is None:
            settings = load_settings()
            if self.state_dir:
                settings = replace(settings, state_dir=Path(self.state_dir).resolve())
            if self.url:
                migrate_database(self.url)
            self._database_url = self.url or ensure_index_database(settings)
            self._settings = settings
        return self._settings, self._database_url

    @property
    def settings(self) -> Settings:
        """The settings of the process running the step, with this resource's fields."""
        return self._open()[0]

    @property
    def database_url(self) -> str:
        """The migrated database's URL (starts the embedded server when needed)."""
        return self._open()[1]


class EmbeddingProvider(ConfigurableResource):
    """Which embedder to use: `provider` local | openai | fake (`Provider`; empty: from
    settings)."""

    provider: str = ""
    model: str = ""

    @cached_property
    def spec(self) -> ModelSpec:
        """How to rebuild this embedder in any process (stored with the model's vectors)."""
        spec = configured_spec(load_settings())
        if self.provider and self.provider != spec.provider:
            spec = ModelSpec(provider_named(self.provider, "EmbeddingProvider.provider"))
        return replace(spec, model=self.model) if self.model else spec

    @cached_property
    def embedder(self) -> Embedder:
        """The configured embedder (loaded once per process)."""
        return embedder_for_spec(self.spec, load_settings())

    def for_repository(self, conn: DictConnection, repository: str) -> tuple[Embedder, bool]:
        """The embedder an index run of `repository` uses, and whether it is this resource's
        own (configured by the environment). Once `codeatlas models upgrade` chose a model, the
        database decides (`indexing_model`), so processes with different environments agree."""
        name = indexing_model(conn, repository)
        if name is None:
            return self.embedder, True
        return embedder_for_model(name, conn, load_settings()), False
