"""The localisation corpora indexed by `codeatlas index --ref <release tag>` into one benchmark
database per embedder: one repository per project, one snapshot per release. File versions are
keyed by (repository, blob), so a file unchanged between two releases is parsed and embedded
once (`index_cost` reports how much the releases share)."""

from __future__ import annotations

import re
import sys
import time

from benchmarks.workspace import database
from lab.indexer import run_index
from lab.loc_corpora import project_repo, release_commit, releases_of, tag


def database_name(provider: str) -> str:
    """The localisation benchmark's database for an embedder spec (`fake`, `local`,
    `local:bge-small-en-v1.5` -> bench_loc_local_bge_small_en_v1_5)."""
    return "bench_loc_" + re.sub(r"[^a-z0-9]+", "_", provider.lower())


def snapshot_status(url: str, project: str, sha: str, model: str | None) -> str | None:
    """Why `project@sha` must be (re)indexed, or None when one of its ready snapshots is current
    (`lab.quality.index_status` for a repository of several releases)."""
    from lab.quality import index_status

    return index_status(url, project, sha, model, current=False)


def ensure_indexed(
    projects: list[str], provider: str, model: str | None, *, log=sys.stderr
) -> tuple[str, list[dict]]:
    """Every pinned release of the projects indexed (only what is missing); the database URL
    and one record per snapshot indexed in this call."""
    url = database(database_name(provider), fresh=False)
    done: list[dict] = []
    for project in projects:
        repo = project_repo(project)
        for release in releases_of(project):
            sha = release_commit(project, release)
            if sha is None:  # project_repo just committed and tagged every release
                raise RuntimeError(f"{project} {release}: no tag {tag(release)} in {repo}")
            why = snapshot_status(url, project, sha, model)
            if why is None:
                continue
            print(
                f"[loc] {time.strftime('%H:%M:%S')} indexing {project} {release} ({why})",
                file=log,
                flush=True,
            )
            stats = run_index(repo, project, url, provider, ref=tag(release))
            stats["release"] = release
            done.append(stats)
            print(
                f"[loc] {time.strftime('%H:%M:%S')} {project} {release}: {stats['files']} files,"
                f" {stats['chunks']} chunks in {stats['wall_seconds']} s",
                file=log,
                flush=True,
            )
    return url, done


def copy_with_vectors(server: str, source: str, target: str, embedder, *, log=sys.stderr) -> str:
    """The database `target`: a copy of `source` (parses, symbols, call graph and postings do
    not depend on the embedding model) whose every ready snapshot is embedded with `embedder`,
    the model each repository then searches with. A fine-tuned model's localisation figures
    without re-indexing the releases. A rerun embeds only what is missing, so an interrupted
    one resumes. Returns the URL of `target`."""
    import psycopg

    from benchmarks.workspace import database
    from core.database import connection
    from indexing.embedding_step import embed_snapshot
    from indexing.model_switch import adopt_configured_model, try_switch

    with psycopg.connect(server, autocommit=True) as conn:
        exists = "SELECT 1 FROM pg_database WHERE datname = %s"
        if not conn.execute(exists, (target,)).fetchone():
            if not conn.execute(exists, (source,)).fetchone():
                raise SystemExit(
                    f"no database {source} to copy: index the releases first"
                    " (python -m lab.loc --embedder local)"
                )
            print(f"[loc] copying {source} -> {target}", file=log, flush=True)
            try:
                conn.execute(f'CREATE DATABASE "{target}" TEMPLATE "{source}"')
            except psycopg.errors.ObjectInUse as e:  # PostgreSQL copies only an idle database
                raise SystemExit(
                    f"cannot copy {source} while it is in use ({e.diag.message_detail}):"
                    " let the benchmark or server using it finish, then run again"
                ) from e
    url = database(target, fresh=False)
    with connection(url) as conn:
        ready = conn.execute(
            "SELECT r.name, s.commit_sha FROM snapshots s"
            " JOIN repositories r ON r.id = s.repository_id"
            " WHERE s.status = 'ready' ORDER BY r.name, s.id"
        ).fetchall()
    for row in ready:
        done = embed_snapshot(url, row["name"], row["commit_sha"], embedder)
        print(
            f"[loc] {time.strftime('%H:%M:%S')} {row['name']} {row['commit_sha'][:8]}:"
            f" {done.get('embedded', 0)} chunks embedded",
            file=log,
            flush=True,
        )
    with connection(url) as conn:
        for name in dict.fromkeys(row["name"] for row in ready):
            adopt_configured_model(conn, name, embedder.model_name)
            try_switch(conn, name, every_snapshot=True)
    return url


def index_cost(url: str, project: str) -> dict:
    """Files listed over all snapshots of a project against file versions stored: the share
    content addressing saves."""
    from core.database import connection

    with connection(url) as conn:
        row = conn.execute(
            "SELECT count(DISTINCT s.id) AS snapshots, count(*) AS listed,"
            " count(DISTINCT sf.file_version_id) AS stored FROM repositories r"
            " JOIN snapshots s ON s.repository_id = r.id AND s.status = 'ready'"
            " JOIN snapshot_files sf ON sf.snapshot_id = s.id"
            " WHERE r.name = %s AND sf.file_version_id IS NOT NULL",
            (project,),
        ).fetchone()
    return dict(row) if row else {}


def _main() -> None:
    from benchmarks import embedder as embedders
    from benchmarks.workspace import prepare_environment

    provider = sys.argv[1]
    projects = sys.argv[2].split(",")
    prepare_environment()
    model = embedders.make(provider).model_name
    url, done = ensure_indexed(projects, provider, model)
    for project in projects:
        print(f"[loc] {project}: {index_cost(url, project)}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    _main()
