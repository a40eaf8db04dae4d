"""A partial clone (`git clone --filter=blob:limit=…`, the usual way to clone a big monorepo)
lacks some blobs: indexing skips their files with the reason, indexes the rest, and never
fetches the absent blobs from the clone's remote (issue 48)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg

from indexing import git_source
from indexing.snapshot_files import ABSENT_BLOB, UNREADABLE_BLOB
from tests.conftest import GitRepo

SMALL = "def checkout(cart):\n    return sum(cart)\n"
# over the clone's 1 KiB filter: left with the remote
LARGE = "".join(f"def generated_{i}(value):\n    return value + {i}\n\n" for i in range(60))


def partial_clone(origin: GitRepo, target: Path) -> Path:
    """`git clone --filter=blob:limit=1k --no-checkout` of `origin` (whose git must allow
    filters); a checkout would fetch the large blobs of the files it writes."""
    origin.git("config", "uploadpack.allowFilter", "true")
    subprocess.run(
        ["git", "clone", "-q", "--filter=blob:limit=1k", "--no-checkout"]
        + [f"file://{origin.path}", str(target)],
        check=True,
        capture_output=True,
    )
    return target


def present(repo: Path, sha: str) -> bool:
    """Whether the clone holds the object now (asked without fetching it)."""
    out = git_source.git(repo, "rev-list", "--objects", "--missing=print", "--no-walk", "HEAD")
    return f"?{sha}".encode() not in out.split()


def skipped(database_url: str, name: str) -> dict[str, str | None]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT sf.path, sf.skip_reason FROM snapshot_files sf"
            " JOIN snapshots s ON s.id = sf.snapshot_id"
            " JOIN repositories r ON r.id = s.repository_id"
            " WHERE r.name = %s AND s.id = r.current_snapshot_id",
            (name,),
        ).fetchall()
    return dict(rows)


def codeatlas(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_a_partial_clone_lists_its_absent_blobs_without_fetching_them(tmp_path: Path):
    origin = GitRepo(tmp_path / "origin")
    origin.write("shop/cart.py", SMALL)
    origin.write("shop/generated.py", LARGE)
    origin.commit()
    clone = partial_clone(origin, tmp_path / "clone")
    commit = git_source.resolve_commit(clone, "HEAD")

    entries = {e.path: e for e in git_source.list_tree(clone, commit)}
    large = entries["shop/generated.py"]
    assert large.absent and large.size == 0
    assert not entries["shop/cart.py"].absent and entries["shop/cart.py"].size == len(SMALL)
    # reading it gives None, and the blobs after it are still read
    blobs = list(git_source.read_blobs(clone, [large.blob_sha, entries["shop/cart.py"].blob_sha]))
    assert blobs == [(large.blob_sha, None), (entries["shop/cart.py"].blob_sha, SMALL.encode())]
    assert not present(clone, large.blob_sha)


def test_indexing_a_partial_clone_skips_absent_files_with_the_reason_and_indexes_the_rest(
    settings_env, database_url, tmp_path: Path
):
    origin = GitRepo(tmp_path / "origin")
    origin.write("shop/cart.py", SMALL)
    origin.write("shop/generated.py", LARGE)
    origin.commit()
    clone = partial_clone(origin, tmp_path / "clone")

    first = codeatlas("index", str(clone), "--name", "shop")
    assert first.returncode == 0, first.stderr
    assert skipped(database_url, "shop") == {
        "shop/cart.py": None,
        "shop/generated.py": ABSENT_BLOB,
    }
    found = codeatlas("symbols", "checkout", "--repo", "shop")
    assert "shop/cart.py" in found.stdout, found.stdout + found.stderr

    # the next commit adds another large file: the incremental listing skips it as well
    origin.write("shop/more_generated.py", LARGE.replace("generated_", "more_"))
    origin.write("shop/tax.py", "def tax(total):\n    return total * 0.2\n")
    origin.commit()
    subprocess.run(
        ["git", "-C", str(clone), "fetch", "-q", "--update-head-ok", "origin", "main:main"],
        check=True,
        capture_output=True,
    )
    second = codeatlas("index", str(clone), "--name", "shop")
    assert second.returncode == 0, second.stderr
    assert skipped(database_url, "shop") == {
        "shop/cart.py": None,
        "shop/generated.py": ABSENT_BLOB,
        "shop/more_generated.py": ABSENT_BLOB,
        "shop/tax.py": None,
    }
    large_sha = git_source.git(clone, "rev-parse", "HEAD:shop/generated.py").decode().strip()
    assert not present(clone, large_sha)


def test_a_blob_that_goes_missing_after_listing_is_skipped_as_unreadable(
    settings_env, database_url, git_repo
):
    """A blob listed from the tree and gone when read (a repository damaged in between): the
    file is skipped with the reason and the others are indexed."""
    from core.config import load_settings
    from indexing import snapshot_files
    from indexing.parse_step import parse_snapshot
    from tests.assets.pipeline_helpers import register

    git_repo.write("a.py", SMALL)
    git_repo.write("b.py", "def other():\n    return 1\n")
    sha = git_repo.commit()
    register(database_url, "damaged", str(git_repo.path))
    settings = load_settings()
    snapshot_files.record_source_files(database_url, settings, "damaged", sha)
    blob = git_repo.git("rev-parse", "HEAD:b.py")
    (git_repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()

    stats = parse_snapshot(database_url, settings, "damaged", sha)
    assert stats["skipped_by_content"] == 1 and stats["files_parsed"] == 1
    with psycopg.connect(database_url) as conn:
        reasons = dict(conn.execute("SELECT path, skip_reason FROM snapshot_files").fetchall())
    assert reasons == {"a.py": None, "b.py": UNREADABLE_BLOB}
