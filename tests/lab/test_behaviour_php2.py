"""lab.behaviour_php2: the held-out yii2 set is selectable by name, well formed, and its fetch
script refuses a target that holds anything but the corpus."""

from __future__ import annotations

import subprocess

import pytest

from lab.behaviour_php2 import FOLDER, PHP2, PHP2_CHECKOUT
from lab.mined.sets import select


def test_both_variants_are_selected_by_name_and_ask_the_same_questions() -> None:
    assert select("php2,php2-checkout") == [PHP2, PHP2_CHECKOUT]
    assert PHP2_CHECKOUT.queries() == PHP2.queries()


def test_every_question_is_a_behaviour_question_with_method_gold_in_the_framework() -> None:
    queries = PHP2.queries()
    assert len(queries) == 43
    assert len({q["id"] for q in queries}) == len(queries)
    for q in queries:
        assert q["type"] == "behavior" and 1 <= len(q["gold"]) <= 3
        for gold in q["gold"]:
            assert gold["path"].startswith("framework/") and gold["path"].endswith(".php")
            assert "." in gold["symbol"] and gold["start_line"] < gold["end_line"]


def test_the_fetch_script_leaves_a_folder_with_other_things_in_it_alone(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    run = subprocess.run(
        ["bash", str(FOLDER / "fetch_corpus.sh"), str(tmp_path)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "YII2_GIT_DIR": str(tmp_path / "none.git")},
    )
    assert run.returncode == 1
    assert "refusing to replace" in run.stderr and "notes.txt" in run.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("parts", ["tests", "docs", "tests docs"])
def test_the_checkout_parts_are_named_and_an_unknown_one_is_refused(tmp_path, parts) -> None:
    run = subprocess.run(
        ["bash", str(FOLDER / "fetch_corpus.sh"), str(tmp_path / "corpus")],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "YII2_WITH": parts + " manual"},
    )
    assert run.returncode == 2
    assert "unknown part manual" in run.stderr
