"""The parsed part of an interrupted whole-tree index, as commits of its own.

On a shared 2-core machine the whole kernel may not finish parsing in the time there is. Its
parses are kept (each batch commits), so the files parsed so far form a real tree of kernel
code: `partial_commits` commits exactly those files (and no other) on top of `base`, then a
one-file and a fifty-file change of it, like the full tree's. Indexing these commits parses
nothing new (every blob is parsed already) or just the changed files, and publishes: storage
and latencies are then measured on as much of the kernel as was parsed.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from benchmarks.workspace import git

TAGS = {
    "base": "partial-base",
    "one-file": "partial-one-file",
    "fifty-files": "partial-fifty-files",
}


def _parsed_paths(database_url: str, repository: str, commit: str) -> list[str]:
    """Paths of the commit's snapshot whose blob has a stored parse."""
    from core.database import connection

    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT sf.path FROM snapshot_files sf"
            " JOIN snapshots s ON s.id = sf.snapshot_id"
            " JOIN repositories r ON r.id = s.repository_id"
            " JOIN file_versions fv ON fv.repository_id = r.id AND fv.blob_sha = sf.blob_sha"
            " WHERE r.name = %s AND s.commit_sha = %s AND fv.parsed_at IS NOT NULL"
            " ORDER BY sf.path",
            (repository, commit),
        ).fetchall()
    return [r["path"] for r in rows]


def _commit(repo: Path, index: str, parent: str, message: str) -> str:
    env = {"GIT_INDEX_FILE": index}
    tree = git(repo, "write-tree", env=env)
    return git(
        repo,
        "commit-tree",
        tree,
        "-p",
        parent,
        "-m",
        message,
        env={
            **env,
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        },
    )


def _append_markers(repo: Path, index: str, paths: list[str], first: int) -> None:
    """A small new function at the end of each file, staged in `index` (no checkout)."""
    for n, path in enumerate(paths, start=first):
        blob = git(repo, "rev-parse", f":{path}", env={"GIT_INDEX_FILE": index})
        text = subprocess.run(
            ["git", "-C", str(repo), "cat-file", "blob", blob], capture_output=True, check=True
        ).stdout
        marker = f"\n\nint codeatlas_bench_marker_{n}(void)\n{{\n\treturn {n};\n}}\n"
        sha = (
            subprocess.run(
                ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
                input=text.rstrip(b"\n") + marker.encode(),
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        git(
            repo,
            "update-index",
            "--cacheinfo",
            f"100644,{sha},{path}",
            env={"GIT_INDEX_FILE": index},
        )


def partial_commits(repo: Path, database_url: str, repository: str) -> dict[str, str]:
    """Tag the parsed part of `base` and its one-file and fifty-file changes (TAGS); the
    names of TAGS -> their commits."""
    base = git(repo, "rev-parse", "base")
    keep = _parsed_paths(database_url, repository, base)
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, "index")
        env = {"GIT_INDEX_FILE": index}
        subprocess.run(
            ["git", "-C", str(repo), "update-index", "--index-info"],
            input="".join(f"{line}\n" for line in _index_lines(repo, base, set(keep))).encode(),
            env={**os.environ, **env},
            check=True,
        )
        commits = {"base": _commit(repo, index, base, f"the {len(keep)} files parsed so far")}
        c_files = [p for p in keep if p.endswith(".c")]
        _append_markers(repo, index, c_files[:1], 1)
        commits["one-file"] = _commit(repo, index, commits["base"], "benchmark: change 1 file")
        _append_markers(repo, index, c_files[1:51], 2)
        commits["fifty-files"] = _commit(
            repo, index, commits["one-file"], "benchmark: change 50 files"
        )
    for name, commit in commits.items():
        git(repo, "tag", "-f", TAGS[name], commit)
    return commits


def _index_lines(repo: Path, commit: str, keep: set[str]) -> list[str]:
    """`git update-index --index-info` lines of the commit's files in `keep`."""
    lines = []
    for line in git(repo, "ls-tree", "-r", "--full-tree", commit).splitlines():
        meta, path = line.split("\t", 1)
        if path in keep:
            lines.append(f"{meta}\t{path}")
    return lines
