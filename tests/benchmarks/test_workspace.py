"""Benchmark corpora as git repositories: the same files give the same commit."""

from __future__ import annotations

from pathlib import Path

from benchmarks.workspace import as_git_repo


def _corpus(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (root / "README").write_text("a corpus\n")
    return root


def test_the_same_files_committed_twice_get_the_same_sha(tmp_path: Path, monkeypatch):
    # an index is current for a corpus' sha: a corpus rebuilt from the same archives (a cleared
    # work folder) must not make every index stale, however much later it is rebuilt
    for variable in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(variable, "2026-03-01T10:00:00Z")
    first = as_git_repo(_corpus(tmp_path / "a"))
    for variable in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(variable, "2026-12-03T12:00:00Z")
    second = as_git_repo(_corpus(tmp_path / "b"))
    assert first == second
    assert as_git_repo(tmp_path / "a") == first  # once made, it is left as it is


def test_other_files_get_another_sha(tmp_path: Path):
    corpus = _corpus(tmp_path / "a")
    other = _corpus(tmp_path / "b")
    (other / "README").write_text("another corpus\n")
    assert as_git_repo(corpus) != as_git_repo(other)
