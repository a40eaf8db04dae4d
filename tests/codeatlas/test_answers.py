"""Answers that cannot mislead: an empty query, an unknown name and an unknown repository are
errors that say what to do, told apart from an empty answer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codeatlas.cli import main
from tests.assets.pipeline_helpers import register, run_index

CODE = (
    "def refund(order):\n    return order.total\n\n\n"
    "def checkout(order):\n    return refund(order)\n\n\n"
    "def unused_helper():\n    return 1\n"
)


@pytest.fixture
def shop(settings_env, database_url, git_repo):
    git_repo.write("pay.py", CODE)
    sha = git_repo.commit("shop")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    return sha


@pytest.mark.parametrize("query", ["", "   \t "])
def test_an_empty_query_is_an_error_not_ten_arbitrary_hits(shop, capsys, query):
    assert main(["search", query, "--repo", "shop"]) == 1
    captured = capsys.readouterr()
    assert "the query is empty" in captured.err and captured.out == ""


def test_callers_tells_an_unknown_name_from_a_function_nobody_calls(shop, capsys):
    assert main(["callers", "NoSuchThing", "--repo", "shop"]) == 1
    err = capsys.readouterr().err
    assert "no definition named 'NoSuchThing' in shop" in err
    assert "codeatlas symbols NoSuchThing --repo shop" in err

    assert main(["callers", "unused_helper", "--repo", "shop"]) == 0
    captured = capsys.readouterr()
    assert "unused_helper has no callers in shop" in captured.err
    assert "no definition" not in captured.err and captured.out == ""

    assert main(["callers", "refund", "--repo", "shop", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [d["symbol"] for d in answer["definitions"]] == ["refund"]
    assert [c["caller"] for c in answer["callers"]] == ["checkout"]


def test_an_unknown_repository_points_at_the_cli_not_at_an_mcp_tool(shop, capsys):
    for command in (
        ["search", "refund", "--repo", "nope"],
        ["symbols", "refund", "--repo", "nope"],
    ):
        assert main(command) == 1
        err = capsys.readouterr().err
        assert "no repository named 'nope'" in err and "`codeatlas status`" in err
        assert "list_repositories" not in err


def test_a_path_that_is_not_a_git_repository_is_refused_before_any_heavy_start(tmp_path):
    # no database is reachable and Dagster must not even be imported: the path is checked first
    probe = (
        "import sys\n"
        "from codeatlas.cli import main\n"
        f"code = main(['index', {str(tmp_path)!r}])\n"
        "print(code, 'dagster' in sys.modules, 'psycopg' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "CODEATLAS_DATABASE_URL": "postgresql://no@127.0.0.1:9/x"},
    )
    assert proc.stdout.split() == ["1", "False", "False"], proc.stderr
    assert "is not a git repository" in proc.stderr


def test_a_token_for_a_principal_not_created_yet_says_to_create_it_first(settings_env, capsys):
    assert main(["token", "create", "--principal", "ghost"]) == 1
    err = capsys.readouterr().err
    assert (
        "no principal named 'ghost'; create it first with `codeatlas principal create ghost`" in err
    )


def test_callers_of_a_name_called_more_often_than_one_answer_resolves_says_so(
    settings_env, database_url, git_repo, capsys, monkeypatch
):
    from retrieval import graph

    git_repo.write("pay.py", CODE + "\n\ndef retry(order):\n    return refund(order)\n")
    sha = git_repo.commit("shop")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    monkeypatch.setattr(graph, "MAX_EDGES", 1)
    assert main(["callers", "refund", "--repo", "shop"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("pay.py:") == 1
    assert "# 2 calls of 'refund': these are the sites of 1, those in the" in captured.err
    assert main(["callers", "refund", "--repo", "shop", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["more_sites"] is True and answer["calls"] == 2 and len(answer["callers"]) == 1


def test_a_pasted_bug_report_is_searched_as_a_report_and_the_cli_says_so(shop, capsys):
    report = (
        "refund returns the wrong amount\n\n"
        "Calling checkout on an order with a discount refunds the full total instead of the"
        " discounted one, so customers get back more than they paid for the order."
    )
    assert main(["search", report, "--repo", "shop", "--json"]) == 0
    captured = capsys.readouterr()
    results = json.loads(captured.out)["results"]
    assert results and results[0]["retrievers"][0] == "locate"
    assert {r["path"] for r in results} == {"pay.py"}
    assert "note: read as a bug report" in captured.err
    # a question is a question: no note about reports
    assert main(["search", "refund", "--repo", "shop"]) == 0
    assert "bug report" not in capsys.readouterr().err
