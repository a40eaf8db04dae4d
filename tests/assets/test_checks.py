"""The file-list check compares `snapshot_files` with `git ls-tree` run on its own."""

from __future__ import annotations

from assets.checks import compare_with_git, paths_in_git
from core.config import load_settings
from core.database import transaction
from tests.retrieval.indexing import index_repository


def test_git_lists_every_path_of_the_commit_including_ones_the_indexer_skips(git_repo):
    git_repo.write("shop/refunds.py", "def refund():\n    pass\n")
    git_repo.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00")
    git_repo.write("notes with spaces.txt", "hello\n")
    sha = git_repo.commit()
    assert paths_in_git(str(git_repo.path), sha) == {
        "shop/refunds.py",
        "assets/logo.png",
        "notes with spaces.txt",
    }


def test_an_indexed_commit_matches_git_and_a_lost_row_is_named(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", "def refund():\n    pass\n")
    git_repo.write("shop/orders.py", "def order():\n    pass\n")
    git_repo.write("README.md", "# shop\n")
    git_repo.commit()
    sha = index_repository(database_url, git_repo.path, "shop")
    settings = load_settings()

    clean = compare_with_git(database_url, settings, "shop", sha)
    assert clean == {"git": 3, "stored": 3, "missing": [], "unexpected": []}

    with transaction(database_url) as conn:
        conn.execute("DELETE FROM snapshot_files WHERE path = 'shop/orders.py'")
        conn.execute(
            "INSERT INTO snapshot_files (snapshot_id, path, blob_sha, size_bytes, skip_reason)"
            " SELECT snapshot_id, 'ghost.py', blob_sha, 1, 'test' FROM snapshot_files LIMIT 1"
        )
    broken = compare_with_git(database_url, settings, "shop", sha)
    assert broken["missing"] == ["shop/orders.py"]
    assert broken["unexpected"] == ["ghost.py"]
