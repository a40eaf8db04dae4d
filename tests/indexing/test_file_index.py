"""The one write path of a file: a blob is parsed and stored once per parser version, whether
it comes from a commit or from an agent's working tree."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.database import connection, transaction
from indexing import repositories, storage
from indexing.file_index import store_file_version

SOURCE = b"def approve_refund(order):\n    return order.total < 100\n"


@pytest.fixture
def repository_id(settings_env, database_url) -> int:
    with transaction(database_url) as conn:
        return repositories.register(conn, "shop", "/nowhere/shop", "main").id


def _store(url: str, repository_id: int, content: bytes = SOURCE, **kw):
    with transaction(url) as conn:
        return store_file_version(
            conn,
            repository_id,
            "shop/refunds.py",
            storage.git_blob_sha(content),
            "python",
            content,
            "test-version",
            load_settings(),
            **kw,
        )


def _symbols(url: str) -> list[str]:
    with connection(url) as conn:
        return [r["name"] for r in conn.execute("SELECT name FROM code_symbols").fetchall()]


def test_a_new_blob_is_parsed_and_stored_with_its_symbols(database_url, repository_id):
    file_version_id, parsed = _store(database_url, repository_id)
    assert parsed is not None and [s.name for s in parsed.symbols] == ["approve_refund"]
    assert _symbols(database_url) == ["approve_refund"]
    with connection(database_url) as conn:
        row = conn.execute(
            "SELECT parsed_at IS NOT NULL AS parsed FROM file_versions WHERE id = %s",
            (file_version_id,),
        ).fetchone()
    assert row == {"parsed": True}


def test_the_same_blob_again_is_not_parsed_twice(database_url, repository_id):
    first_id, _ = _store(database_url, repository_id)
    again_id, parsed = _store(database_url, repository_id)
    assert (again_id, parsed) == (first_id, None)
    assert _symbols(database_url) == ["approve_refund"]


def test_a_parse_refused_by_the_caller_stores_nothing(database_url, repository_id):
    def refuse(parsed):
        raise ValueError(f"{len(parsed.chunks)} chunks is too many")

    with pytest.raises(ValueError, match="too many"):
        _store(database_url, repository_id, accept=refuse)
    with connection(database_url) as conn:
        assert conn.execute("SELECT count(*) AS n FROM file_versions").fetchone() == {"n": 0}
    assert _symbols(database_url) == []
