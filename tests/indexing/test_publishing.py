"""Publishing: a snapshot is ready only when every indexable file is parsed, and current only
when it is the newest commit of its branch."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.database import connection, transaction
from indexing import repositories
from indexing.parse_step import parse_snapshot
from indexing.parse_version import effective_parser_version
from indexing.publishing import SnapshotIncompleteError, publish
from indexing.snapshot_files import record_source_files


def _index(url: str, sha: str, *, parse: bool = True) -> dict:
    settings = load_settings()
    record_source_files(url, settings, "shop", sha)
    if parse:
        parse_snapshot(url, settings, "shop", sha)
    with connection(url) as conn:
        return publish(conn, settings, "shop", sha, effective_parser_version(settings), "fake")


def _current(url: str) -> str:
    with connection(url) as conn:
        row = conn.execute(
            "SELECT s.commit_sha FROM repositories r JOIN snapshots s"
            " ON s.id = r.current_snapshot_id WHERE r.name = 'shop'"
        ).fetchone()
    assert row is not None
    return row["commit_sha"]


@pytest.fixture
def shop(settings_env, database_url, git_repo):
    with transaction(database_url) as conn:
        repositories.register(conn, "shop", str(git_repo.path), "main")
    return git_repo


def test_an_unparsed_snapshot_is_not_published(database_url, shop):
    shop.write("a.py", "def a():\n    pass\n")
    sha = shop.commit()
    with pytest.raises(SnapshotIncompleteError, match="1 files are not parsed yet"):
        _index(database_url, sha, parse=False)


def test_an_older_commit_published_later_does_not_replace_the_current_one(database_url, shop):
    shop.write("a.py", "def a():\n    pass\n")
    older = shop.commit()
    shop.write("b.py", "def b():\n    pass\n")
    newer = shop.commit()

    assert _index(database_url, newer)["current"]
    late = _index(database_url, older)
    assert not late["current"] and late["files"] == 1
    assert _current(database_url) == newer
