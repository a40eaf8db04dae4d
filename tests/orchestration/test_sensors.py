"""Sensors: pending pushes become runs (newest per repository), failures retry, local commits."""

import json

import pytest
from dagster import DagsterInstance, SensorResult, build_sensor_context

from assets.resources import IndexDatabase
from core.database import connect, transaction
from indexing import repositories
from orchestration import sensors
from orchestration.sensors import local_commit_sensor, webhook_push_sensor
from tests.conftest import GitRepo


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


def add_event(url: str, repo: str, sha: str, delivery: str, provider: str = "github") -> int:
    with transaction(url) as conn:
        row = conn.execute(
            "INSERT INTO webhook_events (provider, delivery_id, repository, repository_id, event,"
            " ref, after_sha) SELECT %s, %s, name, id, 'push', 'refs/heads/main', %s"
            " FROM repositories WHERE name = %s RETURNING id",
            (provider, delivery, sha, repo),
        ).fetchone()
    return row["id"]


def events(url: str) -> dict[str, dict]:
    with connect(url) as conn:
        rows = conn.execute("SELECT * FROM webhook_events ORDER BY id").fetchall()
    return {r["delivery_id"]: r for r in rows}


def tick(sensor_def, url: str, instance, cursor: str | None = None) -> SensorResult:
    resources = {"index_db": IndexDatabase(url=url)}
    with build_sensor_context(instance=instance, cursor=cursor, resources=resources) as context:
        result = sensor_def(context)
    assert isinstance(result, SensorResult)
    return result


@pytest.fixture
def two_repos(settings_env, database_url, tmp_path):
    shop = GitRepo(tmp_path / "shop")
    shop.write("a.py", "def one():\n    return 1\n")
    first = shop.commit("one")
    shop.write("a.py", "def two():\n    return 2\n")
    second = shop.commit("two")
    blog = GitRepo(tmp_path / "blog")
    blog.write("b.py", "def post():\n    pass\n")
    blog_sha = blog.commit("post")
    with transaction(database_url) as conn:
        repositories.register(conn, "shop", str(shop.path), "main")
        repositories.register(conn, "blog", str(blog.path), "main")
    return {"shop": (shop, first, second), "blog": (blog, blog_sha)}


def test_a_burst_of_pushes_requests_one_run_per_repository_for_its_newest_commit(
    two_repos, database_url, instance
):
    _, first, second = two_repos["shop"]
    _, blog_sha = two_repos["blog"]
    add_event(database_url, "shop", first, "d-1")
    add_event(database_url, "blog", blog_sha, "d-2")
    last = add_event(database_url, "shop", second, "d-3")

    result = tick(webhook_push_sensor, database_url, instance)

    requested = {(r.partition_key, r.run_key) for r in result.run_requests}
    assert requested == {
        (f"shop@{second}", "webhook:github:d-3"),
        (f"blog@{blog_sha}", "webhook:github:d-2"),
    }
    [partitions] = result.dynamic_partitions_requests
    assert set(partitions.partition_keys) == {f"shop@{second}", f"blog@{blog_sha}"}
    assert json.loads(result.cursor) == {"last_event_id": last}
    rows = events(database_url)
    assert rows["d-1"]["status"] == "superseded"
    assert "superseded by event" in rows["d-1"]["detail"]
    assert (rows["d-3"]["status"], rows["d-3"]["run_key"]) == ("queued", "webhook:github:d-3")
    assert rows["d-2"]["status"] == "queued"


def test_a_second_tick_without_new_pushes_requests_nothing_and_keeps_the_cursor(
    two_repos, database_url, instance
):
    _, _, second = two_repos["shop"]
    add_event(database_url, "shop", second, "d-1")
    first_tick = tick(webhook_push_sensor, database_url, instance)
    again = tick(webhook_push_sensor, database_url, instance, cursor=first_tick.cursor)
    assert again.run_requests == []
    assert again.skip_reason is not None
    assert again.cursor == first_tick.cursor


def test_a_commit_that_cannot_be_fetched_is_retried_then_marked_failed(
    two_repos, database_url, instance
):
    add_event(database_url, "shop", "f" * 40, "d-missing")
    cursor = None
    for attempt in range(1, sensors.MAX_ATTEMPTS):
        result = tick(webhook_push_sensor, database_url, instance, cursor)
        cursor = result.cursor
        row = events(database_url)["d-missing"]
        assert (row["status"], row["attempts"]) == ("pending", attempt)
        assert f"fetch attempt {attempt}/{sensors.MAX_ATTEMPTS} failed" in row["detail"]
        assert result.run_requests == []
    tick(webhook_push_sensor, database_url, instance, cursor)
    assert events(database_url)["d-missing"]["status"] == "failed"


def test_a_push_of_the_commit_already_current_starts_no_run(two_repos, database_url, instance):
    from core.config import load_settings
    from indexing.parse_version import effective_parser_version

    _, _, second = two_repos["shop"]
    with transaction(database_url) as conn:
        snap = conn.execute(
            "INSERT INTO snapshots (repository_id, commit_sha, status, parser_version)"
            " SELECT id, %s, 'ready', %s FROM repositories WHERE name = 'shop' RETURNING id",
            (second, effective_parser_version(load_settings())),
        ).fetchone()
        conn.execute(
            "UPDATE repositories SET current_snapshot_id = %s WHERE name = 'shop'", (snap["id"],)
        )
    add_event(database_url, "shop", second, "d-same")
    result = tick(webhook_push_sensor, database_url, instance)
    assert result.run_requests == []
    assert events(database_url)["d-same"]["status"] == "indexed"


def test_the_local_commit_sensor_requests_each_new_head_once(two_repos, database_url, instance):
    shop, _, second = two_repos["shop"]
    _, blog_sha = two_repos["blog"]
    first = tick(local_commit_sensor, database_url, instance)
    assert {r.partition_key for r in first.run_requests} == {f"shop@{second}", f"blog@{blog_sha}"}
    assert json.loads(first.cursor) == {"blog": blog_sha, "shop": second}

    assert tick(local_commit_sensor, database_url, instance, first.cursor).run_requests == []

    shop.write("a.py", "def three():\n    return 3\n")
    third = shop.commit("three")
    moved = tick(local_commit_sensor, database_url, instance, first.cursor)
    assert [(r.partition_key, r.run_key) for r in moved.run_requests] == [
        (f"shop@{third}", f"local:shop@{third}")
    ]


def test_both_sensors_default_to_what_they_should(instance):
    from dagster import DefaultSensorStatus

    assert webhook_push_sensor.default_status == DefaultSensorStatus.RUNNING
    assert local_commit_sensor.default_status == DefaultSensorStatus.STOPPED
