"""The learned ranking of hybrid search: what each retriever said about a hit, as features, and a
small tree ensemble trained on mined queries that orders the hits by them (docs/retrieval.md).

A model is a LightGBM LambdaRank ensemble trained by `make train-ranker` (lab/ranker/)
on docstring-summary queries mined from registry code, never on the eval sets, written as JSON
and evaluated here with numpy (the query path does not import LightGBM). The trees learn a
correction of the fused order: a hit's score is `-prior * ln(fused rank)` plus the trees' sum, so
where the features say nothing the fused order stands. A model carries the domain it was trained
on (the embedding model whose similarities it read, the length of its training queries) and is
used only inside it (`TreeEnsemble.applies`); outside, the fused order is kept. The shipped model
is `ranker_model.json` beside this module (docs/retrieval.md, "The learned ranking").
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from core.database import Row
from core.terms import enclosing_name, text_terms
from indexing.parsing.grammars import FUNCTION_KINDS
from retrieval.hits import Hit, is_thin
from retrieval.path_roles import BENCHMARK, DOCS, EXAMPLE, FIXTURE, TEST, VENDORED, path_role
from retrieval.trees import Trees, flat_trees

# the model `search_code` uses unless given another (`make train-ranker` rebuilds it)
SHIPPED_MODEL = Path(__file__).with_name("ranker_model.json")
# the model of long, descriptive questions (beyond the short model's length), when one ships
SHIPPED_LONG_MODEL = Path(__file__).with_name("ranker_model_long.json")

# One row per hit. Ranks are 1-based among the distinct units a retriever found; a retriever that
# did not find the unit gives rank 0 and score 0, and its `*_found` flag says so.
FEATURES = (
    "fused_rank",  # the rank-fusion order (RRF of the rankings, docs/retrieval.md)
    "fused_share",  # the fused score over the best fused score
    "lexical_found",
    "lexical_rank",
    "lexical_bm25",  # the unit's best chunk's BM25
    "lexical_bm25_share",  # ... over the query's best BM25
    "file_evidence",  # the best other candidate of its file, over the query's best BM25
    "semantic_found",
    "semantic_rank",
    "semantic_similarity",  # cosine similarity of the unit's best chunk
    "semantic_gap",  # the query's best similarity minus the unit's
    "symbol_found",  # a definition named by an identifier of the query
    "named",  # the query names the unit (its name or last segments)
    "is_function",
    "is_declaration",  # a class, interface, struct, type... (else a file-level chunk)
    "is_thin",  # at most 3 lines of code (an accessor, a delegation)
    "log_lines",  # of the hit's range
    "pieces",  # chunks of the symbol
    "path_test",  # a test or fixture (`retrieval/path_roles.py`)
    "path_example_or_docs",  # an example, docs or a benchmark
    "path_vendored",  # a vendored copy of another project
    "name_coverage",  # share of the query's terms in the unit's own name
    "context_coverage",  # ... in its enclosing names and path
    "query_terms",  # distinct lexical terms of the query
    "query_identifiers",
)


@dataclass(frozen=True)
class Evidence:
    """What the retrievers found for one query, by unit (`place`)."""

    lexical: dict[tuple[Any, ...], tuple[int, float, float]]  # rank, bm25, file evidence
    semantic: dict[tuple[Any, ...], tuple[int, float]]  # rank, similarity
    thin: dict[tuple[Any, ...], bool]
    pieces: dict[tuple[Any, ...], int]
    symbols: frozenset[tuple[Any, ...]]
    best_bm25: float
    best_similarity: float


def gather_evidence(
    rankings: dict[str, list[Row]], symbol_places: Sequence[tuple[Any, ...]], place_of: Any
) -> Evidence:
    """Each unit's best rank and score in the lexical and semantic rankings (`place_of(row)`
    names a row's unit, as its hit is named)."""
    lexical: dict[tuple[Any, ...], tuple[int, float, float]] = {}
    semantic: dict[tuple[Any, ...], tuple[int, float]] = {}
    thin: dict[tuple[Any, ...], bool] = {}
    pieces: dict[tuple[Any, ...], int] = {}
    best_bm25 = 0.0
    best_similarity = 0.0
    for name, rows in rankings.items():
        for row in rows:
            place = place_of(row)
            thin.setdefault(place, is_thin(row["short_content"]))
            pieces.setdefault(place, row["piece_count"] or 1)
            if name == "lexical":
                bm25 = float(row.get("bm25", row["rank"]))
                best_bm25 = max(best_bm25, bm25)
                if place not in lexical:
                    lexical[place] = (len(lexical) + 1, bm25, float(row["rank"]) - bm25)
            else:
                similarity = 1.0 - float(row["distance"])
                best_similarity = max(best_similarity, similarity)
                seen = semantic.get(place)
                if seen is None:
                    semantic[place] = (len(semantic) + 1, similarity)
                elif similarity > seen[1]:  # a second model's closer vector
                    semantic[place] = (seen[0], similarity)
    return Evidence(
        lexical, semantic, thin, pieces, frozenset(symbol_places), best_bm25, best_similarity
    )


