"""Tree ensembles trained with LightGBM, evaluated with numpy on the query path (no LightGBM
import): the learned ranking of search (`retrieval/ranker.py`) and of locate
(`retrieval/locate_ranker.py`) store their trees in this flat form.

Each tree is flat arrays: per split node its feature, threshold (`x <= threshold` goes left) and
children, a negative child being a leaf (`~child` indexes the leaf values); the scores of the
trees add up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


class Trees:
    """A sum of flat trees (`flatten_tree`'s JSON)."""

    def __init__(self, trees: Sequence[dict[str, list[Any]]]) -> None:
        self.flat = list(trees)  # as stored
        self._trees = [
            (
                np.asarray(t["feature"], dtype=np.int64),
                np.asarray(t["threshold"], dtype=np.float64),
                np.asarray(t["left"], dtype=np.int64),
                np.asarray(t["right"], dtype=np.int64),
                np.asarray(t["leaf"], dtype=np.float64),
            )
            for t in trees
        ]

    def __len__(self) -> int:
        return len(self._trees)

    def score(self, x: np.ndarray) -> np.ndarray:
        """The trees' sum per row of `x`."""
        total = np.zeros(len(x), dtype=np.float64)
        rows = np.arange(len(x))
        for feature, threshold, left, right, leaf in self._trees:
            node = np.zeros(len(x), dtype=np.int64)
            inner = node >= 0
            while inner.any():
                at = node[inner]
                goes_left = x[rows[inner], feature[at]] <= threshold[at]
                node[inner] = np.where(goes_left, left[at], right[at])
                inner = node >= 0
            total += leaf[~node]
        return total


def flatten_tree(root: dict[str, Any]) -> dict[str, list[Any]]:
    """One tree of LightGBM's `dump_model()` as flat arrays."""
    flat: dict[str, list[Any]] = {
        "feature": [],
        "threshold": [],
        "left": [],
        "right": [],
        "leaf": [],
    }

    def visit(node: dict[str, Any]) -> int:
        if "split_feature" not in node:
            flat["leaf"].append(float(node.get("leaf_value", 0.0)))
            return ~(len(flat["leaf"]) - 1)
        if node.get("decision_type", "<=") != "<=":
            raise ValueError(f"unsupported split {node.get('decision_type')!r} in a ranker")
        at = len(flat["feature"])
        flat["feature"].append(int(node["split_feature"]))
        flat["threshold"].append(float(node["threshold"]))
        flat["left"].append(0)
        flat["right"].append(0)
        flat["left"][at] = visit(node["left_child"])
        flat["right"][at] = visit(node["right_child"])
        return at

    top = visit(root)
    if top < 0:  # a single leaf: one split that goes to it either way
        flat.update(feature=[0], threshold=[math.inf], left=[top], right=[top])
    return flat


def flat_trees(dump: dict[str, Any]) -> list[dict[str, list[Any]]]:
    """Every tree of a LightGBM `dump_model()`, flat."""
    return [flatten_tree(t["tree_structure"]) for t in dump["tree_info"]]
