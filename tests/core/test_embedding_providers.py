"""The embedding provider is a typed value, read from text in one place, with one clear error
listing the valid names wherever an unknown one is written."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.config import load_settings
from core.embedding_providers import (
    PROVIDER_NAMES,
    Provider,
    UnknownProviderError,
    provider_named,
)
from core.errors import ConfigurationError


def test_the_user_facing_names_stay_local_openai_and_fake():
    assert PROVIDER_NAMES == ("local", "openai", "fake")
    assert provider_named("fake") is Provider.FAKE and Provider.FAKE == "fake"
    assert f"{Provider.OPENAI}" == "openai"  # printed and stored as users write it


def test_an_unknown_provider_names_where_it_was_set_and_the_valid_ones():
    with pytest.raises(UnknownProviderError) as raised:
        provider_named("fak", "CODEATLAS_EMBEDDING_PROVIDER")
    assert isinstance(raised.value, ConfigurationError)
    assert str(raised.value) == (
        "CODEATLAS_EMBEDDING_PROVIDER must be local, openai or fake, got 'fak'"
    )


def test_settings_hold_the_typed_provider_from_the_environment_and_from_replace(monkeypatch):
    monkeypatch.setenv("CODEATLAS_EMBEDDING_PROVIDER", "fake")
    settings = load_settings()
    assert settings.embedding_provider is Provider.FAKE
    assert replace(settings, embedding_provider="openai").embedding_provider is Provider.OPENAI
    with pytest.raises(UnknownProviderError, match="must be local, openai or fake, got 'gpu'"):
        replace(settings, embedding_provider="gpu")
    monkeypatch.delenv("CODEATLAS_EMBEDDING_PROVIDER")
    assert load_settings().embedding_provider is Provider.LOCAL


def test_model_specs_read_from_the_database_or_config_are_typed_and_checked():
    from indexing.embedding_registry import ModelSpec

    assert ModelSpec("fake", dimensions=16).provider is Provider.FAKE
    with pytest.raises(UnknownProviderError, match="got 'torch'"):
        ModelSpec("torch")


def test_the_fake_provider_builds_the_fake_embedder(tmp_path):
    from indexing.embedding.factory import make_embedder
    from indexing.embedding.fake import FakeEmbedder

    settings = replace(
        load_settings(), state_dir=tmp_path, embedding_provider="fake", embedding_dimensions=8
    )
    embedder = make_embedder(settings)
    assert isinstance(embedder, FakeEmbedder)
    assert len(embedder.embed_query("def add(a, b): return a + b")) == 8


def test_the_dagster_resource_names_its_own_field_for_an_unknown_provider():
    from assets.resources import EmbeddingProvider

    assert EmbeddingProvider(provider="fake").spec.provider is Provider.FAKE
    with pytest.raises(UnknownProviderError, match=r"EmbeddingProvider\.provider must be"):
        _ = EmbeddingProvider(provider="fakes").spec
