"""Index real git repositories in tests: register, run the Dagster job, dump the tables."""

from __future__ import annotations

from dagster import DagsterInstance

from assets.resources import EmbeddingProvider, IndexDatabase
from core.config import load_settings
from core.database import connection, transaction
from indexing import repositories
from orchestration.definitions import build_definitions
from orchestration.index_run import index_commit

TABLES = {
    "repositories": "SELECT id, name, origin, default_branch, current_snapshot_id,"
    " active_embedding_model FROM repositories ORDER BY id",
    "snapshots": "SELECT id, repository_id, commit_sha, status, parser_version, stats"
    " FROM snapshots ORDER BY id",
    "file_versions": "SELECT id, blob_sha, language, parser_version, size_bytes,"
    " has_syntax_errors, parsed_at IS NOT NULL AS parsed FROM file_versions ORDER BY id",
    "snapshot_files": "SELECT * FROM snapshot_files ORDER BY snapshot_id, path",
    "code_symbols": "SELECT * FROM code_symbols ORDER BY id",
    "code_chunks": "SELECT id, file_version_id, ordinal, symbol_id, content_hash, start_line,"
    " end_line FROM code_chunks ORDER BY id",
    "code_edges": "SELECT * FROM code_edges ORDER BY file_version_id, ordinal",
    "chunk_embeddings": "SELECT embedding_model, content_hash,"
    " embedding::text AS v FROM chunk_embeddings ORDER BY 1, 2",
}


def register(url: str, name: str, path: str, branch: str = "main") -> None:
    """Register a local repository by name."""
    with transaction(url) as conn:
        repositories.register(conn, name, path, branch)


def run_index(url: str, name: str, sha: str, instance: DagsterInstance | None = None) -> dict:
    """Execute the index job for `name@sha` with the fake embedder; return the run's stats."""
    defs = build_definitions(IndexDatabase(url=url), EmbeddingProvider(provider="fake"))
    return index_commit(
        load_settings(),
        name,
        sha,
        instance=instance or DagsterInstance.ephemeral(),
        definitions=defs,
    )


def dump(url: str) -> dict[str, list[dict]]:
    """Every index table's rows (timestamps left out), to compare two states exactly."""
    with connection(url) as conn:
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}


def snapshot_paths(url: str, name: str, sha: str) -> set[str]:
    """Paths of a snapshot that have chunks."""
    with connection(url) as conn:
        rows = conn.execute(
            "SELECT DISTINCT sf.path FROM snapshot_files sf"
            " JOIN snapshots s ON s.id = sf.snapshot_id"
            " JOIN repositories r ON r.id = s.repository_id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
            " WHERE r.name = %s AND s.commit_sha = %s",
            (name, sha),
        ).fetchall()
        return {r["path"] for r in rows}
