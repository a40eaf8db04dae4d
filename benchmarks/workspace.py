"""The benchmark's working area under `benchmarks/.work/` (git-ignored): corpora turned into git
repositories, and an embedded PostgreSQL with one database per scenario."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from benchmarks.eval_sets import EVAL_SETS, EvalSet, fetch_corpus

ROOT = Path(__file__).resolve().parent
WORK = ROOT / ".work"
REPO_ROOT = ROOT.parent

# real repositories for the scale runs: sources of pinned PyPI wheels (pure Python where pip
# offers a py3 wheel; the sqlalchemy wheel also holds compiled extensions, which are skipped)
SCALE_WHEELS = {
    "django": ("django==6.1.3", ["--python-version", "3.12"]),
    "sqlalchemy": (
        "sqlalchemy==2.1.9",
        ["--python-version", "3.11", "--platform", "manylinux_2_17_x86_64"],
    ),
    "sympy": ("sympy==1.14.0", ["--python-version", "3.12"]),
}


# a corpus' one commit has a fixed date as well as a fixed identity (`as_git_repo`), so the same
# files get the same sha whenever they are committed, and an index made of them stays current
CORPUS_DATE = {
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in `path` with a fixed identity (and `env` added to the environment); return
    stdout."""
    return subprocess.run(
        [
            "git",
            "-C",
            str(path),
            "-c",
            "user.email=bench@codeatlas",
            "-c",
            "user.name=bench",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **env} if env else None,
    ).stdout.strip()


def as_git_repo(path: Path) -> str:
    """Make `path` a git repository with everything committed (once); return HEAD's sha."""
    if not (path / ".git").is_dir():
        git(path, "init", "-q", "-b", "main")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "benchmark corpus", env=CORPUS_DATE)
    return git(path, "rev-parse", "HEAD")


def eval_corpus(eval_set: EvalSet = EVAL_SETS["py"]) -> Path:
    """The set's corpus, fetched by the set's own script, as a git repository. A mined set's
    corpus is built from the registries by the lab (`lab.mined.sets.corpus`)."""
    if eval_set.mined:
        raise ValueError(
            f"{eval_set.name} is a mined set: its corpus is built by lab.mined.sets.corpus"
        )
    corpus = WORK / eval_set.corpus_dir
    if not (corpus / ".git").is_dir():
        if corpus.exists():
            shutil.rmtree(corpus)
        fetch_corpus(eval_set, corpus)
        as_git_repo(corpus)
    return corpus


def subset_repo(source: Path, prefixes: tuple[str, ...] | list[str], dest: Path) -> Path:
    """A git repository holding only the files of `source` under the path prefixes."""
    if not (dest / ".git").is_dir():
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for prefix in prefixes:
            folder = prefix.rstrip("/")
            shutil.copytree(source / folder, dest / folder)
        as_git_repo(dest)
    return dest


def scale_repo(name: str) -> Path:
    """A git repository of one pinned wheel's sources (downloaded once with pip)."""
    dest = WORK / "extra" / name
    if (dest / ".git").is_dir():
        return dest
    pin, flags = SCALE_WHEELS[name]
    wheels = WORK / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            *flags,
            "-d",
            str(wheels),
            pin,
        ],
        check=True,
        capture_output=True,
        timeout=900,
    )
    wheel = next(w for w in wheels.glob("*.whl") if w.name.lower().startswith(name))
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(dest, [m for m in zf.namelist() if ".dist-info/" not in m])
    as_git_repo(dest)
    return dest


def prepare_environment(state_dir: Path | None = None) -> Path:
    """Point this process's codeatlas settings at the benchmark's own state directory."""
    state = state_dir or WORK / "state"
    state.mkdir(parents=True, exist_ok=True)
    os.environ["CODEATLAS_STATE_DIR"] = str(state)
    os.environ.pop("CODEATLAS_DATABASE_URL", None)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    return state


def database(name: str, *, fresh: bool) -> str:
    """URL of a migrated database `name` on the embedded server (dropped first when fresh)."""
    import psycopg

    from core.config import load_settings
    from core.database import (
        connect_plain,
        create_database_if_missing,
        server_url,
        with_database,
    )
    from core.migrations import migrate

    server = server_url(load_settings())
    if fresh:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    create_database_if_missing(server, name)
    url = with_database(server, name)
    conn = connect_plain(url)
    try:
        migrate(conn)
    finally:
        conn.close()
    return url
