"""The Dagster instance codeatlas writes: storage on PostgreSQL, no telemetry, no first-visit
modal, no per-step log tail processes, one embedding step at a time."""

from dagster import DagsterInstance
from dagster._core.storage.noop_compute_log_manager import NoOpComputeLogManager

from codeatlas.core.config import load_settings
from orchestration.instance import prepare_dagster_home


def test_the_instance_is_quiet_and_stores_runs_in_postgresql(settings_env, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.delenv("CODEATLAS_DAGSTER_STORAGE_URL", raising=False)
    prepare_dagster_home(load_settings())
    with DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert instance.telemetry_enabled is False
        assert instance.nux_enabled is False
        assert isinstance(instance.compute_log_manager, NoOpComputeLogManager)
        assert instance.event_log_storage.get_pool_config().default_pool_limit == 1
