"""LocAgent's localisation metrics as lab/loc_metrics.py computes them."""

from __future__ import annotations

from lab.loc_gold import GoldFunction
from lab.loc_metrics import FoundFunction, Ranking, bootstrap, instance_scores

GOLD = [GoldFunction("pkg/a.py", "A.run", 10, 20), GoldFunction("pkg/b.py", "helper", 5, 9)]


def test_file_accuracy_needs_every_gold_file_within_k_distinct_files():
    ranking = Ranking(
        ["pkg/a.py", "pkg/a.py", "x.py", "y.py", "z.py", "w.py", "pkg/b.py"], functions=[]
    )
    scores = instance_scores(ranking, ["pkg/a.py", "pkg/b.py"], GOLD)
    # repeats count once: pkg/b.py is the sixth distinct file
    assert (scores["file_acc@1"], scores["file_acc@5"], scores["file_acc@10"]) == (0, 0, 1)


def test_function_accuracy_needs_every_gold_function_hit_by_name_or_by_lines():
    functions = [
        FoundFunction("pkg/a.py", "A.run", 1, 2),  # same name, lines moved between versions
        FoundFunction("pkg/c.py", "helper", 5, 9),  # same name and lines, another file
        FoundFunction("pkg/b.py", None, 8, 30),  # a file-level chunk overlapping helper
    ]
    scores = instance_scores(Ranking([], functions[:2]), ["pkg/a.py"], GOLD)
    assert scores["func_acc@5"] == 0 and scores["func_any@5"] == 1
    scores = instance_scores(Ranking([], functions), ["pkg/a.py"], GOLD)
    assert scores["func_acc@5"] == scores["func_acc@10"] == 1


def test_the_bootstrap_interval_holds_the_mean_and_is_reproducible():
    values = [1.0] * 30 + [0.0] * 70
    first, second = bootstrap(values), bootstrap(values)
    assert first == second
    assert first["lo"] < first["mean"] == 0.3 < first["hi"]
    assert first["lo"] > 0.2 and first["hi"] < 0.4
