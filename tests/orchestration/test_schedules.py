"""The nightly schedule requests runs only where the index is missing, behind or outdated."""

from datetime import UTC, datetime

import pytest
from dagster import build_schedule_context, instance_for_test

from assets.resources import IndexDatabase
from core.config import load_settings
from core.database import transaction
from indexing import repositories
from indexing.parse_version import effective_parser_version
from orchestration.schedules import nightly_freshness
from tests.conftest import GitRepo

NIGHT = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)


@pytest.fixture
def instance():
    with instance_for_test() as inst:
        yield inst


def evaluate(url: str, instance):
    with build_schedule_context(
        instance=instance,
        scheduled_execution_time=NIGHT,
        resources={"index_db": IndexDatabase(url=url)},
    ) as context:
        return nightly_freshness(context)


def make_current(url: str, name: str, sha: str, parser: str) -> None:
    with transaction(url) as conn:
        snap = conn.execute(
            "INSERT INTO snapshots (repository_id, commit_sha, status, parser_version)"
            " SELECT id, %s, 'ready', %s FROM repositories WHERE name = %s RETURNING id",
            (sha, parser, name),
        ).fetchone()
        conn.execute(
            "UPDATE repositories SET current_snapshot_id = %s WHERE name = %s", (snap["id"], name)
        )


@pytest.fixture
def repos(settings_env, database_url, tmp_path):
    made = {}
    for name in ("fresh", "behind", "old-parser", "never"):
        repo = GitRepo(tmp_path / name)
        repo.write("m.py", f"def {name.replace('-', '_')}():\n    pass\n")
        made[name] = [repo.commit("first")]
    with transaction(database_url) as conn:
        for name in made:
            repositories.register(conn, name, str(tmp_path / name), "main")
    parser = effective_parser_version(load_settings())
    make_current(database_url, "fresh", made["fresh"][0], parser)
    make_current(database_url, "behind", made["behind"][0], parser)
    make_current(database_url, "old-parser", made["old-parser"][0], "0-old")
    behind = GitRepo.__new__(GitRepo)
    behind.path = tmp_path / "behind"
    behind.write("m.py", "def behind_again():\n    pass\n")
    made["behind"].append(behind.commit("second"))
    return made


def test_the_nightly_schedule_requests_runs_for_missing_behind_and_outdated_snapshots(
    repos, database_url, instance
):
    requests = evaluate(database_url, instance)
    by_key = {r.partition_key: r for r in requests}
    assert set(by_key) == {
        f"behind@{repos['behind'][1]}",
        f"old-parser@{repos['old-parser'][0]}",
        f"never@{repos['never'][0]}",
    }
    assert by_key[f"never@{repos['never'][0]}"].tags["codeatlas/reason"] == "never indexed"
    assert "behind branch head" in by_key[f"behind@{repos['behind'][1]}"].tags["codeatlas/reason"]
    assert (
        "parser is now" in by_key[f"old-parser@{repos['old-parser'][0]}"].tags["codeatlas/reason"]
    )
    assert all(r.run_key == f"nightly:2026-03-01:{r.partition_key}" for r in requests)
    # the partitions exist, so the daemon can launch the runs
    assert set(instance.get_dynamic_partitions("snapshots")) >= set(by_key)


def test_the_same_night_evaluated_twice_gives_the_same_run_keys(repos, database_url, instance):
    first = {r.run_key for r in evaluate(database_url, instance)}
    second = {r.run_key for r in evaluate(database_url, instance)}
    assert first == second


def test_missing_vectors_for_the_active_model_are_outdated_too(repos, database_url, instance):
    with transaction(database_url) as conn:
        conn.execute(
            "INSERT INTO embedding_models (name, dimensions, index_name) VALUES ('m1', 8, 'ix_m1')"
        )
        conn.execute("UPDATE repositories SET active_embedding_model = 'm1' WHERE name = 'fresh'")
        snap = conn.execute(
            "SELECT current_snapshot_id AS id FROM repositories WHERE name = 'fresh'"
        ).fetchone()
        fv = conn.execute(
            "INSERT INTO file_versions (repository_id, blob_sha, language, parser_version,"
            " size_bytes, parsed_at) SELECT id, 'abc', 'python', 'x', 1, now() FROM repositories"
            " WHERE name = 'fresh' RETURNING id"
        ).fetchone()
        conn.execute(
            "INSERT INTO snapshot_files (snapshot_id, path, blob_sha, language,"
            " size_bytes, file_version_id) VALUES (%s, 'm.py', 'abc', 'python', 1, %s)",
            (snap["id"], fv["id"]),
        )
        conn.execute(
            "INSERT INTO code_chunks (file_version_id, ordinal, symbol_kind, start_line,"
            " end_line, start_byte, end_byte, content_hash)"
            " VALUES (%s, 0, 'file', 1, 1, 0, 1, 'h1')",
            (fv["id"],),
        )
        conn.execute(
            "INSERT INTO chunk_text_pages (file_version_id, page, texts) VALUES (%s, 0, '{x}')",
            (fv["id"],),
        )
    requests = evaluate(database_url, instance)
    fresh = [r for r in requests if r.partition_key.startswith("fresh@")]
    assert [r.tags["codeatlas/reason"] for r in fresh] == ["1 of 1 chunk contents lack m1 vectors"]


def test_when_everything_is_current_the_schedule_skips(
    settings_env, database_url, instance, git_repo
):
    git_repo.write("m.py", "x = 1\n")
    sha = git_repo.commit()
    with transaction(database_url) as conn:
        repositories.register(conn, "only", str(git_repo.path), "main")
    make_current(database_url, "only", sha, effective_parser_version(load_settings()))
    result = evaluate(database_url, instance)
    assert result.skip_message == "every repository is current"
