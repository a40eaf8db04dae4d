"""The learned order of `locate`: its files, and the functions of its leading files, ordered by a
learned model over the evidence `locate` gathered, trained on mined fixes (issue 46): a linear
score, and boosted trees that correct it where a model has them.

`locate` adds its evidence up per file with hand-set weights (`LocateWeights`). Here each piece
of evidence is a feature, with a few that the hand-set sum cannot use (the file's name in the
report, the function's position in its file, its name's parts in the report), and the weights are
fitted listwise (softmax over one report's candidates) on (fix message -> changed files and
functions) pairs mined from the history of public repositories of every language
(`lab/ranker/locate_train.py`). Locate's own score and rank are features too: the model
corrects the evidence order rather than replacing it. A model is JSON (`load_ranker`), shipped
beside this module when it wins on the held-out repositories (docs/retrieval.md, "The learned
order of locate"); it applies to every report, whatever its length.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from core.terms import query_terms
from retrieval.path_roles import BENCHMARK, CODE, DOCS, EXAMPLE, FIXTURE, TEST, VENDORED, file_role
from retrieval.trees import Trees

SHIPPED_LOCATE_MODEL = Path(__file__).with_name("locate_ranker_model.json")
# the candidates a model orders: the files of the evidence order's top, and every scored
# function of the leading files
FILE_CANDIDATES = 40

FILE_FEATURES = (
    "evidence_score",  # locate's hand-set sum, over the best file's
    "evidence_rank",  # ln(1 + rank) in locate's order
    "text",  # the file's decayed prose score, over the best file's
    "text_best",  # its best unit's BM25, over the best unit's of all files
    "text_units",  # ln(1 + units that matched the prose)
    "meaning",  # the decayed nearness to the report's opening, over the best file's
    "frame",  # a stack frame names the file (1/n for n files of that name)
    "path_named",  # a quoted path or dotted module names it
    "symbols",  # ln(1 + named definitions, 1/n each)
    "auxiliary",  # a test, doc, example or copy no frame or path names
    "test",  # a test or fixture (`file_role`: its path's role, else its content's)
    "docs_example",  # docs, an example or a benchmark
    "vendored",
    "path_terms",  # the share of the path's terms the report holds
    "name_in_report",  # the file's name (without extension) is a word of the report
    "depth",  # ln(1 + folders)
)
FUNCTION_FEATURES = (
    "file_score",  # its file's evidence score, over the best file's
    "file_rank",  # ln(1 + its file's rank)
    "unit_score",  # locate's own function score, over its file's best
    "named",  # frames and identifiers that name it
    "text",  # its BM25, over the best function's
    "text_in_file",  # ... over its file's best function's
    "meaning",
    "log_lines",
    "method",  # a qualified name (Class.method, Type::fn)
    "private",  # `_name`
    "dunder",  # `__name__`
    "name_in_report",  # its own name is a word of the report
    "name_parts",  # the share of its name's parts the report's words hold
    "position",  # its first line over the file's last function line
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


class FileEvidence(Protocol):
    """What `locate` gathered for one file (its `_FileState`)."""

    path: str
    text: list[float]
    meaning: list[float]
    frame: float
    path_named: float
    symbols: float
    units: dict[str, Any]
    stored_role: str | None  # the role its content showed when indexed (None: none read)


class Located(Protocol):
    """A located file (`LocatedFile`)."""

    path: str
    score: float
    functions: list[Any]


@dataclass(frozen=True)
class ReportWords:
    """The report's words and their parts, lowered, and its stemmed terms."""

    words: frozenset[str]
    parts: frozenset[str]
    terms: frozenset[str]

    @staticmethod
    def of(text: str) -> ReportWords:
        words = {w.lower() for w in _WORD.findall(text)}
        parts = {p.lower() for w in _WORD.findall(text) for p in _PART.findall(w)}
        return ReportWords(frozenset(words), frozenset(parts), frozenset(query_terms(text)))


