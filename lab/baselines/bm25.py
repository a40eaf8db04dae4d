"""Okapi BM25 over code-aware tokens (identifiers split into their words), in memory."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

_WORD = re.compile(r"[A-Za-z0-9_]+")
# the eval READMEs' reference tokenizer: words of identifiers (camelCase and snake_case split),
# acronyms, numbers; lower-cased
_README_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")


def readme_tokens(text: str) -> list[str]:
    """Tokens as the eval READMEs' BM25 reference defines them."""
    return [w.lower() for w in _README_WORD.findall(text)]


def code_tokens(text: str) -> list[str]:
    """Lower-cased words: identifiers split (`isEligible`, `is_eligible` -> is, eligible) and
    also kept whole, so a query naming an identifier matches it exactly."""
    out: list[str] = []
    for ident in _WORD.findall(text):
        parts = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", ident)
        parts = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", parts)
        words = [w.lower() for w in re.split(r"[_\s]+", parts) if w]
        out.extend(words)
        whole = ident.strip("_").lower()
        if len(words) > 1 and whole:
            out.append(whole)
    return out


class BM25:
    """BM25 (k1 = 1.2, b = 0.75) with a postings list per term; scores all documents at once."""

    def __init__(
        self,
        documents: Sequence[str],
        k1: float = 1.2,
        b: float = 0.75,
        tokens: Callable[[str], list[str]] = code_tokens,
    ) -> None:
        self.k1, self.b = k1, b
        self.tokens = tokens
        tokenized = [Counter(tokens(d)) for d in documents]
        self.n = len(tokenized)
        lengths = np.array([sum(c.values()) for c in tokenized], dtype=np.float64)
        self.norm = k1 * (1 - b + b * lengths / max(lengths.mean(), 1.0))
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for doc, counts in enumerate(tokenized):
            for term, tf in counts.items():
                ids, tfs = postings.setdefault(term, ([], []))
                ids.append(doc)
                tfs.append(tf)
        self.postings = {
            t: (np.array(ids), np.array(tfs, dtype=np.float64))
            for t, (ids, tfs) in postings.items()
        }

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for the query."""
        total = np.zeros(self.n)
        for term in set(self.tokens(query)):
            if term not in self.postings:
                continue
            ids, tfs = self.postings[term]
            idf = math.log(1 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
            total[ids] += idf * tfs * (self.k1 + 1) / (tfs + self.norm[ids])
        return total

    def top(self, query: str, k: int) -> list[int]:
        """Indexes of the k best documents (documents with score 0 left out)."""
        s = self.scores(query)
        order = np.argsort(-s, kind="stable")[:k]
        return [int(i) for i in order if s[i] > 0]
