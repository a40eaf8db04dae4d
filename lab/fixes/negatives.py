"""Hard negatives for a mined pair: functions of the same repository at the parent commit that
look like answers and are not. A few come from the changed files themselves (functions the fix
did not touch) and a few from the files beside them, ranked by a small in-process BM25 of the
query over those functions' text (k1 = 1.2, b = 0.75, the usual constants)."""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from lab.fixes.functions import Function, term_bag, terms

SAME_FILE = 3
BM25 = 5
_K1 = 1.2
_B = 0.75


@lru_cache(maxsize=100_000)
def _document(text: str, path: str) -> Counter[str]:
    return term_bag(text) + term_bag(path)


def bm25_order(query: str, functions: list[Function]) -> list[tuple[float, Function]]:
    """The functions by BM25 score of the query over their text, best first (ties by place)."""
    if not functions:
        return []
    documents = [_document(f.text, f.path) for f in functions]
    lengths = [sum(d.values()) for d in documents]
    average = sum(lengths) / len(lengths) or 1.0
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(document.keys())
    query_terms = set(terms(query))
    scored = []
    for index, (document, length) in enumerate(zip(documents, lengths, strict=True)):
        score = 0.0
        for term in query_terms:
            tf = document.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * length / average))
        scored.append((score, index))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [(score, functions[index]) for score, index in scored]


def hard_negatives(
    query: str,
    positives: list[Function],
    changed: list[Function],
    neighbours: list[Function],
) -> list[dict]:
    """Up to SAME_FILE untouched functions of the changed files and BM25 functions of other
    files, each the highest-scoring of its kind for the query."""
    chosen = {(p.path, p.start_line) for p in positives}
    found: list[dict] = []
    for why, pool, limit in (("same_file", changed, SAME_FILE), ("bm25", neighbours, BM25)):
        pool = [f for f in pool if (f.path, f.start_line) not in chosen]
        for score, function in bm25_order(query, pool)[:limit]:
            if why == "bm25" and score <= 0:
                break
            chosen.add((function.path, function.start_line))
            found.append(
                {
                    "path": function.path,
                    "symbol": function.symbol,
                    "start_line": function.start_line,
                    "end_line": function.end_line,
                    "why": why,
                }
            )
    return found
