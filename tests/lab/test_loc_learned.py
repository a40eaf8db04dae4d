"""Locate's weights learned on one set of reports and scored on another
(lab/loc_learned.py): the listwise fit, the hit rules and locate's own order."""

from __future__ import annotations

import numpy as np

from lab import loc_learned
from retrieval.locate import LocatedFile, LocatedFunction, LocateReport


def _function(path: str, name: str, file_rank: int, file_score: float, **evidence) -> dict:
    return {
        "path": path,
        "file_rank": file_rank,
        "file_score": file_score,
        "name": name,
        "start": 1 + len(name),
        "lines": 10,
        "cosine": 0.0,
        "named": evidence.get("named", 0.0),
        "text": evidence.get("text", 0.0),
        "meaning": evidence.get("meaning", 0.0),
        "gold": evidence.get("gold", []),
    }


def test_the_fit_weighs_the_feature_that_marks_the_gold_and_not_the_noise():
    rng = np.random.default_rng(7)
    lists = []
    for _ in range(40):
        x = rng.normal(size=(12, 2))
        gold = int(np.argmax(x[:, 0] + rng.normal(scale=0.3, size=12)))
        y = np.zeros(12)
        y[gold] = 1.0
        lists.append((x, y))
    w = loc_learned.fit(lists, l2=1.0)
    assert w[0] > 1.0 and abs(w[1]) < w[0] / 4


def test_function_acc_needs_every_gold_function_in_the_top_k():
    report = {
        "gold_functions": 2,
        "functions": [
            _function("a.py", "f", 0, 1.0, gold=[0]),
            _function("a.py", "g", 0, 1.0),
            _function("b.py", "h", 1, 0.5, gold=[1]),
        ],
    }
    assert loc_learned.function_hits(report, np.array([3.0, 2.0, 1.0]), k=3) == 1.0
    assert loc_learned.function_hits(report, np.array([3.0, 2.0, 1.0]), k=2) == 0.0
    assert loc_learned.function_hits(report, np.array([3.0, 1.0, 2.0]), k=2) == 1.0


def test_locates_own_function_order_is_what_the_report_lists():
    # two files with their evidence; the order `shipped_function_scores` gives must be the one
    # `LocateReport.units()` ranks the same functions in (a function without evidence: last)
    functions = [
        _function("a.py", "a.f", 0, 2.0, text=4.0),
        _function("a.py", "a.g", 0, 2.0, named=1.0, text=2.0),
        _function("a.py", "a.h", 0, 2.0),
        _function("b.py", "b.k", 1, 1.5, text=8.0, meaning=0.5),
        _function("b.py", "b.m", 1, 1.5, meaning=0.9),
    ]
    report = {"gold_functions": 0, "functions": functions}
    scores = loc_learned.shipped_function_scores(report)
    learned_order = [functions[i]["name"] for i in np.argsort(-scores, kind="stable")]

    top_text = 8.0
    files = []
    for path, score in (("a.py", 2.0), ("b.py", 1.5)):
        listed = [
            LocatedFunction(
                symbol=f["name"],
                kind="function",
                start_line=f["start"],
                end_line=f["start"] + 9,
                score=f["named"] + f["text"] / top_text + f["meaning"],
                evidence=[],
            )
            for f in functions
            if f["path"] == path and (f["named"] or f["text"] or f["meaning"])
        ]
        files.append(LocatedFile("r", path, "c", "commit", "code", score, [], listed))
    shipped = [u.symbol for _, u in LocateReport(files=files).functions()]
    assert learned_order[: len(shipped)] == shipped
    assert learned_order[-1] == "a.h"
