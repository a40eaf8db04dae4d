"""The embedding providers: one typed name, read from text in one place (`provider_named`).

The values are what users write (`CODEATLAS_EMBEDDING_PROVIDER`, `codeatlas models upgrade
--provider`, the `EmbeddingProvider` resource's config, the `embedding_models` table), so a
provider is still spelled `fake` there; the code compares members, never strings.
"""

from __future__ import annotations

from enum import StrEnum

from core.errors import ConfigurationError


class Provider(StrEnum):
    """Who computes the vectors."""

    LOCAL = "local"  # the packaged model on this machine (int8 CTranslate2 or torch)
    OPENAI = "openai"  # any OpenAI-compatible endpoint
    FAKE = "fake"  # deterministic hashed words: for tests and benchmarks of everything else


PROVIDER_NAMES = tuple(p.value for p in Provider)


class UnknownProviderError(ConfigurationError):
    """An embedding provider codeatlas does not have."""


def provider_named(name: str, where: str = "the embedding provider") -> Provider:
    """The provider called `name`, or an error naming where it was set and the valid names."""
    try:
        return Provider(name)
    except ValueError:
        valid = ", ".join(PROVIDER_NAMES[:-1]) + f" or {PROVIDER_NAMES[-1]}"
        raise UnknownProviderError(f"{where} must be {valid}, got {name!r}") from None
