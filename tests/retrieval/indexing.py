"""Test helpers: index a real git repository through the pipeline's own step functions, and
fetch the eval corpus (cached between runs)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any


def index_repository(
    database_url: str,
    repo_path: Path,
    name: str,
    *,
    embedder: Any | None = None,
    branch: str = "main",
) -> str:
    """Register, list, parse, publish (and embed, given an embedder) HEAD; return its sha."""
    from core.config import load_settings
    from core.database import connection, transaction
    from indexing import repositories
    from indexing.embedding_step import embed_snapshot
    from indexing.parse_step import parse_snapshot
    from indexing.parse_version import effective_parser_version
    from indexing.publishing import publish
    from indexing.snapshot_files import record_source_files

    settings = load_settings()
    sha = subprocess.run(
        ["git", "-C", str(repo_path), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with transaction(database_url) as conn:
        repositories.register(conn, name, str(repo_path), branch)
    record_source_files(database_url, settings, name, sha)
    parse_snapshot(database_url, settings, name, sha)
    model = embedder.model_name if embedder is not None else "none"
    with connection(database_url) as conn:
        publish(conn, settings, name, sha, effective_parser_version(settings), model)
    if embedder is not None:
        embed_snapshot(database_url, name, sha, embedder)
    return sha


def fake_embedder() -> Any:
    """The pipeline's deterministic fake embedder."""
    from indexing.embedding.fake import FakeEmbedder

    return FakeEmbedder(dimensions=384)


def eval_corpus_repo(tmp_path: Path) -> Path:
    """A git repository of the eval corpus (fetched once into the test cache)."""
    from benchmarks.guard import cached_corpus

    corpus = cached_corpus()
    repo = tmp_path / "corpus"
    shutil.copytree(corpus, repo)
    for args in (
        ["init", "-q", "-b", "main"],
        ["-c", "user.email=eval@example.com", "-c", "user.name=Eval", "add", "-A"],
        [
            "-c",
            "user.email=eval@example.com",
            "-c",
            "user.name=Eval",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "-m",
            "eval corpus",
        ],
    ):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return repo
