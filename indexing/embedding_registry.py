"""Which provider made each stored embedding model, so any process can rebuild its embedder.

`embedding_models` keeps (provider, provider model, dimensions, base URL) per model name; API keys
never: they come from the environment of the process that embeds. Dagster-free, so the query
side (`retrieval`, `mcp_app`) embeds queries with the repository's *active* model even while the
environment already configures the next one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import psycopg

from codeatlas.core.config import Settings
from codeatlas.core.embedding_providers import Provider, provider_named
from codeatlas.core.errors import ConfigurationError
from indexing import storage
from indexing.embedding.base import Embedder

_cache: dict[tuple, Embedder] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class ModelSpec:
    """Enough to rebuild an embedder: provider, its model name, dimensions, endpoint."""

    provider: Provider
    model: str | None = None
    dimensions: int | None = None
    base_url: str | None = None

    def __post_init__(self) -> None:
        # specs are also read from the database and from Dagster config: text until here
        object.__setattr__(self, "provider", provider_named(self.provider))


def configured_spec(settings: Settings) -> ModelSpec:
    """The spec the environment configures for new indexing work."""
    return ModelSpec(
        settings.embedding_provider,
        settings.embedding_model,
        settings.embedding_dimensions,
        settings.openai_base_url,
    )


def embedder_for_spec(spec: ModelSpec, settings: Settings) -> Embedder:
    """The embedder a spec describes (built once per process)."""
    from indexing.embedding.factory import make_embedder

    key = (spec, settings.openai_api_key is not None)
    with _lock:
        if key not in _cache:
            _cache[key] = make_embedder(
                replace(
                    settings,
                    embedding_provider=spec.provider,
                    embedding_model=spec.model,
                    embedding_dimensions=spec.dimensions,
                    openai_base_url=spec.base_url,
                )
            )
        return _cache[key]


def record_model(conn: psycopg.Connection, embedder: Embedder, spec: ModelSpec) -> None:
    """Register the embedder's model (with its HNSW index) and store how to rebuild it."""
    storage.ensure_embedding_model(conn, embedder.model_name, embedder.dimensions)
    conn.execute(
        "UPDATE embedding_models SET provider = %s, provider_model = %s,"
        " provider_dimensions = %s, base_url = %s WHERE name = %s",
        (spec.provider.value, spec.model, spec.dimensions, spec.base_url, embedder.model_name),
    )


def choose_model(conn: psycopg.Connection, name: str) -> None:
    """Make the stored model `name` the one new indexing work embeds with, in every process
    (`codeatlas models upgrade`); the environment's model no longer decides."""
    conn.execute("UPDATE embedding_models SET chosen_at = now() WHERE name = %s", (name,))


def chosen_model(conn: psycopg.Connection) -> str | None:
    """The model last chosen by `codeatlas models upgrade`, if any."""
    row = conn.execute(
        "SELECT name FROM embedding_models WHERE chosen_at IS NOT NULL"
        " ORDER BY chosen_at DESC, name LIMIT 1"
    ).fetchone()
    return row["name"] if row else None


def indexing_model(conn: psycopg.Connection, repository: str) -> str | None:
    """The model an index run of `repository` embeds with when a model was chosen in the
    database: the one it is upgrading to, else its active one, else the chosen one. None when no
    model was ever chosen: then the process's environment configures it (`configured_spec`)."""
    chosen = chosen_model(conn)
    if chosen is None:
        return None
    row = conn.execute(
        "SELECT coalesce(upgrading_embedding_model, active_embedding_model) AS model"
        " FROM repositories WHERE name = %s",
        (repository,),
    ).fetchone()
    return (row and row["model"]) or chosen


def stored_spec(conn: psycopg.Connection, name: str) -> ModelSpec | None:
    """How the stored model `name` was made, if recorded."""
    row = conn.execute(
        "SELECT provider, provider_model, provider_dimensions, base_url FROM embedding_models"
        " WHERE name = %s",
        (name,),
    ).fetchone()
    if row is None or row["provider"] is None:
        return None
    return ModelSpec(
        row["provider"], row["provider_model"], row["provider_dimensions"], row["base_url"]
    )


def embedder_for_model(name: str, conn: psycopg.Connection, settings: Settings) -> Embedder:
    """An embedder whose vectors live in the same space as the stored model `name`."""
    spec = stored_spec(conn, name)
    candidates = [spec] if spec else []
    candidates.append(configured_spec(settings))
    for candidate in candidates:
        embedder = embedder_for_spec(candidate, settings)
        if embedder.model_name == name:
            return embedder
    if spec is not None and spec.provider is Provider.LOCAL and spec.model is None:
        # stored as the local default, which has changed since (a new text recipe): the old
        # default by its full name, which queries the same way, while an upgrade re-embeds
        embedder = embedder_for_spec(replace(spec, model=name), settings)
        if embedder.model_name == name:
            return embedder
    raise ConfigurationError(
        f"cannot rebuild the embedder of model {name!r}: no provider is stored for it and the"
        " environment configures another model; run `codeatlas models upgrade` with its"
        " --provider and --model once, or set CODEATLAS_EMBEDDING_PROVIDER/MODEL"
    )