def features(
    hits: Sequence[Hit],
    places: Sequence[tuple[Any, ...]],
    evidence: Evidence,
    *,
    query_terms: Collection[str],
    query_identifiers: int,
    named: Sequence[bool],
) -> np.ndarray:
    """The feature matrix of the hits (in `FEATURES` order), given in the fused order."""
    rows: list[list[float]] = []
    best_fused = max((h.score for h in hits), default=0.0) or 1.0
    best_bm25 = evidence.best_bm25 or 1.0
    for rank, (hit, place, is_named) in enumerate(zip(hits, places, named, strict=True), 1):
        lex_rank, bm25, file_evidence = evidence.lexical.get(place, (0, 0.0, 0.0))
        sem_rank, similarity = evidence.semantic.get(place, (0, 0.0))
        role = path_role(hit.path)
        function = hit.kind in FUNCTION_KINDS
        name = _last_segment(hit.symbol or "")
        context = f"{enclosing_name(hit.symbol or '')} {hit.path}"
        rows.append(
            [
                rank,
                hit.score / best_fused,
                float(lex_rank > 0),
                lex_rank,
                bm25,
                bm25 / best_bm25,
                file_evidence / best_bm25,
                float(sem_rank > 0),
                sem_rank,
                similarity,
                evidence.best_similarity - similarity if sem_rank else 1.0,
                float(place in evidence.symbols),
                float(is_named),
                float(function),
                float(hit.symbol is not None and not function),
                float(evidence.thin.get(place, False)),
                math.log(max(1, hit.end_line - hit.start_line + 1)),
                evidence.pieces.get(place, 1),
                float(role in (TEST, FIXTURE)),
                float(role in (EXAMPLE, DOCS, BENCHMARK)),
                float(role == VENDORED),
                _coverage(query_terms, name),
                _coverage(query_terms, context),
                len(query_terms),
                query_identifiers,
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))


def _last_segment(qualified: str) -> str:
    head = enclosing_name(qualified)
    return qualified[len(head) :].lstrip(".:") if head else qualified


def _coverage(query_terms: Collection[str], text: str) -> float:
    """The share of the query's distinct terms that `text`'s terms hold."""
    if not query_terms:
        return 0.0
    held = set(text_terms(text))
    return sum(t in held for t in query_terms) / len(query_terms)


class TreeEnsemble:
    """The search ranker: a tree ensemble (`retrieval/trees.py`) over `FEATURES`, added to the
    fused order's `-prior * ln(fused rank)`, with the domain it applies to."""

    def __init__(self, model: dict[str, Any]) -> None:
        if tuple(model["features"]) != FEATURES:
            raise ValueError(
                "the ranker model was trained on other features; rebuild it: make train-ranker"
            )
        self.meta: dict[str, Any] = model.get("meta", {})
        # the weight of the fused order the trees correct (0: the trees alone)
        self.prior = float(model.get("prior", 0.0))
        domain = model.get("domain", {})
        self.embedding_model: str | None = domain.get("embedding_model")
        # models whose similarities the model was measured on too, and applies to (a model
        # fine-tuned from the one it learned: lab/ranker/finetune.py)
        self.also_embedding_models: list[str] = list(domain.get("also_embedding_models", []))
        self.max_query_terms: int | None = domain.get("max_query_terms")
        self.min_query_terms: int | None = domain.get("min_query_terms")
        self._trees = Trees(model["trees"])

    def applies(self, semantic_models: Collection[str], query_terms: int) -> bool:
        """Whether a query is inside the domain the model was trained on: its hits were ranked
        by the one embedding model whose similarities the model learned (none if trained
        without), and it is no longer than the training queries were (their 95th percentile).
        The longer, descriptive questions of users are unlike the mined docstring summaries,
        and there the learned order lost to the fused one (docs/retrieval.md); a model trained
        on long questions (`min_query_terms`) applies only to those."""
        if self.embedding_model is not None:
            models = list(semantic_models)
            known = [self.embedding_model, *self.also_embedding_models]
            if len(models) != 1 or models[0] not in known:
                return False
        if self.min_query_terms is not None and query_terms < self.min_query_terms:
            return False
        return self.max_query_terms is None or query_terms <= self.max_query_terms

    def predict(self, x: np.ndarray) -> np.ndarray:
        """One score per row of `x` (higher ranks first)."""
        fused_rank = np.maximum(x[:, FEATURES.index("fused_rank")], 1.0)
        return -self.prior * np.log(fused_rank) + self._trees.score(x)


def load_model(path: str | os.PathLike[str]) -> TreeEnsemble:
    """A model written by `make train-ranker` (`as_model`'s JSON)."""
    return TreeEnsemble(json.loads(Path(path).read_text()))


@cache
def shipped_model() -> TreeEnsemble:
    """The model shipped in the package, read once."""
    return load_model(SHIPPED_MODEL)


@cache
def shipped_models() -> tuple[TreeEnsemble, ...]:
    """The models shipped in the package, read once: the short questions' and, when one ships,
    the long questions'; their domains do not overlap."""
    long = (load_model(SHIPPED_LONG_MODEL),) if SHIPPED_LONG_MODEL.is_file() else ()
    return (shipped_model(), *long)


def as_model(
    dump: dict[str, Any],
    meta: dict[str, Any],
    *,
    prior: float = 0.0,
    domain: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON shipped for a trained LightGBM booster (`dump_model()`), with where it came
    from (`meta`), the weight of the fused order its trees correct (`prior`) and the domain it
    applies to (`embedding_model`, `also_embedding_models`, `min_query_terms`,
    `max_query_terms`)."""
    if tuple(dump["feature_names"]) != FEATURES:
        raise ValueError("the booster was trained on other features than FEATURES")
    return {
        "features": list(FEATURES),
        "meta": meta,
        "prior": prior,
        "domain": domain or {},
        "trees": flat_trees(dump),
    }
