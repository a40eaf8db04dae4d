"""LocAgent's localisation metrics with 95% bootstrap intervals.

file ranking = distinct paths in order of first appearance; file Acc@k = every gold file in the
top k files; function Acc@k = every gold function hit by one of the top k results (same path,
and the same qualified name or overlapping lines); any-function recall@5 = at least one gold
function hit in the top 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.intervals import interval
from lab.loc_gold import GoldFunction

FILE_KS = (1, 5, 10)
FUNCTION_KS = (5, 10)


@dataclass(frozen=True)
class FoundFunction:
    """A function a system returned."""

    path: str
    symbol: str | None
    start_line: int
    end_line: int


@dataclass
class Ranking:
    """What a system answered for one report: files in order, and functions in order."""

    files: list[str]
    functions: list[FoundFunction]


def _hits(found: FoundFunction, gold: GoldFunction) -> bool:
    if found.path != gold.path:
        return False
    if found.symbol is not None and found.symbol == gold.symbol:
        return True
    return found.start_line <= gold.end_line and gold.start_line <= found.end_line


def instance_scores(
    ranking: Ranking, gold_files: Sequence[str], gold_functions: Sequence[GoldFunction]
) -> dict[str, float]:
    """0/1 per metric for one report."""
    files = list(dict.fromkeys(ranking.files))
    out: dict[str, float] = {}
    for k in FILE_KS:
        out[f"file_acc@{k}"] = float(set(gold_files) <= set(files[:k]))
    for k in FUNCTION_KS:
        top = ranking.functions[:k]
        out[f"func_acc@{k}"] = float(all(any(_hits(f, g) for f in top) for g in gold_functions))
    top5 = ranking.functions[:5]
    out["func_any@5"] = float(any(_hits(f, g) for f in top5 for g in gold_functions))
    return out


def bootstrap(values: Sequence[float]) -> dict[str, float]:
    """Mean and 95% percentile-bootstrap interval (`benchmarks/intervals.py`)."""
    if not values:
        return {"mean": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0}
    mean, lo, hi = interval(values)
    return {"mean": mean, "lo": lo, "hi": hi, "n": len(values)}


def paired_difference(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Mean of a - b over the same reports, with its 95% bootstrap interval."""
    return bootstrap([x - y for x, y in zip(a, b, strict=True)])


def latency(seconds: Sequence[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds."""
    if not seconds:
        return {"p50_ms": float("nan"), "p95_ms": float("nan")}
    ms = np.asarray(seconds) * 1000
    return {"p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95))}
