"""End to end: push to a real bare repository, a signed webhook over real HTTP, one sensor tick,
the requested run executed, and the pushed function is found by search."""

import httpx
import pytest
from dagster import DagsterInstance, build_sensor_context

from assets.resources import EmbeddingProvider, IndexDatabase
from core.config import load_settings
from core.database import connect
from orchestration.definitions import build_definitions
from orchestration.sensors import webhook_push_sensor
from orchestration.webhooks.app import build_app
from orchestration.webhooks.background import serving
from retrieval.status import repository_status
from tests.orchestration.pushes import (
    count_events,
    headers,
    lexical_hits,
    push_payload,
    pushed_repository,
)


@pytest.fixture
def pushed(settings_env, database_url, tmp_path):
    return pushed_repository(database_url, tmp_path)


def test_a_signed_push_webhook_gets_the_new_function_indexed_and_searchable(pushed, database_url):
    body = push_payload(pushed["origin"], pushed["first"], pushed["second"])
    assert lexical_hits(database_url, "store credit") == []
    definitions = build_definitions(
        IndexDatabase(url=database_url), EmbeddingProvider(provider="fake")
    )
    with (
        serving(build_app(database_url)) as base,
        httpx.Client(base_url=base, timeout=10) as client,
        DagsterInstance.ephemeral() as instance,
    ):
        forged = client.post(
            "/webhooks", content=body, headers=headers(body, "delivery-x", secret="not-the-secret")
        )
        assert forged.status_code == 401
        assert count_events(database_url) == 0

        accepted = client.post("/webhooks", content=body, headers=headers(body, "delivery-1"))
        assert accepted.status_code == 202, accepted.text

        with build_sensor_context(
            instance=instance, resources={"index_db": IndexDatabase(url=database_url)}
        ) as context:
            result = webhook_push_sensor(context)
        [request] = result.run_requests
        assert request.partition_key == f"acme/shop@{pushed['second']}"
        assert request.run_key == "webhook:github:delivery-1"
        for partitions in result.dynamic_partitions_requests:
            instance.add_dynamic_partitions(
                partitions.partitions_def_name, partitions.partition_keys
            )
        run = definitions.resolve_job_def("index_snapshot").execute_in_process(
            instance=instance,
            partition_key=request.partition_key,
            tags={**request.tags, "dagster/run_key": request.run_key},
        )
        assert run.success

        [hit, *_] = lexical_hits(database_url, "store credit")
        assert (hit.path, hit.symbol, hit.commit) == (
            "shop/refunds.py",
            "issue_store_credit",
            pushed["second"],
        )

        again = client.post("/webhooks", content=body, headers=headers(body, "delivery-1"))
        assert again.status_code == 200
        assert again.json()["status"] == "duplicate"
        with build_sensor_context(
            instance=instance,
            cursor=result.cursor,
            resources={"index_db": IndexDatabase(url=database_url)},
        ) as context:
            assert webhook_push_sensor(context).run_requests == []

    assert count_events(database_url) == 1
    with connect(database_url) as conn:
        row = conn.execute("SELECT status, run_key FROM webhook_events").fetchone()
        current = conn.execute(
            "SELECT s.commit_sha FROM repositories r JOIN snapshots s"
            " ON s.id = r.current_snapshot_id WHERE r.name = 'acme/shop'"
        ).fetchone()
    assert (row["status"], row["run_key"]) == ("queued", "webhook:github:delivery-1")
    assert current["commit_sha"] == pushed["second"]

    with connect(database_url) as conn:
        [status] = repository_status(conn, load_settings(), only="acme/shop")
    assert status["current_commit"] == status["branch_head"] == pushed["second"]
    assert (status["lag_commits"], status["lag_seconds"]) == (0, 0)
    assert status["last_push"] is not None
    assert status["last_push_status"] == "queued"
    assert status["pending_pushes"] == 0
