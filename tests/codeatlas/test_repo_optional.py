"""`search`, `symbols` and `callers` without --repo read every repository, as `locate` and the
MCP tools do (issue 48): with one repository indexed that is the one meant; with several, each
line names its repository; with none, the answer says how to add one."""

from __future__ import annotations

import subprocess
import sys

from tests.assets.pipeline_helpers import register, run_index
from tests.conftest import GitRepo

SHOP = (
    "def refund(order):\n    return order.total\n\n\n"
    "def checkout(order):\n    return refund(order)\n"
)
LEDGER = "def post_refund(entry):\n    return refund(entry)\n"


def codeatlas(*args: str) -> subprocess.CompletedProcess:
    """The CLI as a user runs it (no resident query process: CODEATLAS_DATABASE_URL is set)."""
    return subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", *args], capture_output=True, text=True, timeout=300
    )


def indexed(database_url: str, repo: GitRepo, name: str, path: str, code: str) -> None:
    repo.write(path, code)
    sha = repo.commit(name)
    register(database_url, name, str(repo.path))
    run_index(database_url, name, sha)


def test_with_one_repository_indexed_no_repo_is_needed(settings_env, database_url, git_repo):
    indexed(database_url, git_repo, "shop", "pay.py", SHOP)

    search = codeatlas("search", "refund order total", "--mode", "lexical")
    assert search.returncode == 0, search.stderr
    assert search.stdout.splitlines()[0].startswith("pay.py:1-2  refund  ")
    assert (
        search.stdout
        == codeatlas("search", "refund order total", "--mode", "lexical", "--repo", "shop").stdout
    )

    symbols = codeatlas("symbols", "refund")
    assert symbols.returncode == 0, symbols.stderr
    assert symbols.stdout.startswith("pay.py:1-2  refund  function  (exact)")

    callers = codeatlas("callers", "refund")
    assert callers.returncode == 0, callers.stderr
    assert callers.stdout.startswith("pay.py:6  checkout  refund  ")

    unknown = codeatlas("callers", "NoSuchThing")
    assert unknown.returncode == 1
    assert "no definition named 'NoSuchThing' in any repository" in unknown.stderr
    assert "`codeatlas symbols NoSuchThing` finds similar names" in unknown.stderr


def test_with_several_repositories_each_line_names_its_repository(
    settings_env, database_url, tmp_path
):
    indexed(database_url, GitRepo(tmp_path / "shop"), "shop", "pay.py", SHOP)
    indexed(database_url, GitRepo(tmp_path / "ledger"), "ledger", "books.py", LEDGER)

    callers = codeatlas("callers", "refund")
    assert callers.returncode == 0, callers.stderr
    lines = callers.stdout.splitlines()
    assert any(line.startswith("shop  pay.py:6  checkout  refund") for line in lines), lines
    assert any(line.startswith("ledger  books.py:2  post_refund  refund") for line in lines)

    symbols = codeatlas("symbols", "refund")
    assert "shop  pay.py:1-2  refund  function  (exact)" in symbols.stdout.splitlines()

    # one repository named: its lines as they always were
    only = codeatlas("callers", "refund", "--repo", "ledger")
    assert only.stdout.startswith("books.py:2  post_refund  refund")


def test_with_nothing_indexed_the_answer_says_how_to_add_a_repository(settings_env):
    for command in (("search", "refund"), ("symbols", "refund"), ("callers", "refund")):
        done = codeatlas(*command)
        assert done.returncode == 1
        assert "no repository is indexed yet: `codeatlas index PATH` adds one" in done.stderr
        assert "Traceback" not in done.stderr
