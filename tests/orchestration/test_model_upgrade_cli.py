"""`codeatlas models upgrade|list|drop` and `codeatlas prune` from the command line."""

import pytest

from codeatlas.cli import main
from codeatlas.core.database import connect
from indexing import embedding_registry
from tests.assets.pipeline_helpers import register, run_index


@pytest.fixture(autouse=True)
def fresh_embedders():
    embedding_registry._cache.clear()


@pytest.fixture
def indexed(settings_env, database_url, git_repo):
    git_repo.write("pay.py", "def refund(order):\n    return order.total\n")
    first = git_repo.commit("one")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    git_repo.write("pay.py", "def refund(order):\n    return -order.total\n")
    second = git_repo.commit("two")
    run_index(database_url, "shop", second)
    return first, second


def models(url: str) -> tuple[str, str | None]:
    with connect(url) as conn:
        row = conn.execute(
            "SELECT active_embedding_model AS a, upgrading_embedding_model AS u FROM repositories"
        ).fetchone()
    return row["a"], row["u"]


def test_models_upgrade_with_wait_backfills_switches_and_the_old_model_can_be_dropped(
    indexed, database_url, monkeypatch, capsys
):
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", "16")
    assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16", "--wait"]) == 0
    assert "shop: embedded" in capsys.readouterr().out
    assert models(database_url) == ("fake-hash-16", None)

    assert main(["models", "list"]) == 0
    listing = capsys.readouterr().out
    assert "fake-hash-16  16 dims  fake:default" in listing and "active in: shop" in listing

    assert main(["models", "drop", "fake-hash-16"]) == 1
    assert "still active" in capsys.readouterr().err
    assert main(["models", "drop", "fake-hash-384"]) == 0
    with connect(database_url) as conn:
        left = conn.execute("SELECT DISTINCT embedding_model AS m FROM chunk_embeddings")
        assert [r["m"] for r in left] == ["fake-hash-16"]


def test_models_upgrade_refuses_a_model_the_environment_does_not_configure(
    indexed, database_url, capsys
):
    assert main(["models", "upgrade", "--provider", "fake", "--dimensions", "16"]) == 1
    err = capsys.readouterr().err
    assert "CODEATLAS_EMBEDDING_PROVIDER=fake" in err
    assert models(database_url) == ("fake-hash-384", None)


def test_prune_keeps_the_newest_snapshots_and_the_current_one(indexed, database_url, capsys):
    first, second = indexed
    assert main(["prune", "--keep", "1", "--dry-run"]) == 0
    assert "would delete 1 snapshots" in capsys.readouterr().out
    assert main(["prune", "--keep", "1"]) == 0
    with connect(database_url) as conn:
        shas = [r["commit_sha"] for r in conn.execute("SELECT commit_sha FROM snapshots")]
        orphans = conn.execute(
            "SELECT count(*) AS n FROM file_versions fv WHERE NOT EXISTS"
            " (SELECT 1 FROM snapshot_files sf WHERE sf.file_version_id = fv.id)"
        ).fetchone()
    assert shas == [second]
    assert orphans["n"] == 0