def _decayed(scores: Sequence[float], decay: float = 0.5) -> float:
    return sum(s * decay**i for i, s in enumerate(sorted(scores, reverse=True)))


def _name_parts(name: str) -> list[str]:
    return [p.lower() for p in _PART.findall(name)]


def file_features(
    located: Sequence[Located], states: Sequence[FileEvidence | None], words: ReportWords
) -> np.ndarray:
    """The feature matrix of the files (in `FILE_FEATURES` order), given in locate's order."""
    text = [_decayed(s.text) if s else 0.0 for s in states]
    meaning = [_decayed(s.meaning) if s else 0.0 for s in states]
    best_unit = [max(s.text, default=0.0) if s else 0.0 for s in states]
    top_text = max(text, default=0.0) or 1.0
    top_meaning = max(meaning, default=0.0) or 1.0
    top_unit = max(best_unit, default=0.0) or 1.0
    top_score = max((f.score for f in located), default=0.0) or 1.0
    rows: list[list[float]] = []
    for rank, (f, s) in enumerate(zip(located, states, strict=True)):
        # the role locate ranks by: the path's, else the one read from the content when it
        # was indexed (a test suite in a folder `path_roles` does not list)
        role = file_role(f.path, s.stored_role if s else None)
        named = bool(s and (s.frame or s.path_named))
        stem = f.path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        path_terms = set(query_terms(f.path.replace("/", " ")))
        rows.append(
            [
                f.score / top_score,
                math.log1p(rank),
                text[rank] / top_text,
                best_unit[rank] / top_unit,
                math.log1p(len(s.text) if s else 0),
                meaning[rank] / top_meaning,
                s.frame if s else 0.0,
                s.path_named if s else 0.0,
                math.log1p(s.symbols) if s else 0.0,
                float(role != CODE and not named),
                float(role in (TEST, FIXTURE)),
                float(role in (DOCS, EXAMPLE, BENCHMARK)),
                float(role == VENDORED),
                len(path_terms & words.terms) / len(path_terms) if path_terms else 0.0,
                float(len(stem) > 2 and stem in words.words),
                math.log1p(f.path.count("/")),
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FILE_FEATURES))


@dataclass(frozen=True)
class FunctionCandidate:
    """One function of a leading file, with its file's place."""

    file_rank: int
    file_score: float  # the file's evidence score
    symbol: str
    start_line: int
    end_line: int
    unit_score: float  # locate's own score of the function
    named: float
    text: float
    meaning: float


def function_features(candidates: Sequence[FunctionCandidate], words: ReportWords) -> np.ndarray:
    """The feature matrix of the functions (in `FUNCTION_FEATURES` order)."""
    top_file = max((c.file_score for c in candidates), default=0.0) or 1.0
    top_text = max((c.text for c in candidates), default=0.0) or 1.0
    file_text: dict[int, float] = {}
    file_unit: dict[int, float] = {}
    file_end: dict[int, int] = {}
    for c in candidates:
        file_text[c.file_rank] = max(file_text.get(c.file_rank, 0.0), c.text)
        file_unit[c.file_rank] = max(file_unit.get(c.file_rank, 0.0), c.unit_score)
        file_end[c.file_rank] = max(file_end.get(c.file_rank, 1), c.end_line)
    rows: list[list[float]] = []
    for c in candidates:
        short = re.split(r"\.|::", c.symbol)[-1]
        own = _name_parts(short)
        rows.append(
            [
                c.file_score / top_file,
                math.log1p(c.file_rank),
                c.unit_score / (file_unit[c.file_rank] or 1.0),
                c.named,
                c.text / top_text,
                c.text / (file_text[c.file_rank] or 1.0),
                c.meaning,
                math.log(max(1, c.end_line - c.start_line + 1)),
                float(short != c.symbol),
                float(short.startswith("_") and not short.startswith("__")),
                float(short.startswith("__")),
                float(len(short) > 3 and short.lower() in words.words),
                sum(p in words.parts for p in own) / len(own) if own else 0.0,
                c.start_line / file_end[c.file_rank],
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FUNCTION_FEATURES))


