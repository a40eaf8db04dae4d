"""Fitting the learned order of hybrid search (`lab/ranker/train.py`) on feature rows."""

from __future__ import annotations

import numpy as np
import pytest

from lab.ranker import train
from lab.ranker.collect import QueryRows
from retrieval.ranker import FEATURES


def _rows(set_name: str, seed: int, n: int = 120) -> list[QueryRows]:
    """Questions whose gold hit the fused order puts 3rd to 10th, and whose name covers the
    question where no other hit's does: what the trees can learn and the fused order cannot."""
    rng = np.random.default_rng(seed)
    rows: list[QueryRows] = []
    for i in range(n):
        hits = 12
        x = np.zeros((hits, len(FEATURES)))
        x[:, FEATURES.index("fused_rank")] = np.arange(1, hits + 1)
        x[:, FEATURES.index("fused_share")] = 1.0 / np.arange(1, hits + 1)
        x[:, FEATURES.index("name_coverage")] = rng.uniform(0.0, 0.3, hits)
        gold = int(rng.integers(2, 10))
        x[gold, FEATURES.index("name_coverage")] = 0.9
        labels = np.zeros(hits)
        labels[gold] = 2.0
        rows.append(QueryRows(set_name, f"{set_name}-{i}", x, labels))
    return rows


def test_the_rounds_are_those_that_order_a_set_it_did_not_see_best():
    pytest.importorskip("lightgbm", reason="pip install -e '.[bench]' installs LightGBM")
    rows = _rows("mined-a-train", 1) + _rows("mined-b-train", 2) + _rows("mined-c-train", 3)
    recall, fused = train.held_out_recall(rows)
    assert set(recall) == set(train.ROUNDS)
    assert fused < 0.7 and max(recall.values()) > 0.95  # learned from the other sets
    booster, stats = train.train(rows)
    best = max(recall.values())
    assert stats["rounds"] == min(n for n in train.ROUNDS if recall[n] >= best - train.ROUNDS_SLACK)
    assert 0 < booster.num_trees() <= stats["rounds"]  # LightGBM stops when nothing splits
    assert stats["held_out_sets_recall@5"]["fused"] == fused
    # one set: nothing to hold out, the middle of the grid
    assert train.held_out_recall(_rows("mined-a-train", 4, 30)) == ({}, 0.0)
