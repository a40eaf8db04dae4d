"""The celery app of codeatlas' workers: `celery -A orchestration.celery_app worker`.

With CODEATLAS_RUN_LAUNCHER=celery the daemon's run queue hands each run, whole, to Dagster's
CeleryRunLauncher, which sends it to the broker (CODEATLAS_CELERY_BROKER_URL); a worker on any
machine takes it and executes it in one of its processes with the job's in-process executor, so
a run's steps still share that process (the loaded model, one connection). Workers need the same
CODEATLAS_* settings as the daemon, a PostgreSQL every machine reaches (CODEATLAS_DATABASE_URL),
and this project installed with the `celery` extra. README, "Scaling out", has the commands.
"""

from __future__ import annotations

from dagster_celery.config import DEFAULT_CONFIG
from dagster_celery.defaults import task_default_queue
from dagster_celery.make_app import make_app
from dagster_celery.tasks import create_execute_job_task, create_resume_job_task

from core.config import load_settings
from core.errors import ConfigurationError
from orchestration.instance import prepare_dagster_home

_settings = load_settings()
if _settings.run_launcher != "celery" or _settings.celery_broker_url is None:
    raise ConfigurationError(
        "a celery worker needs CODEATLAS_RUN_LAUNCHER=celery and CODEATLAS_CELERY_BROKER_URL,"
        ' the same as the daemon\'s (README, "Scaling out")'
    )
# the runs' DagsterInstance.get() reads this DAGSTER_HOME: the daemon's storage and dagster.yaml
prepare_dagster_home(_settings)

# the same app as the launcher's (dagster_celery.launcher.CeleryRunLauncher.app_args)
app = make_app(
    {
        "broker": _settings.celery_broker_url,
        "backend": _settings.celery_broker_url,
        "include": [],
        "config_source": DEFAULT_CONFIG,
        "task_default_queue": task_default_queue,
    }
)
execute_job = create_execute_job_task(app)
resume_job = create_resume_job_task(app)
