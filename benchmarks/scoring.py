"""Scoring rules of the eval set (shared/eval/README.md), so numbers compare across systems.

A result is a *hit* when its path equals a gold path and its line range overlaps the gold range;
a *tight hit* also covers at least 80% of the gold range and is at most 3x its size.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# the shared eval set lives beside the repository (shared/eval); override with CODEATLAS_EVAL_DIR
EVAL_DIR = Path(
    os.environ.get("CODEATLAS_EVAL_DIR")
    or Path(__file__).resolve().parent.parent.parent / "shared" / "eval"
)
KS = (1, 5, 10)
BUDGETS = (2000, 4000)


@dataclass(frozen=True)
class Result:
    """One ranked result: a file range (1-based, inclusive)."""

    path: str
    start_line: int
    end_line: int


def load_queries(path: Path | None = None) -> list[dict]:
    """The labelled questions (one JSON object per line)."""
    lines = (path or EVAL_DIR / "queries.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def load_callers(path: Path | None = None) -> list[dict]:
    """Functions with their verified call sites."""
    lines = (path or EVAL_DIR / "callers.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def is_hit(result: Result, gold: dict) -> bool:
    """Same path, overlapping lines."""
    return (
        result.path == gold["path"]
        and result.start_line <= gold["end_line"]
        and result.end_line >= gold["start_line"]
    )


def is_tight(result: Result, gold: dict) -> bool:
    """A hit that covers >= 80% of the gold range and is at most 3x its size."""
    if not is_hit(result, gold):
        return False
    gold_size = gold["end_line"] - gold["start_line"] + 1
    size = result.end_line - result.start_line + 1
    covered = (
        min(result.end_line, gold["end_line"]) - max(result.start_line, gold["start_line"]) + 1
    )
    return covered >= 0.8 * gold_size and size <= 3 * gold_size


def first_rank(results: Sequence[Result], golds: list[dict], tight: bool = False) -> int | None:
    """1-based rank of the first (tight) hit on any gold answer, or None."""
    test = is_tight if tight else is_hit
    for rank, result in enumerate(results, start=1):
        if any(test(result, g) for g in golds):
            return rank
    return None


def ndcg_at_10(results: Sequence[Result], golds: list[dict]) -> float:
    """Binary-relevance nDCG@10: each gold answer is credited once, at its first hit."""
    credited: set[int] = set()
    dcg = 0.0
    for rank, result in enumerate(results[:10], start=1):
        for i, gold in enumerate(golds):
            if i not in credited and is_hit(result, gold):
                credited.add(i)
                dcg += 1.0 / math.log2(rank + 1)
                break
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(len(golds), 10) + 1))
    return dcg / ideal if ideal else 0.0


def within_budget(results: Sequence[Result], tokens: Sequence[int], budget: int) -> list[Result]:
    """The leading results whose text fits in `budget` tokens (a result that overflows is cut
    off: an agent with that budget would not see it whole)."""
    kept: list[Result] = []
    used = 0
    for result, cost in zip(results, tokens, strict=True):
        if used + cost > budget:
            break
        kept.append(result)
        used += cost
    return kept


def score_run(
    queries: list[dict],
    ranked: dict[str, list[Result]],
    token_cost: Callable[[Result], int],
) -> dict:
    """Every metric for one system: ranked[query id] = its results, best first."""
    n = len(queries)
    recall = {k: 0 for k in KS}
    tight = {k: 0 for k in KS}
    budget_recall = {b: 0 for b in BUDGETS}
    mrr = ndcg = 0.0
    answer5: list[int] = []
    answer10: list[int] = []
    per_query: dict[str, int | None] = {}
    for q in queries:
        results = ranked.get(q["id"], [])
        golds = q["gold"]
        rank = first_rank(results[:10], golds)
        tight_rank = first_rank(results[:10], golds, tight=True)
        per_query[q["id"]] = rank
        for k in KS:
            recall[k] += rank is not None and rank <= k
            tight[k] += tight_rank is not None and tight_rank <= k
        mrr += 1.0 / rank if rank else 0.0
        ndcg += ndcg_at_10(results, golds)
        costs = [token_cost(r) for r in results]
        answer5.append(sum(costs[:5]))
        answer10.append(sum(costs[:10]))
        for b in BUDGETS:
            budget_recall[b] += first_rank(within_budget(results, costs, b), golds) is not None
    return {
        "queries": n,
        **{f"recall@{k}": round(recall[k] / n, 3) for k in KS},
        **{f"tight@{k}": round(tight[k] / n, 3) for k in KS},
        "mrr@10": round(mrr / n, 3),
        "ndcg@10": round(ndcg / n, 3),
        **{f"recall@{b}tok": round(budget_recall[b] / n, 3) for b in BUDGETS},
        "answer_tokens@5_median": int(statistics.median(answer5)) if answer5 else 0,
        "answer_tokens@10_median": int(statistics.median(answer10)) if answer10 else 0,
        "answer_tokens@5_mean": round(statistics.fmean(answer5)) if answer5 else 0,
        "first_hit_rank": per_query,
    }


class CorpusText:
    """Reads result ranges from the corpus on disk, to count what an agent would receive."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        """The file's lines (empty for a file that is not there)."""
        if path not in self._lines:
            file = self.root / path
            text = file.read_text(errors="replace") if file.is_file() else ""
            self._lines[path] = text.splitlines(keepends=True)
        return self._lines[path]

    def text(self, result: Result) -> str:
        """The source of the result's line range."""
        return "".join(self.lines(result.path)[result.start_line - 1 : result.end_line])

    def tokens(self, result: Result) -> int:
        """LLM tokens of the result, estimated as characters / 4 plus a `path:start-end` line."""
        return llm_tokens(self.text(result)) + 8


def llm_tokens(text: str) -> int:
    """The common estimate for GPT-style BPE tokenizers on code: ~4 characters per token."""
    return math.ceil(len(text) / 4)


def intervals(scores: dict) -> dict[str, tuple[float, float]]:
    """95% bootstrap intervals of MRR@10 and Recall@1/5/10 from a `score_run` result."""
    ranks = list(scores["first_hit_rank"].values())
    found = {"mrr@10": [1.0 / r if r else 0.0 for r in ranks]}
    for k in KS:
        found[f"recall@{k}"] = [1.0 if r is not None and r <= k else 0.0 for r in ranks]
    from benchmarks.intervals import interval

    return {
        name: (round(low, 3), round(high, 3))
        for name, (_, low, high) in ((n, interval(v)) for n, v in found.items())
    }
