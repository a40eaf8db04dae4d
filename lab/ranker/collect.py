"""Training rows for the learned ranker: for every query of a set, the fused hits of hybrid search
with their features (`retrieval.search.candidates`, exactly what search computes) and a graded
label from the set's gold (2 a tight hit, 1 a hit that only overlaps, 0 neither)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from benchmarks.codeatlas_search import CodeatlasSearch
from benchmarks.eval_sets import EvalSet
from benchmarks.scoring import Result, is_hit, is_tight


@dataclass
class QueryRows:
    """One query's hits as a group of the ranking problem."""

    set_name: str
    query_id: str
    features: np.ndarray  # (hits, features)
    labels: np.ndarray  # (hits,)


# the mined questions asked: their summaries (one sentence, `queries.jsonl`) or their long
# forms (`descriptions.jsonl`: the doc's first paragraph, of functions whose paragraph says more)
FORMS = ("summary", "description")


def questions_of(eval_set: EvalSet, form: str = "summary", min_terms: int = 0) -> list[dict]:
    """The set's questions as asked in `form`, of at least `min_terms` distinct terms: a mined
    set's long forms; a written set's questions as written, whatever the form."""
    import json

    from core.terms import query_terms

    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}")
    if form == "summary" or not eval_set.mined:
        return [q for q in eval_set.queries() if len(list(query_terms(q["query"]))) >= min_terms]
    lines = (eval_set.folder / "descriptions.jsonl").read_text().splitlines()
    queries = [json.loads(line) for line in lines if line.strip()]
    return [q for q in queries if len(list(query_terms(q["query"]))) >= min_terms]


def label(result: Result, golds: list[dict]) -> int:
    """2 for a tight hit on a gold answer, 1 for an overlapping one, else 0."""
    if any(is_tight(result, g) for g in golds):
        return 2
    return int(any(is_hit(result, g) for g in golds))


def collect(eval_set: EvalSet, search: CodeatlasSearch, queries: list[dict]) -> list[QueryRows]:
    """The rows of every query (progress on stderr)."""
    from retrieval.search import candidates

    rows: list[QueryRows] = []
    started = time.monotonic()
    for i, q in enumerate(queries, 1):
        found = candidates(search.conn, search.scope, q["query"], embed_query=search.embed_query)
        search.conn.commit()
        if not found.hits:
            continue
        labels = [label(Result(h.path, h.start_line, h.end_line), q["gold"]) for h in found.hits]
        rows.append(QueryRows(eval_set.name, q["id"], found.features(), np.asarray(labels)))
        if i % 100 == 0 or i == len(queries):
            rate = i / max(time.monotonic() - started, 1e-9)
            print(
                f"[ranker] {eval_set.name}: {i}/{len(queries)} queries ({rate:.0f}/s)",
                file=sys.stderr,
                flush=True,
            )
    return rows
