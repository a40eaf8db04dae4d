"""Server limits: defaults for a shared server, overridden by the settings (the environment), a
malformed or negative value refused with the variable's name."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.errors import ConfigurationError
from mcp_app.limits import ServerLimits

VARIABLES = (
    "CODEATLAS_OVERLAY_TTL_HOURS",
    "CODEATLAS_OVERLAY_MAX_FILES",
    "CODEATLAS_OVERLAY_MAX_CHUNKS",
    "CODEATLAS_INDEX_FILE_SECONDS",
    "CODEATLAS_MCP_MAX_CONCURRENT",
    "CODEATLAS_MCP_REQUESTS_PER_MINUTE",
    "CODEATLAS_MCP_FAILED_TOKENS_PER_MINUTE",
    "CODEATLAS_MCP_ALLOWED_HOSTS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_without_settings_the_defaults_apply():
    assert ServerLimits.from_settings(load_settings()) == ServerLimits()


def test_the_environment_overrides_each_limit(monkeypatch):
    monkeypatch.setenv("CODEATLAS_OVERLAY_TTL_HOURS", "0.5")
    monkeypatch.setenv("CODEATLAS_OVERLAY_MAX_FILES", "7")
    monkeypatch.setenv("CODEATLAS_MCP_REQUESTS_PER_MINUTE", " 60 ")
    monkeypatch.setenv("CODEATLAS_MCP_ALLOWED_HOSTS", "atlas.example.com, ,10.0.0.5:8443")
    limits = ServerLimits.from_settings(load_settings())
    assert (limits.overlay_ttl_hours, limits.overlay_max_files) == (0.5, 7)
    assert limits.requests_per_minute == 60
    assert limits.allowed_hosts == ("atlas.example.com", "10.0.0.5:8443")
    assert limits.max_concurrent_requests == ServerLimits().max_concurrent_requests


@pytest.mark.parametrize(
    ("value", "rule"),
    [("ten", "must be a whole number from 1 to 10,000"), ("-1", "must be a whole number")],
)
def test_a_malformed_value_is_refused_naming_the_variable(monkeypatch, value, rule):
    monkeypatch.setenv("CODEATLAS_MCP_MAX_CONCURRENT", value)
    with pytest.raises(ConfigurationError, match=f"CODEATLAS_MCP_MAX_CONCURRENT {rule}"):
        load_settings()