@dataclass(frozen=True)
class LearnedOrder:
    """A learned scoring of candidates: `x @ weights` (features as `features` lists them), plus
    the sum of `trees` when the model has them: boosted trees fitted on top of the linear
    score, which they correct where features interact (a frame only counts in a file that is
    code, say) and leave alone elsewhere."""

    features: tuple[str, ...]
    weights: np.ndarray
    trees: Trees | None = None

    def score(self, x: np.ndarray) -> np.ndarray:
        linear = x @ self.weights
        return linear if self.trees is None else linear + self.trees.score(x)


class LocateRanker:
    """A learned order of locate's files and of its leading files' functions. The base class
    keeps locate's own order (and is what collection subclasses to read the features)."""

    def __init__(
        self,
        files: LearnedOrder | None = None,
        functions: LearnedOrder | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.files = files
        self.functions = functions
        self.meta = meta or {}

    def order_files(self, located: list[Any], states: list[Any], words: ReportWords) -> list[Any]:
        """The files in the learned order (the first `FILE_CANDIDATES` of locate's order
        reordered, the rest after them); unchanged without a file model."""
        if self.files is None or len(located) < 2:
            return located
        head = located[:FILE_CANDIDATES]
        scores = self.files.score(file_features(head, states[: len(head)], words))
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        return [head[i] for i in order] + located[FILE_CANDIDATES:]

    def order_functions(
        self, candidates: list[FunctionCandidate], words: ReportWords
    ) -> list[float] | None:
        """One score per candidate (higher first), or None to keep locate's order."""
        if self.functions is None or not candidates:
            return None
        return [float(s) for s in self.functions.score(function_features(candidates, words))]


def as_model(
    files: LearnedOrder | None, functions: LearnedOrder | None, meta: dict[str, Any]
) -> dict[str, Any]:
    """The JSON of a ranker (`load_ranker` reads it)."""

    def part(order: LearnedOrder | None) -> dict[str, Any] | None:
        if order is None:
            return None
        out: dict[str, Any] = {
            "features": list(order.features),
            "weights": [float(w) for w in order.weights],
        }
        if order.trees is not None:
            out["trees"] = order.trees.flat
        return out

    return {
        "kind": "locate-ranker",
        "files": part(files),
        "functions": part(functions),
        "meta": meta,
    }


def ranker_from(model: dict[str, Any]) -> LocateRanker:
    """A ranker of `as_model`'s JSON; an error naming what to do when its features differ."""
    if model.get("kind") != "locate-ranker":
        raise ValueError("not a locate ranker model (expected kind 'locate-ranker')")

    def part(data: dict[str, Any] | None, features: tuple[str, ...]) -> LearnedOrder | None:
        if data is None:
            return None
        if tuple(data["features"]) != features:
            raise ValueError(
                "the locate ranker was trained on other features; retrain it:"
                " python -m lab.ranker.locate_train"
            )
        trees = Trees(data["trees"]) if data.get("trees") else None
        return LearnedOrder(features, np.asarray(data["weights"], dtype=np.float64), trees)

    return LocateRanker(
        part(model.get("files"), FILE_FEATURES),
        part(model.get("functions"), FUNCTION_FEATURES),
        model.get("meta", {}),
    )


def load_ranker(path: str | os.PathLike[str]) -> LocateRanker:
    """A model written by `lab.ranker.locate_train`."""
    return ranker_from(json.loads(Path(path).read_text()))


@cache
def shipped_locate_ranker() -> LocateRanker | None:
    """The model shipped in the package, read once; None when none ships."""
    return load_ranker(SHIPPED_LOCATE_MODEL) if SHIPPED_LOCATE_MODEL.is_file() else None
