"""Which provider made each stored model, so a process configured for another one can still
embed queries in the stored model's space."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.config import load_settings
from core.database import transaction
from core.errors import ConfigurationError
from indexing import embedding_registry
from indexing.embedding_registry import ModelSpec


def test_the_configured_spec_follows_the_settings(settings_env, monkeypatch):
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", "16")
    spec = embedding_registry.configured_spec(load_settings())
    assert spec == ModelSpec("fake", None, 16, None)


def test_a_recorded_model_is_rebuilt_even_when_the_environment_configures_another(
    settings_env, database_url
):
    settings = load_settings()
    spec = ModelSpec("fake", dimensions=8)
    embedder = embedding_registry.embedder_for_spec(spec, settings)
    with transaction(database_url) as conn:
        embedding_registry.record_model(conn, embedder, spec)
        assert embedding_registry.stored_spec(conn, embedder.model_name) == spec
        # the environment now configures the 384-dimension fake model
        rebuilt = embedding_registry.embedder_for_model(embedder.model_name, conn, settings)
    assert rebuilt.model_name == embedder.model_name == "fake-hash-8"
    assert rebuilt.embed_query("refund") == embedder.embed_query("refund")


def test_an_unknown_model_with_no_stored_provider_says_how_to_record_one(
    settings_env, database_url
):
    settings = replace(load_settings(), embedding_dimensions=None)
    with (
        transaction(database_url) as conn,
        pytest.raises(ConfigurationError, match="codeatlas models upgrade"),
    ):
        embedding_registry.embedder_for_model("someone-elses-model", conn, settings)
