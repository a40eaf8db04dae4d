"""The lifespan context: built once per server run from the configuration, with query embedders
kept per model, a retriever that uses them, and the principal found for each request."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from core.config import load_settings
from core.database import connect
from mcp_app.app_context import (
    AppContext,
    NotAuthenticatedError,
    ServerConfig,
    app_lifespan,
    request_principal,
)


def _in_context(database_url: str, work: Any) -> Any:
    """Run `work(app)` on a worker thread inside the server's lifespan, as a tool would."""
    config = ServerConfig(database_url, load_settings(), principal_name="local")

    async def run() -> Any:
        async with app_lifespan(config)(None) as app:
            return await anyio.to_thread.run_sync(work, app)

    return anyio.run(run)


def _active_model(database_url: str) -> str:
    with connect(database_url) as conn:
        row = conn.execute("SELECT active_embedding_model AS m FROM repositories").fetchone()
    return row["m"]


def test_query_embedders_are_built_once_per_model_and_a_model_without_one_is_skipped(shop_repo):
    model = _active_model(shop_repo.database_url)

    def work(app: AppContext) -> tuple[Any, Any, Any, Any]:
        first, again = app.embedders.embedder_for(model), app.embedders.embedder_for(model)
        vector = app.embedders.embed_query(model, "round money to cents")
        return first is again, vector, app.embedders.embedder_for("no-such-model"), first

    same, vector, missing, embedder = _in_context(shop_repo.database_url, work)
    assert same and embedder is not None and embedder.model_name == model
    assert len(vector) == embedder.dimensions
    assert missing is None


def test_the_retriever_searches_semantically_with_the_servers_embedders(shop_repo):
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    def work(app: AppContext) -> Any:
        with app.database.connection() as conn:
            scope = resolve_scope(conn, ensure_operator(conn), ["shop"])
            return app.retriever.search(
                conn, scope, "round an amount to cents", limit=5, offset=0, mode="semantic"
            )

    report = _in_context(shop_repo.database_url, work)
    assert report.notes == [] and report.hits
    assert all(any(r.startswith("semantic") for r in hit.retrievers) for hit in report.hits)


def test_a_fixed_principal_is_looked_up_and_the_operator_created_on_first_use(database_url):
    from retrieval.principals import PrincipalNotFoundError

    with connect(database_url, autocommit=True) as conn:
        operator = request_principal(conn, "local")
        assert operator.name == "local" and operator.all_repositories
        with pytest.raises(PrincipalNotFoundError):
            request_principal(conn, "nobody")


def test_without_a_fixed_principal_a_request_needs_a_bearer_token(database_url):
    with (
        connect(database_url, autocommit=True) as conn,
        pytest.raises(NotAuthenticatedError, match="send a valid bearer token"),
    ):
        request_principal(conn, None)


def test_an_embedder_not_loaded_while_every_connection_was_busy_is_loaded_later(shop_repo):
    from mcp_app.app_context import QueryEmbedders
    from mcp_app.pool import DatabasePool

    model = _active_model(shop_repo.database_url)
    pool = DatabasePool(shop_repo.database_url, 1, "test", checkout_seconds=0.5)
    embedders = QueryEmbedders(load_settings(), pool)
    try:
        with pool.connection():  # the only connection is taken by another call
            assert embedders.embedder_for(model) is None
        assert embedders.embedder_for(model) is not None
    finally:
        pool.close()
