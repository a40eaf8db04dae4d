"""The `codeatlas` command line, run as a user would: a real process, real repositories."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from core.database import with_database
from orchestration.runtime.run_tags import PARTITION_TAG
from tests.assets.pipeline_helpers import dump

FUNCTION = "def function_{i}(value):\n    return value * {i}\n"


def codeatlas(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the CLI in a subprocess with the test's environment."""
    proc = subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"codeatlas {args} failed:\n{proc.stderr}")
    return proc


def test_indexing_the_same_commit_twice_from_the_cli_leaves_exactly_the_same_rows(
    settings_env, database_url, git_repo
):
    git_repo.write("app/orders.py", FUNCTION.format(i=1) + "\n\n" + FUNCTION.format(i=2))
    git_repo.commit()

    first = codeatlas("index", str(git_repo.path), "--name", "orders")
    assert "indexed orders@" in first.stderr
    before = dump(database_url)
    codeatlas("index", str(git_repo.path), "--name", "orders")

    assert dump(database_url) == before
    assert len(before["snapshots"]) == 1
    assert {s["name"] for s in before["code_symbols"]} == {"function_1", "function_2"}


def test_the_index_run_is_recorded_in_the_dagster_instance_for_the_ui(
    settings_env, database_url, git_repo
):
    git_repo.write("a.py", FUNCTION.format(i=1))
    sha = git_repo.commit()
    codeatlas("index", str(git_repo.path), "--name", "ui-check")

    from dagster import DagsterInstance, RunsFilter

    os.environ["DAGSTER_HOME"] = str(settings_env / "dagster")
    os.environ["CODEATLAS_DAGSTER_STORAGE_URL"] = (
        "postgresql+psycopg2://postgres@/dagster?host="
        + psycopg.conninfo.conninfo_to_dict(database_url)["host"]
    )
    instance = DagsterInstance.get()
    runs = instance.get_runs(RunsFilter(tags={PARTITION_TAG: f"ui-check@{sha}"}))
    assert runs and runs[0].job_name == "index_snapshot"
    assert runs[0].status.value == "SUCCESS"
    assert f"ui-check@{sha}" in instance.get_dynamic_partitions("snapshots")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("index", "/definitely/not/here"), "does not exist"),
        (("index", "/"), "is not a git repository"),
        (("status", "--repo", "nope"), "no repository named 'nope'"),
        (("search", "x", "--repo", "nope"), "no repository named 'nope'"),
        (("serve-mcp", "--stateless"), "--stateless applies to --http only"),
    ],
)
def test_user_errors_print_one_clear_line_and_exit_non_zero(settings_env, args, message):
    proc = codeatlas(*args, check=False)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unreachable_database_is_reported_without_a_traceback(settings_env, monkeypatch):
    monkeypatch.setenv("CODEATLAS_DATABASE_URL", "postgresql://nobody@127.0.0.1:9/none")
    proc = codeatlas("status", check=False)
    assert proc.returncode == 1
    assert "cannot reach PostgreSQL" in proc.stderr and "Traceback" not in proc.stderr


def test_an_unreachable_read_replica_names_its_setting(settings_env, monkeypatch):
    monkeypatch.setenv("CODEATLAS_READ_DATABASE_URL", "postgresql://nobody@127.0.0.1:9/none")
    proc = codeatlas("symbols", "x", "--repo", "shop", check=False)
    assert proc.returncode == 1
    assert "cannot reach the read replica at 127.0.0.1" in proc.stderr
    assert "Unset CODEATLAS_READ_DATABASE_URL" in proc.stderr and "Traceback" not in proc.stderr


def test_a_killed_index_run_resumes_to_exactly_the_rows_of_an_uninterrupted_run(
    settings_env, database_url, pg_server, git_repo, monkeypatch
):
    for i in range(400):
        git_repo.write(f"pkg/mod_{i:03}.py", FUNCTION.format(i=i))
    git_repo.commit()
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeatlas.cli", "index", str(git_repo.path), "--name", "big"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 240
    killed_mid_parse = False
    for line in proc.stderr:
        if "parsed 50/" in line or "parsed 100/" in line:
            proc.send_signal(signal.SIGKILL)
            killed_mid_parse = True
            break
        assert time.monotonic() < deadline, "the index run never reported progress"
    proc.wait(timeout=60)
    assert killed_mid_parse and proc.returncode == -signal.SIGKILL
    parsed = dump(database_url)["file_versions"]
    assert 0 < sum(1 for f in parsed if f["parsed"]) < 400

    codeatlas("index", str(git_repo.path), "--name", "big")
    resumed = dump(database_url)

    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute('CREATE DATABASE "uninterrupted" TEMPLATE "codeatlas_template"')
    monkeypatch.setenv("CODEATLAS_DATABASE_URL", with_database(pg_server, "uninterrupted"))
    codeatlas("index", str(git_repo.path), "--name", "big")
    clean = dump(with_database(pg_server, "uninterrupted"))

    def content(rows: list[dict]) -> list[str]:
        return sorted(
            str(sorted((k, str(v)) for k, v in r.items() if not k.endswith("id"))) for r in rows
        )

    for table in ("code_symbols", "code_chunks", "code_edges", "chunk_embeddings"):
        assert content(resumed[table]) == content(clean[table]), table
    assert len(resumed["snapshot_files"]) == len(clean["snapshot_files"]) == 400
