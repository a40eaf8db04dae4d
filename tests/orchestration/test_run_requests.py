"""Every run request a sensor or schedule can emit is valid config for the job it targets.

The daemon rejects a request whose run config its job does not accept, and the tick fails for
good (the push stays `queued`); this is where that is caught, for every sensor and schedule."""

from datetime import UTC, datetime

import pytest
from dagster import (
    RunRequest,
    SensorResult,
    build_schedule_context,
    build_sensor_context,
    instance_for_test,
    validate_run_config,
)

from assets.resources import EmbeddingProvider, IndexDatabase
from core.database import connect, transaction
from indexing import embedding_registry
from indexing.embedding.fake import FakeEmbedder
from orchestration.definitions import build_definitions
from orchestration.model_upgrade import start_upgrade
from tests.assets.pipeline_helpers import register, run_index
from tests.conftest import GitRepo

NIGHT = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)


@pytest.fixture
def everything_to_do(settings_env, database_url, git_repo: GitRepo):
    """A repository in a state where every sensor and schedule has a run to request: indexed at
    one commit, a newer commit pushed (and a webhook for it pending), a model upgrade started
    while the active model lacks vectors."""
    embedding_registry._cache.clear()
    git_repo.write("cart.py", "def add_item(cart, item):\n    cart.append(item)\n")
    first = git_repo.commit("cart")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    git_repo.write("refunds.py", "def issue_store_credit(order):\n    return order\n")
    second = git_repo.commit("refunds")
    with transaction(database_url) as conn:
        conn.execute(
            "INSERT INTO webhook_events (provider, delivery_id, repository, repository_id, event,"
            " ref, after_sha) SELECT 'github', 'd-1', name, id, 'push', 'refs/heads/main', %s"
            " FROM repositories WHERE name = 'shop'",
            (second,),
        )
    new_model = FakeEmbedder(16)
    with connect(database_url) as conn:
        embedding_registry.record_model(
            conn, new_model, embedding_registry.ModelSpec("fake", None, 16)
        )
        conn.commit()
        assert start_upgrade(conn, new_model.model_name)["upgrading"] == ["shop"]
        # the still-active model lost its vectors (as if a push came during the upgrade): the
        # upgrade sensor requests a run for it besides launching the new model's backfill
        conn.execute("DELETE FROM chunk_embeddings WHERE embedding_model = 'fake-hash-384'")
        conn.commit()
    yield
    embedding_registry._cache.clear()


def requests_of(result) -> list[RunRequest]:
    if isinstance(result, SensorResult):
        return list(result.run_requests or [])
    if isinstance(result, RunRequest):
        return [result]
    return [r for r in result or [] if isinstance(r, RunRequest)]


def test_every_run_request_of_every_sensor_and_schedule_is_valid_for_its_job(
    everything_to_do, database_url
):
    defs = build_definitions(IndexDatabase(url=database_url), EmbeddingProvider(provider="fake"))
    repo = defs.get_repository_def()
    resources = {"index_db": IndexDatabase(url=database_url)}
    emitted: dict[str, list[RunRequest]] = {}
    with instance_for_test() as instance:
        for sensor_def in repo.sensor_defs:
            with build_sensor_context(instance=instance, resources=resources) as context:
                emitted[sensor_def.name] = requests_of(sensor_def(context))
        for schedule_def in repo.schedule_defs:
            with build_schedule_context(
                instance=instance, resources=resources, scheduled_execution_time=NIGHT
            ) as context:
                emitted[schedule_def.name] = requests_of(schedule_def(context))

    # each sensor and schedule had something to request, so each one's config was checked
    assert {name for name, requests in emitted.items() if not requests} == set()
    targets = {s.name: s.job_name for s in repo.sensor_defs}
    targets |= {s.name: s.job_name for s in repo.schedule_defs}
    for name, requests in emitted.items():
        job = defs.resolve_job_def(targets[name])
        for request in requests:
            validate_run_config(job, request.run_config)  # raises DagsterInvalidConfigError
            assert request.partition_key is not None
