"""Which provider made each stored embedding model, so any process can rebuild its embedder.

`embedding_models` keeps (provider, provider model, dimensions, base URL) per model name; API keys
never: they come from the environment of the process that embeds. Dagster-free, so the query
side (`retrieval`, `mcp_app`) embeds queries with the repository's *active* model even while the
environment already configures the next one. The owner of the table `embedding_models`
(docs/architecture.md, "One owner per table"): every statement that writes it is a function here.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, replace

from psycopg import sql

from core.config import Settings
from core.database import DictConnection, Row
from core.embedding_providers import Provider, provider_named
from core.errors import ConfigurationError
from core.sql_files import statement
from indexing import chunk_embeddings, repositories
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


def model_index_name(model: str) -> str:
    """A stable, valid index name for a model's partial HNSW index."""
    return "chunk_embeddings_hnsw_" + hashlib.sha1(model.encode()).hexdigest()[:16]


def ensure_embedding_model(conn: DictConnection, model: str, dimensions: int) -> None:
    """Register a model and create its partial HNSW index (once; safe to call every run)."""
    row = registered_dimensions(conn, model)
    if row is not None:
        if row["dimensions"] != dimensions:
            raise ValueError(
                f"embedding model {model!r} is registered with {row['dimensions']} dimensions,"
                f" but the provider returns {dimensions}: give the new setup another model name"
            )
        return
    index = model_index_name(model)
    with conn.transaction():
        conn.execute(
            statement("embedding_models", "register"),
            {"model": model, "dimensions": dimensions, "index": index},
        )
        chunk_embeddings.create_model_index(conn, index, dimensions, model)


def index_name(conn: DictConnection, model: str) -> str | None:
    """The name of the stored model's HNSW index (None: no such model)."""
    row = conn.execute(statement("embedding_models", "index_name"), {"model": model}).fetchone()
    return row["index_name"] if row else None


def forget_model(conn: DictConnection, model: str, index: str) -> None:
    """Drop a model's index and its row (its vectors are deleted first: `drop_model`)."""
    conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(index)))
    conn.execute(statement("embedding_models", "forget"), {"model": model})


def record_model(conn: DictConnection, embedder: Embedder, spec: ModelSpec) -> None:
    """Register the embedder's model (with its HNSW index) and store how to rebuild it."""
    ensure_embedding_model(conn, embedder.model_name, embedder.dimensions)
    conn.execute(
        statement("embedding_models", "record_provider"),
        {
            "provider": spec.provider.value,
            "provider_model": spec.model,
            "provider_dimensions": spec.dimensions,
            "base_url": spec.base_url,
            "model": embedder.model_name,
        },
    )


def choose_model(conn: DictConnection, name: str) -> None:
    """Make the stored model `name` the one new indexing work embeds with, in every process
    (`codeatlas models upgrade`); the environment's model no longer decides."""
    conn.execute(statement("embedding_models", "choose"), {"model": name})


def chosen_model(conn: DictConnection) -> str | None:
    """The model last chosen by `codeatlas models upgrade`, if any."""
    row = conn.execute(statement("embedding_models", "chosen")).fetchone()
    return row["name"] if row else None


def indexing_model(conn: DictConnection, repository: str) -> str | None:
    """The model an index run of `repository` embeds with when a model was chosen in the
    database: the one it is upgrading to, else its active one, else the chosen one. None when no
    model was ever chosen: then the process's environment configures it (`configured_spec`)."""
    chosen = chosen_model(conn)
    if chosen is None:
        return None
    return repositories.indexing_model(conn, repository) or chosen


def stored_spec(conn: DictConnection, name: str) -> ModelSpec | None:
    """How the stored model `name` was made, if recorded."""
    row = conn.execute(statement("embedding_models", "provider"), {"model": name}).fetchone()
    if row is None or row["provider"] is None:
        return None
    return ModelSpec(
        row["provider"], row["provider_model"], row["provider_dimensions"], row["base_url"]
    )


def embedder_for_model(name: str, conn: DictConnection, settings: Settings) -> Embedder:
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


def registered_dimensions(conn: DictConnection, model: str) -> Row | None:
    """The row `dimensions` a model was registered with (None: never registered)."""
    return conn.execute(statement("embedding_models", "dimensions"), {"model": model}).fetchone()


def dimensions_and_scope_size(conn: DictConnection, model: str, repo_ids: list[int]) -> Row | None:
    """The model's `dims` and `n`, the chunks of the repositories' current snapshots, in one
    round trip."""
    return conn.execute(
        statement("embedding_models", "dimensions_and_scope_size"),
        {"model": model, "repo_ids": repo_ids},
    ).fetchone()
