"""Settings: where state lives by default, and invalid values as one clear line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.config import environment_variable, load_settings, parse_listen, redacted_url
from core.errors import ConfigurationError


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG_DATA_HOME is Linux's")
def test_the_default_state_dir_is_the_users_data_dir_whatever_the_working_directory(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("CODEATLAS_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    seen = []
    for folder in ("project", "elsewhere"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        seen.append(load_settings())
    assert {s.state_dir for s in seen} == {tmp_path / "xdg" / "codeatlas"}
    assert seen[0].state_dir_from == "default"


def test_codeatlas_state_dir_still_chooses_the_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEATLAS_STATE_DIR", str(tmp_path / "mine"))
    settings = load_settings()
    assert settings.state_dir == tmp_path / "mine"
    assert settings.state_dir_from == "CODEATLAS_STATE_DIR"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CODEATLAS_EMBEDDING_DIMENSIONS", "abc", "must be a whole number from 1 to 16,000"),
        ("CODEATLAS_EMBEDDING_DIMENSIONS", "-3", "must be a whole number from 1 to 16,000"),
        ("CODEATLAS_MAX_FILE_BYTES", "1e6", "must be a whole number from 1 to 1,000,000,000"),
        ("CODEATLAS_RUN_WAIT_SECONDS", "soon", "must be a whole number from 0 to 604,800"),
        ("CODEATLAS_OVERLAY_TTL_HOURS", "nan", "must be a number more than 0 and at most 8784"),
        ("CODEATLAS_EMBEDDING_PROVIDER", "sentence-transformers", "must be local, openai or fake"),
    ],
)
def test_a_bad_number_is_one_line_naming_the_variable_without_a_traceback(
    tmp_path, name, value, message
):
    env = {"PATH": "/usr/bin:/bin", "CODEATLAS_STATE_DIR": str(tmp_path), name: value}
    proc = subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"codeatlas: error: {name} {message}, got {value!r}"


def test_a_number_is_read_and_an_unset_one_keeps_its_default(monkeypatch):
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", " 256 ")
    monkeypatch.setenv("CODEATLAS_RUN_WAIT_SECONDS", "0")
    monkeypatch.delenv("CODEATLAS_CHUNK_MAX_TOKENS", raising=False)
    settings = load_settings()
    assert (settings.embedding_dimensions, settings.run_wait_seconds) == (256, 0)
    assert settings.chunk_max_tokens == 256


def test_listen_addresses_name_the_option_they_came_from():
    assert parse_listen("[::1]:8765", "--http") == ("::1", 8765)
    assert parse_listen(":9000") == ("127.0.0.1", 9000)
    with pytest.raises(ConfigurationError, match="^--http wants HOST:PORT, got 'localhost'$"):
        parse_listen("localhost", "--http")
    with pytest.raises(ConfigurationError, match="^--listen wants HOST:PORT"):
        parse_listen("host:70000")


def test_printed_database_urls_never_show_the_password():
    assert redacted_url("postgresql://app:s3cret@db:5432/codeatlas") == (
        "postgresql://app:***@db:5432/codeatlas"
    )
    assert redacted_url("postgresql://app@db/codeatlas") == "postgresql://app@db/codeatlas"


def test_the_default_never_depends_on_a_dot_state_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("CODEATLAS_STATE_DIR", raising=False)
    (tmp_path / ".state").mkdir()
    monkeypatch.chdir(tmp_path)
    assert not load_settings().state_dir.is_relative_to(Path(tmp_path))


def test_the_celery_launcher_without_a_broker_says_which_variable_to_set(monkeypatch):
    monkeypatch.setenv("CODEATLAS_RUN_LAUNCHER", "celery")
    monkeypatch.delenv("CODEATLAS_CELERY_BROKER_URL", raising=False)
    with pytest.raises(ConfigurationError, match="needs CODEATLAS_CELERY_BROKER_URL"):
        load_settings()
    monkeypatch.setenv("CODEATLAS_RUN_LAUNCHER", "kubernetes")
    with pytest.raises(ConfigurationError, match="must be warm or celery, got 'kubernetes'"):
        load_settings()
    monkeypatch.setenv("CODEATLAS_RUN_LAUNCHER", "celery")
    monkeypatch.setenv("CODEATLAS_CELERY_BROKER_URL", "redis://broker:6379/0")
    settings = load_settings()
    assert (settings.run_launcher, settings.celery_broker_url) == (
        "celery",
        "redis://broker:6379/0",
    )


NEW_VARIABLES = (
    "CODEATLAS_LOCAL_RUNTIME",
    "CODEATLAS_GIT_TOKEN",
    "CODEATLAS_GIT_USERNAME",
    "CODEATLAS_SECRET_KEY",
    "CODEATLAS_DAGSTER_STORAGE_URL",
    "CODEATLAS_PRINCIPAL",
    "CODEATLAS_OVERLAY_TTL_HOURS",
    "CODEATLAS_OVERLAY_MAX_FILES",
    "CODEATLAS_OVERLAY_MAX_CHUNKS",
    "CODEATLAS_INDEX_FILE_SECONDS",
    "CODEATLAS_MCP_MAX_CONCURRENT",
    "CODEATLAS_MCP_REQUESTS_PER_MINUTE",
    "CODEATLAS_MCP_FAILED_TOKENS_PER_MINUTE",
    "CODEATLAS_MCP_ALLOWED_HOSTS",
)


def test_unset_variables_keep_the_defaults_they_had_where_they_were_read(monkeypatch):
    for name in NEW_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    settings = load_settings()
    assert (settings.local_runtime, settings.git_credentials) == ("ct2", None)
    assert (settings.secret_key, settings.dagster_storage_url, settings.principal) == (
        None,
        None,
        None,
    )
    assert (settings.overlay_ttl_hours, settings.overlay_max_files) == (24.0, 200)
    assert (settings.overlay_max_chunks, settings.index_file_seconds) == (3000, 4.5)
    assert (settings.mcp_max_concurrent, settings.mcp_requests_per_minute) == (4, 300)
    assert (settings.mcp_failed_tokens_per_minute, settings.mcp_allowed_hosts) == (20, ())


def test_every_variable_read_outside_settings_before_is_a_field_now(monkeypatch):
    values = {
        "CODEATLAS_LOCAL_RUNTIME": "torch",
        "CODEATLAS_GIT_TOKEN": "t0ken",
        "CODEATLAS_GIT_USERNAME": "ci",
        "CODEATLAS_SECRET_KEY": "a-long-random-key",
        "CODEATLAS_DAGSTER_STORAGE_URL": "postgresql+psycopg2://db/dagster",
        "CODEATLAS_PRINCIPAL": "ci-bot",
        "CODEATLAS_OVERLAY_TTL_HOURS": "0.5",
        "CODEATLAS_OVERLAY_MAX_FILES": "7",
        "CODEATLAS_OVERLAY_MAX_CHUNKS": "90",
        "CODEATLAS_INDEX_FILE_SECONDS": "0",
        "CODEATLAS_MCP_MAX_CONCURRENT": "16",
        "CODEATLAS_MCP_REQUESTS_PER_MINUTE": " 60 ",
        "CODEATLAS_MCP_FAILED_TOKENS_PER_MINUTE": "3",
        "CODEATLAS_MCP_ALLOWED_HOSTS": "atlas.example.com, ,10.0.0.5:8443",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    assert (settings.local_runtime, settings.git_credentials) == ("torch", ("ci", "t0ken"))
    assert settings.secret_key == "a-long-random-key"
    assert settings.dagster_storage_url == "postgresql+psycopg2://db/dagster"
    assert settings.principal == "ci-bot"
    assert (settings.overlay_ttl_hours, settings.overlay_max_files) == (0.5, 7)
    assert (settings.overlay_max_chunks, settings.index_file_seconds) == (90, 0.0)
    assert (settings.mcp_max_concurrent, settings.mcp_requests_per_minute) == (16, 60)
    assert settings.mcp_failed_tokens_per_minute == 3
    assert settings.mcp_allowed_hosts == ("atlas.example.com", "10.0.0.5:8443")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CODEATLAS_LOCAL_RUNTIME", "gpu", "must be ct2 or torch"),
        ("CODEATLAS_OVERLAY_MAX_FILES", "many", "must be a whole number from 1 to 1,000,000"),
        ("CODEATLAS_INDEX_FILE_SECONDS", "-1", "must be a number at least 0 and at most 600"),
    ],
)
def test_a_bad_value_of_a_new_field_names_its_variable(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=f"^{name} {message}, got {value!r}$"):
        load_settings()


def test_a_variable_named_on_the_command_line_is_read_through_the_settings_module(monkeypatch):
    monkeypatch.setenv("MY_WEBHOOK_SECRET", "s3cret-value")
    monkeypatch.delenv("MY_UNSET_SECRET", raising=False)
    assert environment_variable("MY_WEBHOOK_SECRET") == "s3cret-value"
    assert environment_variable("MY_UNSET_SECRET") == ""


OVERLAY_TTL = "must be a number more than 0 and at most 8784"
WHOLE = "must be a whole number from 1 to 1,000,000"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        # nan and inf parse as floats: an overlay kept nan hours failed every index_file, and
        # 0 hours answered success for a file no call could see
        ("CODEATLAS_OVERLAY_TTL_HOURS", "nan", OVERLAY_TTL),
        ("CODEATLAS_OVERLAY_TTL_HOURS", "inf", OVERLAY_TTL),
        ("CODEATLAS_OVERLAY_TTL_HOURS", "-inf", OVERLAY_TTL),
        ("CODEATLAS_OVERLAY_TTL_HOURS", "0", OVERLAY_TTL),
        ("CODEATLAS_OVERLAY_TTL_HOURS", "9000", OVERLAY_TTL),
        ("CODEATLAS_INDEX_FILE_SECONDS", "NaN", "must be a number at least 0 and at most 600"),
        ("CODEATLAS_REQUEST_SECONDS", "0", "must be a number more than 0 and at most 3600"),
        ("CODEATLAS_REQUEST_SECONDS", "infinity", "must be a number more than 0 and at most 3600"),
        ("CODEATLAS_REQUEST_MEMORY_MB", "0", "must be a number more than 0 and at most 65536"),
        (
            "CODEATLAS_REQUEST_MEMORY_MB",
            "nan",
            "must be a number more than 0 and at most 65536",
        ),
        ("CODEATLAS_OVERLAY_MAX_FILES", "1e3", WHOLE),
        ("CODEATLAS_OVERLAY_MAX_CHUNKS", "0", WHOLE),
        ("CODEATLAS_MCP_MAX_CONCURRENT", "nan", "must be a whole number from 1 to 10,000"),
        ("CODEATLAS_MCP_REQUESTS_PER_MINUTE", "0", "must be a whole number from 1 to 100,000,000"),
        ("CODEATLAS_MCP_FAILED_TOKENS_PER_MINUTE", "-5", WHOLE),
        ("CODEATLAS_OPENAI_BATCH_SIZE", "99999999", "must be a whole number from 1 to 10,000"),
        ("CODEATLAS_PARSE_WORKERS", "100000", "must be a whole number from 0 to 1,024"),
        ("CODEATLAS_SERVER_IDLE_SECONDS", "-1", "must be a whole number from 0 to 604,800"),
    ],
)
def test_every_numeric_setting_must_be_finite_and_in_its_range(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=f"^{name} {message}, got {value!r}$"):
        load_settings()


def test_the_edges_of_a_range_are_accepted(monkeypatch):
    monkeypatch.setenv("CODEATLAS_OVERLAY_TTL_HOURS", "8784")
    monkeypatch.setenv("CODEATLAS_REQUEST_SECONDS", "0.5")
    monkeypatch.setenv("CODEATLAS_REQUEST_MEMORY_MB", "64")
    monkeypatch.setenv("CODEATLAS_OVERLAY_MAX_FILES", "1000000")
    monkeypatch.setenv("CODEATLAS_RUN_WAIT_SECONDS", "0")
    settings = load_settings()
    assert (settings.overlay_ttl_hours, settings.request_seconds) == (8784, 0.5)
    assert settings.request_memory_mb == 64
    assert (settings.overlay_max_files, settings.run_wait_seconds) == (1_000_000, 0)
