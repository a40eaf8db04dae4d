"""The Dagster instance codeatlas writes: storage on PostgreSQL, no telemetry, no first-visit
modal, no per-step log tail processes, one embedding step at a time, a run queue with limits,
the warm run launcher (or celery's when configured), only the daemons it uses."""

from dagster import DagsterInstance

from core.config import load_settings
from orchestration.instance import prepare_dagster_home
from orchestration.jobs import REPOSITORY_TAG
from orchestration.run_launcher import WarmRunLauncher
from orchestration.runtime.run_tags import PARTITION_TAG


def test_the_instance_is_quiet_and_stores_runs_in_postgresql(settings_env, tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.delenv("CODEATLAS_DAGSTER_STORAGE_URL", raising=False)
    prepare_dagster_home(load_settings())
    with DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert instance.telemetry_enabled is False
        assert instance.nux_enabled is False
        assert type(instance.compute_log_manager).__name__ == "NoOpComputeLogManager"
        assert instance.event_log_storage.get_pool_config().default_pool_limit == 1


def test_runs_queue_one_per_repository_and_backfills_take_half_the_run_slots(
    settings_env, tmp_path, monkeypatch
):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setenv("CODEATLAS_MAX_CONCURRENT_RUNS", "6")
    prepare_dagster_home(load_settings())
    with DagsterInstance.get() as instance:
        queue = instance.get_concurrency_config().run_queue_config
        assert queue is not None
        assert queue.max_concurrent_runs == 6
        assert {
            (t["key"], str(t.get("value")), t["limit"]) for t in queue.tag_concurrency_limits
        } == {
            (REPOSITORY_TAG, "{'applyLimitPerUniqueValue': True}", 1),
            ("dagster/backfill", "None", 3),
        }
        assert isinstance(instance.run_launcher, WarmRunLauncher)


def test_the_daemon_runs_only_the_loops_codeatlas_uses_and_ticks_sensors_in_threads(
    settings_env, tmp_path, monkeypatch
):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    prepare_dagster_home(load_settings())
    with DagsterInstance.get() as instance:
        # no declarative automation or freshness daemon polling beside the ones that do work
        assert sorted(instance.get_required_daemon_types()) == [
            "BACKFILL",
            "QUEUED_RUN_COORDINATOR",
            "SCHEDULER",
            "SENSOR",
        ]
        assert instance.get_sensor_settings() == {"use_threads": True, "num_workers": 2}


def test_the_celery_launcher_sends_runs_to_the_configured_broker(
    settings_env, tmp_path, monkeypatch
):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setenv("CODEATLAS_RUN_LAUNCHER", "celery")
    monkeypatch.setenv("CODEATLAS_CELERY_BROKER_URL", "redis://127.0.0.1:3399/0")
    prepare_dagster_home(load_settings())
    with DagsterInstance.get() as instance:
        launcher = instance.run_launcher
        assert type(launcher).__name__ == "CeleryRunLauncher"
        assert launcher.broker == launcher.backend == "redis://127.0.0.1:3399/0"


def test_the_readme_backfill_line_works_with_only_dagster_home_set(
    settings_env, database_url, tmp_path, monkeypatch
):
    """README, "Scaling out": `DAGSTER_HOME=... dagster job backfill ...` with the usual
    CODEATLAS_* settings and no CODEATLAS_DAGSTER_STORAGE_URL (documented nowhere)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from dagster import RunsFilter

    root = Path(__file__).resolve().parents[2]
    home = tmp_path / "dagster"
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.delenv("CODEATLAS_DAGSTER_STORAGE_URL", raising=False)
    prepare_dagster_home(load_settings())  # as `codeatlas index` or `codeatlas dev` did before
    key = "shop@" + "a" * 40
    with DagsterInstance.get() as instance:
        instance.add_dynamic_partitions("snapshots", [key])
    env = {
        name: value
        for name, value in os.environ.items()
        if name != "CODEATLAS_DAGSTER_STORAGE_URL"  # what prepare_dagster_home exported here
    }
    env["DAGSTER_HOME"] = str(home)
    env["PYTHONPATH"] = str(root)  # this checkout's code, as an install of it would import
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "dagster"),
            "job",
            "backfill",
            "-w",
            "workspace.yaml",
            "-j",
            "index_snapshot",
            "--partitions",
            key,
            "--noprompt",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    os.environ.pop("CODEATLAS_DAGSTER_STORAGE_URL", None)
    with DagsterInstance.get() as instance:
        runs = instance.get_runs(RunsFilter(tags={PARTITION_TAG: key}))
    assert [r.job_name for r in runs] == ["index_snapshot"]
