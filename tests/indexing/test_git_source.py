"""Reading repositories: local paths, remote URLs through a bare mirror, no stored credentials."""

from __future__ import annotations

import subprocess

import pytest

from core.config import load_settings
from indexing import git_source, repositories
from tests.assets.pipeline_helpers import register, run_index, snapshot_paths


def test_credentials_are_stripped_from_stored_origins_and_error_messages():
    assert (
        git_source.clean_origin("https://bot:s3cret-token@git.example.com/shop.git")
        == "https://git.example.com/shop.git"
    )
    assert "s3cret" not in git_source.redact_url_credentials(
        "fatal: unable to access 'https://bot:s3cret@git.example.com/x.git/'"
    )


def test_listing_a_commit_reports_symlinks_and_sizes(git_repo):
    git_repo.write("src/a.py", "x = 1\n")
    (git_repo.path / "link.py").symlink_to("src/a.py")
    sha = git_repo.commit()
    entries = {e.path: e for e in git_source.list_tree(git_repo.path, sha)}
    assert entries["src/a.py"].size == 6 and entries["src/a.py"].mode == "100644"
    assert entries["link.py"].mode == "120000"
    blobs = dict(git_source.read_blobs(git_repo.path, [entries["src/a.py"].blob_sha]))
    assert blobs[entries["src/a.py"].blob_sha] == b"x = 1\n"


def test_a_remote_url_is_indexed_through_a_bare_mirror_in_the_state_dir(
    settings_env, database_url, git_repo, tmp_path
):
    git_repo.write("svc/api.py", "def handler(event):\n    return event\n")
    git_repo.commit()
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(git_repo.path), str(bare)], check=True)
    url = f"file://{bare}"

    settings = load_settings()
    mirror = repositories.git_dir(settings, url, fetch=True)
    assert mirror.is_relative_to(settings.repos_dir)
    sha = git_source.resolve_commit(mirror, "main")
    register(database_url, "svc", url)
    run_index(database_url, "svc", sha)
    assert snapshot_paths(database_url, "svc", sha) == {"svc/api.py"}

    git_repo.write("svc/worker.py", "def work():\n    return 1\n")
    new_sha = git_repo.commit()
    subprocess.run(["git", "-C", str(git_repo.path), "push", "-q", str(bare), "main"], check=True)
    repositories.git_dir(settings, url, fetch=True)
    run_index(database_url, "svc", new_sha)
    assert snapshot_paths(database_url, "svc", new_sha) == {"svc/api.py", "svc/worker.py"}


def test_a_symlink_is_recorded_as_skipped_not_followed(settings_env, database_url, git_repo):
    git_repo.write("a.py", "def f():\n    return 1\n")
    (git_repo.path / "escape.py").symlink_to("/etc/passwd")
    sha = git_repo.commit()
    register(database_url, "links", str(git_repo.path))
    run_index(database_url, "links", sha)
    assert snapshot_paths(database_url, "links", sha) == {"a.py"}


def test_a_clone_interrupted_before_it_finished_is_cleared_and_cloned_again(git_repo, tmp_path):
    git_repo.write("a.py", "x = 1\n")
    sha = git_repo.commit()
    mirror_dir = tmp_path / "repos" / "shop.git"
    leftover = mirror_dir.with_name("shop.git.partial")
    (leftover / "objects" / "pack").mkdir(parents=True)
    (leftover / "objects" / "pack" / "half-written.pack").write_bytes(b"\0" * 64)
    (leftover / "objects" / "pack" / "half-written.pack").chmod(0o444)  # as git leaves packs

    assert git_source.mirror(f"file://{git_repo.path}", mirror_dir) == mirror_dir
    assert git_source.resolve_commit(mirror_dir, "main") == sha
    assert not leftover.exists()


def test_the_settings_git_token_goes_into_https_clone_urls_only(monkeypatch):
    monkeypatch.setenv("CODEATLAS_GIT_TOKEN", "t0ken")
    monkeypatch.delenv("CODEATLAS_GIT_USERNAME", raising=False)
    credentials = load_settings().git_credentials
    with_token = git_source._with_credentials("https://git.example.com/acme/shop.git", credentials)
    assert with_token == "https://x-access-token:t0ken@git.example.com/acme/shop.git"
    # a URL that names its own user, or ssh, keeps what it says
    own = "https://me@git.example.com/acme/shop.git"
    assert git_source._with_credentials(own, credentials) == own
    ssh = "ssh://git@git.example.com/acme/shop.git"
    assert git_source._with_credentials(ssh, credentials) == ssh
    monkeypatch.delenv("CODEATLAS_GIT_TOKEN")
    assert load_settings().git_credentials is None


def test_a_repository_without_commits_or_without_the_ref_says_which(tmp_path, git_repo):
    empty = tmp_path / "empty"
    subprocess.run(["git", "init", "-q", str(empty)], check=True)
    with pytest.raises(git_source.GitError, match="has no commits yet: commit its files"):
        git_source.resolve_commit(empty, "HEAD")
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    with pytest.raises(git_source.GitError, match="no commit named 'nosuchbranch'"):
        git_source.resolve_commit(git_repo.path, "nosuchbranch")
