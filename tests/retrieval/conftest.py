"""Fixtures: a small real repository indexed through the pipeline (real git, real tree-sitter,
real PostgreSQL, fake embedder), and the operator's scope over it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.retrieval import sample_code
from tests.retrieval.indexing import fake_embedder, index_repository


@dataclass
class IndexedRepo:
    """A repository indexed at `sha` in the test database."""

    database_url: str
    name: str
    sha: str
    path: Path


@pytest.fixture
def shop_repo(settings_env: Path, database_url: str, git_repo) -> IndexedRepo:
    """The sample shop repository, committed and indexed with the fake embedder."""
    git_repo.write("shop/billing.py", sample_code.BILLING)
    git_repo.write("shop/money.py", sample_code.MONEY)
    git_repo.write("shop/shipping.py", sample_code.long_function())
    sha = git_repo.commit("shop")
    index_repository(database_url, git_repo.path, "shop", embedder=fake_embedder())
    return IndexedRepo(database_url, "shop", sha, git_repo.path)


@pytest.fixture
def conn(shop_repo: IndexedRepo):
    """An autocommit connection to the test database."""
    from core.database import connect

    connection = connect(shop_repo.database_url, autocommit=True)
    yield connection
    connection.close()


@pytest.fixture
def operator_scope(conn, shop_repo: IndexedRepo):
    """The operator principal's scope over the shop repository."""
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    return resolve_scope(conn, ensure_operator(conn), [shop_repo.name])
