"""Dagster resources: the index database and the embedding provider (real and fake)."""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from dagster import ConfigurableResource

from indexing.embedding.base import Embedder
from indexing.embedding_registry import ModelSpec, configured_spec, embedder_for_spec
from codeatlas.core.config import Settings, load_settings
from codeatlas.core.database import ensure_index_database


class IndexDatabase(ConfigurableResource):
    """The codeatlas PostgreSQL database; `url` empty means the embedded server / settings."""

    url: str = ""

    @cached_property
    def settings(self) -> Settings:
        """Settings from the environment of the process running the step."""
        return load_settings()

    @cached_property
    def database_url(self) -> str:
        """The migrated database's URL (starts the embedded server when needed)."""
        if self.url:
            from codeatlas.core.database import connect_plain
            from codeatlas.core.migrations import migrate

            conn = connect_plain(self.url)
            try:
                migrate(conn)
            finally:
                conn.close()
            return self.url
        return ensure_index_database(self.settings)


class EmbeddingProvider(ConfigurableResource):
    """Which embedder to use: `provider` local | openai | fake (empty: from settings)."""

    provider: str = ""
    model: str = ""

    @cached_property
    def spec(self) -> ModelSpec:
        """How to rebuild this embedder in any process (stored with the model's vectors)."""
        spec = configured_spec(load_settings())
        if self.provider and self.provider != spec.provider:
            spec = ModelSpec(self.provider)
        return replace(spec, model=self.model) if self.model else spec

    @cached_property
    def embedder(self) -> Embedder:
        """The configured embedder (loaded once per process)."""
        return embedder_for_spec(self.spec, load_settings())
