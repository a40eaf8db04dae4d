"""The eval set's scoring rules, as the benchmarks apply them."""

from __future__ import annotations

import pytest

from benchmarks.scoring import Result, is_hit, is_tight, ndcg_at_10, score_run, within_budget

GOLD = {"path": "pkg/mod.py", "start_line": 100, "end_line": 119}  # 20 lines


@pytest.mark.parametrize(
    ("result", "hit", "tight"),
    [
        (Result("pkg/mod.py", 100, 119), True, True),  # exactly the symbol
        (Result("pkg/mod.py", 90, 140), True, True),  # whole symbol, 51 lines <= 3x
        (Result("pkg/mod.py", 50, 200), True, False),  # whole symbol but far too big
        (Result("pkg/mod.py", 110, 130), True, False),  # only half of it
        (Result("pkg/mod.py", 119, 119), True, False),  # touches the last line
        (Result("pkg/mod.py", 120, 150), False, False),  # just after
        (Result("pkg/other.py", 100, 119), False, False),  # other file
    ],
)
def test_hits_and_tight_hits_follow_the_eval_readme(result, hit, tight) -> None:
    assert is_hit(result, GOLD) is hit
    assert is_tight(result, GOLD) is tight


def test_ndcg_credits_each_gold_answer_once() -> None:
    golds = [GOLD, {"path": "pkg/b.py", "start_line": 1, "end_line": 5}]
    twice = [Result("pkg/mod.py", 100, 119), Result("pkg/mod.py", 100, 110)]
    both = [Result("pkg/mod.py", 100, 119), Result("pkg/b.py", 1, 5)]
    assert ndcg_at_10(both, golds) == pytest.approx(1.0)
    assert ndcg_at_10(twice, golds) < ndcg_at_10(both, golds)


def test_a_result_that_overflows_the_budget_ends_the_list() -> None:
    results = [Result("a", 1, 2), Result("b", 1, 2), Result("c", 1, 2)]
    assert within_budget(results, [500, 2000, 10], 2000) == results[:1]


def test_recall_mrr_and_budget_recall_of_a_run() -> None:
    queries = [{"id": "q1", "gold": [GOLD]}, {"id": "q2", "gold": [GOLD]}]
    ranked = {
        "q1": [Result("x.py", 1, 9), Result("pkg/mod.py", 100, 119)],
        "q2": [Result("x.py", 1, 9)],
    }
    scores = score_run(queries, ranked, lambda r: 1500)
    assert scores["recall@1"] == 0.0
    assert scores["recall@5"] == 0.5
    assert scores["mrr@10"] == 0.25
    assert scores["recall@2000tok"] == 0.0  # the hit is the second 1,500-token result
    assert scores["recall@4000tok"] == 0.5
