"""Hybrid search: semantic (per model), lexical and exact-symbol rankings fused with weighted RRF
(k = 60), pieces of one symbol collapsed into one hit spanning the symbol (docs/retrieval.md)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from core.database import Row
from core.terms import query_terms, word_stems
from indexing.parsing.content_roles import is_test_function
from indexing.parsing.grammars import FUNCTION_KINDS
from retrieval.concurrency import Connections, Task, run_concurrently
from retrieval.hits import Hit, SymbolMatch, head, is_thin, unit_range
from retrieval.issue_text import is_report
from retrieval.lexical import lexical_candidates
from retrieval.locate import locate, located_hits
from retrieval.path_roles import (
    BENCHMARK,
    CODE,
    EXAMPLE,
    FIXTURE,
    GENERATED,
    TEST,
    VENDORED,
    file_role,
)
from retrieval.ranker import TreeEnsemble, features, gather_evidence, shipped_models
from retrieval.reading import function_texts, stored_roles
from retrieval.request_budget import check_budget
from retrieval.scope import DbConnection, Scope
from retrieval.semantic import QueryEmbedder, semantic_candidates
from retrieval.symbols import exact_symbols, normalize_name, query_identifiers

if TYPE_CHECKING:
    from retrieval.rerank import Reranker

log = logging.getLogger(__name__)

RRF_K = 60
# fusion weights, chosen on the three public dev sets together (docs/retrieval.md)
# (the local MiniLM model is weak on code: its ranking counts a fifth of BM25's)
RETRIEVER_WEIGHTS = {"lexical": 1.0, "semantic": 0.2, "symbol": 1.0}
DECLARATION_WEIGHT = 0.5
FILE_WEIGHT = 0.5
THIN_FUNCTION_WEIGHT = 0.5
# a function split into pieces is read whole for the thin test when it spans fewer lines
# (`with_whole_functions`)
WHOLE_FUNCTION_LINES = 200
# a unit of a file that is not the code itself (its tests, fixtures, examples, benchmarks, a
# vendored copy, generated code: `retrieval/path_roles.py`) counts this share in the fusion,
# unless the question asks for that kind of file (`ROLE_WORDS`) or names the unit; a file of a
# docs folder counts fully (a package named `doc` is often code: cobra's man-page generator)
AUXILIARY_WEIGHT = 1 / 3
# the auxiliary roles, and the words (stems, `core.terms.word_stems`) that ask for them
ROLE_WORDS = {
    TEST: frozenset({"test", "spec"}),
    FIXTURE: frozenset({"fixtur", "test"}),
    EXAMPLE: frozenset({"exampl", "demo", "sampl"}),
    BENCHMARK: frozenset({"benchmark", "bench"}),
    VENDORED: frozenset({"vendor"}),
    GENERATED: frozenset({"generat"}),
}
# a lexical candidate inherits this share of the score of the best other candidate of its file
FILE_EVIDENCE_SHARE = 0.2
MODES = ("hybrid", "semantic", "lexical")
# the semantic ranking's best unit, when the lexical ranking did not find it at all, is at least
# this high in the hybrid order (`with_semantic_best`)
SEMANTIC_SLOT = 5
# an identifier with more definitions than this is too common to be "the" answer
MAX_INJECTED_PER_NAME = 3
MAX_INJECTED = 5
PREVIEW_LINES = 3
# how much of a query is embedded: the models read its first 256 tokens (~1,000 characters), and
# tokenizing all of a 64 KiB one-line query first cost time for nothing
SEMANTIC_QUERY_CHARS = 2000
# the files a bug report's search reads at most (as many as `locate` returns at most)
REPORT_FILES = 50


@dataclass
class SearchReport:
    """Hits plus what happened (models skipped, retrievers that ran)."""

    hits: list[Hit]
    notes: list[str] = field(default_factory=list[str])


def _key(row: Row) -> tuple[Any, ...]:
    """Pieces of one symbol, and same-named definitions of one file (overload signatures and
    their implementation, a property's getter and setter, C#'s and Java's overloads), share a
    key: one hit, whose lines are those of the definition that matched best and of the ones
    beside it, at most one of them bodied (`_with_thin_neighbours`; a question names the
    definitions when it wants them all: `add_symbol_hits`); a file-level chunk is keyed by
    itself."""
    ident = (
        ("symbol", row["qualified_name"])
        if row["symbol_id"] is not None
        else ("chunk", str(row["chunk_id"]))
    )
    return (row["repository"], row["path"], row["source"], *ident)


def _preview(head: str | None, skip_header: bool) -> str | None:
    if not head:
        return None
    lines = [line for line in head.splitlines() if line.strip()]
    if skip_header and len(lines) > 1:
        lines = lines[1:]
    text = "\n".join(lines[:PREVIEW_LINES])
    return text[:240]


def _row_range(row: dict[str, Any]) -> tuple[int, int]:
    """A symbol's whole range (all its pieces), or the head or matched piece of a long
    declaration; a file-level chunk's own lines."""
    if row["symbol_id"] is None or row["symbol_start"] is None:
        return row["chunk_start"], row["chunk_end"]
    piece = (row["chunk_start"], row["chunk_end"]) if row["piece"] > 0 else None
    return unit_range(row["symbol_start"], row["symbol_end"], row["outline_end"], piece)


def _span(ranges: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """The lines covering all the ranges (same-named definitions sit side by side)."""
    starts, ends = zip(*ranges, strict=True)
    return min(starts), max(ends)


# same-named definitions this many lines apart or closer sit side by side (PEP 8's two blank
# lines between top-level functions, a comment line)
ADJACENT_LINES = 3


def _with_thin_neighbours(best: Row, others: Iterable[Row]) -> tuple[int, int]:
    """The lines of the best-matching definition of a key with the same-named ones next to it,
    holding at most one bodied definition: overload signatures and `@overload` stubs with their
    implementation, a one-line overload delegating to it, a property's one-line setter; never a
    second bodied overload (Java's, C#'s), which answers something else."""
    start, end = _row_range(best)
    bodied = not is_thin(best["short_content"])
    rest = [(_row_range(r), is_thin(r["short_content"])) for r in others if r is not best]
    grown = True
    while grown:
        grown = False
        for (lo, hi), thin in rest:
            inside = start <= lo and hi <= end
            beside = lo <= end + ADJACENT_LINES and hi >= start - ADJACENT_LINES
            if beside and not inside and (thin or not bodied):
                start, end, grown = min(start, lo), max(end, hi), True
                bodied = bodied or not thin
    return start, end


def _hit_from_row(
    row: dict[str, Any], others: Iterable[Row], score: float, retrievers: list[str]
) -> Hit:
    start, end = _with_thin_neighbours(row, others)
    return Hit(
        repository=row["repository"],
        path=row["path"],
        start_line=start,
        end_line=end,
        symbol=row["qualified_name"],
        kind=row["symbol_kind"],
        score=score,
        retrievers=retrievers,
        commit=row["commit_sha"],
        source=row["source"],
        preview=_preview(head(row), skip_header=row["piece_count"] > 1),
    )


class QuestionWords(NamedTuple):
    """A question's stemmed words (space-separated and padded, to find a phrase in) and how
    many terms it has (`query_terms`), for `_is_spelled`."""

    text: str
    terms: int


NO_WORDS = QuestionWords("", 0)


def _unit_weight(row: Row, named: Sequence[str], words: QuestionWords = NO_WORDS) -> float:
    """How much a hit of this unit counts: a function or method fully; a declaration (class,
    interface, struct, type...), a file's top-level code or a thin function (an accessor, a
    delegation: `is_thin`) less: they name and describe what the functions around them do, and
    those answer. A thin function the question names is what was asked: as code (`named`: its
    identifiers) or spelled out in its words (`words`: `question_words`). A unit of a test,
    example or other auxiliary file counts `AUXILIARY_WEIGHT` of that (`_role_share`)."""
    return _kind_weight(row, named, words) * _role_share(row, named, words)


def _kind_weight(row: Row, named: Sequence[str], words: QuestionWords) -> float:
    if row["symbol_id"] is None:
        return FILE_WEIGHT
    if row["symbol_kind"] not in FUNCTION_KINDS:
        return DECLARATION_WEIGHT
    if is_thin(row["short_content"]) and not (
        _is_named(row["qualified_name"], named) or _is_spelled(row["qualified_name"], words)
    ):
        return THIN_FUNCTION_WEIGHT
    return 1.0


def _role_share(row: Row, named: Sequence[str], words: QuestionWords) -> float:
    """1 for a unit of the code itself (or of a docs folder), `AUXILIARY_WEIGHT` for one of a
    test, fixture, example, benchmark, vendored or generated file (its path's role, else what
    its content showed when indexed: `file_role`, `with_stored_roles`), unless the question
    asks for that kind of file in words (`ROLE_WORDS`: "how is the retry tested") or names the
    unit. A question of how the code does something is answered by the code: its tests repeat
    the question's words in short methods that BM25 and the model rank high (on a framework
    with its tests, a third of the hits above the answer were tests:
    lab/results/behaviour_php2.md), and `locate` ranks them below the code for the same
    reason."""
    role = file_role(row["path"], row.get("stored_role"))
    if role == CODE and _is_inline_test(row):
        role = TEST
    if role not in ROLE_WORDS:
        return 1.0
    asked = ROLE_WORDS[role] & set(words.text.split())
    if asked or (row["symbol_id"] is not None and _is_named(row["qualified_name"], named)):
        return 1.0
    return AUXILIARY_WEIGHT


def _is_inline_test(row: Row) -> bool:
    """A test function of a code file: a function of Rust's inline `mod tests`, whose file is
    code (`is_test_function`). Its assertions repeat the words of a question about what it
    tests (a Rust web framework's questions, lab/questions/axum: tests were most of the hits
    above the answers), so it counts as a test does."""
    return row["symbol_id"] is not None and is_test_function(
        row.get("stored_language") or "", row["qualified_name"]
    )


def question_words(query: str) -> QuestionWords:
    """`QuestionWords` of a question."""
    return QuestionWords(f" {' '.join(word_stems(query))} ", len(query_terms(query)))


def _is_spelled(qualified_name: str, words: QuestionWords) -> bool:
    """True when the question is mostly the symbol's own name spelled out: its words (two or
    more) as a phrase, and more than half of the question's terms. "bcrypt needs rehash" is
    `BcryptHasher.needsRehash`; "how is the refund limit of an account applied" asks how the
    limit is used, not for `Account.refund_limit`."""
    parts = word_stems(qualified_name.rsplit(".", 1)[-1])
    return len(parts) >= 2 and 2 * len(parts) > words.terms and f" {' '.join(parts)} " in words.text


def _is_named(qualified_name: str, named: Sequence[str]) -> bool:
    """True when one of the names is the symbol's, or its last segments (`Account.limit`)."""
    dotted = "." + normalize_name(qualified_name)
    return any(dotted.endswith("." + name) for name in named)


def with_file_evidence(rows: list[Row]) -> list[Row]:
    """Lexical candidates re-ranked with a share of their file's evidence (the best score of
    another candidate of the same file): the words of a question spread over the code around
    its answer (the class's fields, the helpers it calls), which a chunk alone does not hold."""
    best: dict[tuple[Any, ...], list[float]] = {}
    for row in rows:
        best.setdefault(_file(row), []).append(row["rank"])
    for scores in best.values():
        scores[:] = [*sorted(scores, reverse=True)[:2], 0.0]
    ranked: list[Row] = []
    for row in rows:
        first, second = best[_file(row)][:2]
        evidence = second if row["rank"] == first else first
        bm25 = row["rank"]
        ranked.append({**row, "bm25": bm25, "rank": bm25 + FILE_EVIDENCE_SHARE * evidence})
    return sorted(ranked, key=lambda r: -r["rank"])


def _file(row: Row) -> tuple[Any, ...]:
    return (row["repository"], row["path"], row["source"])


def fuse(
    rankings: dict[str, list[Row]], named: Sequence[str] = (), words: QuestionWords = NO_WORDS
) -> list[Hit]:
    """Weighted Reciprocal Rank Fusion over named rankings of candidate rows, pieces collapsed
    (`named`, `words`: the identifiers and words of the question, `_unit_weight`)."""
    scores: dict[tuple[Any, ...], float] = {}
    found_by: dict[tuple[Any, ...], list[str]] = {}
    # per key, the row that counted most: of same-named definitions (overloads), the one that
    # matched; of a long declaration, the piece that answers; and every row of the key
    best_of: dict[tuple[Any, ...], tuple[float, Row]] = {}
    rows_of: dict[tuple[Any, ...], list[Row]] = {}
    for retriever, rows in rankings.items():
        name = retriever.split(":", 1)[0]
        rank = 0
        seen: set[tuple[Any, ...]] = set()
        for row in rows:
            key = _key(row)
            weight = RETRIEVER_WEIGHTS.get(name, 1.0) * _unit_weight(row, named, words)
            share = weight / (RRF_K + rank + 1)
            if key not in best_of or best_of[key][0] < share:
                best_of[key] = (share, row)
            rows_of.setdefault(key, []).append(row)
            if key in seen:  # a later piece or definition of the symbol already ranked
                continue
            seen.add(key)
            rank += 1
            scores[key] = scores.get(key, 0.0) + share
            if name not in found_by.setdefault(key, []):
                found_by[key].append(name)
    ordered = sorted(scores, key=lambda k: (-scores[k], k[1], k[3], k[4]))
    return [
        _hit_from_row(best_of[k][1], rows_of[k], round(scores[k], 6), found_by[k]) for k in ordered
    ]


def _symbol_hit(matches: list[SymbolMatch]) -> Hit:
    """One hit for the same-named definitions of one file."""
    match = matches[0]
    start, end = _span(unit_range(m.start_line, m.end_line, m.outline_end) for m in matches)
    return Hit(
        repository=match.repository,
        path=match.path,
        start_line=start,
        end_line=end,
        symbol=match.symbol,
        kind=match.kind,
        score=0.0,  # given when fused
        retrievers=["symbol"],
        commit=match.commit,
        source=match.source,
        preview=match.signature[:240] or None,
    )


def exact_symbol_hits(conn: DbConnection, scope: Scope, query: str) -> list[Hit]:
    """Definitions named by identifiers in the query (at most a few per name)."""
    hits: list[Hit] = []
    for name in query_identifiers(query):
        found: dict[tuple[Any, ...], list[SymbolMatch]] = {}
        for m in exact_symbols(conn, scope, name, 4 * MAX_INJECTED_PER_NAME):
            found.setdefault((m.repository, m.path, m.source, m.symbol), []).append(m)
        if 0 < len(found) <= MAX_INJECTED_PER_NAME:
            hits.extend(_symbol_hit(ms) for ms in found.values())
    return hits[:MAX_INJECTED]


def _place(hit: Hit) -> tuple[Any, ...]:
    """What makes two hits the same answer: the symbol, or a file-level chunk's lines."""
    where = hit.symbol if hit.symbol is not None else hit.start_line
    return (hit.repository, hit.path, hit.source, where)


def _row_place(row: Row) -> tuple[Any, ...]:
    """`_place` of the hit a candidate row becomes."""
    where = row["qualified_name"] if row["symbol_id"] is not None else row["chunk_start"]
    return (row["repository"], row["path"], row["source"], where)


def add_symbol_hits(symbol_hits: Iterable[Hit], fused: list[Hit]) -> list[Hit]:
    """Exact symbol hits fused as one more ranking, in the order found: each adds its RRF share
    to its fused twin (whose range then also covers the definitions found by name) or enters
    with that share alone."""
    by_place = {_place(h): h for h in fused}
    hits = list(fused)
    for rank, hit in enumerate(symbol_hits, start=1):
        share = RETRIEVER_WEIGHTS["symbol"] / (RRF_K + rank)
        twin = by_place.get(_place(hit))
        if twin is None:
            hit.score = round(share, 6)
            by_place[_place(hit)] = hit
            hits.append(hit)
        elif "symbol" not in twin.retrievers:
            twin.score = round(twin.score + share, 6)
            twin.retrievers.insert(0, "symbol")
            if twin.kind in FUNCTION_KINDS:  # with the overloads found by name
                twin.start_line = min(twin.start_line, hit.start_line)
                twin.end_line = max(twin.end_line, hit.end_line)
            else:  # a declaration named exactly: its head, not the piece that matched
                twin.start_line, twin.end_line = hit.start_line, hit.end_line
    return sorted(hits, key=lambda h: -h.score)


def with_semantic_best(
    hits: list[Hit],
    rankings: dict[str, list[Row]],
    named: Sequence[str] = (),
    words: QuestionWords = NO_WORDS,
) -> list[Hit]:
    """The hybrid order with the semantic ranking's best unit at least `SEMANTIC_SLOT`th when
    the lexical ranking did not find it at all: the question and that code share no words, so
    BM25 has no opinion on it, and fused at its weight a unit found by meaning alone never
    reaches the first hits, however close it is. When BM25 found it and ranked it low, the
    fusion stands."""
    semantic = fuse(
        {n: rows for n, rows in rankings.items() if n.startswith("semantic")}, named, words
    )
    if not semantic or _place(semantic[0]) in {_row_place(r) for r in rankings.get("lexical", [])}:
        return hits
    at = next((i for i, hit in enumerate(hits) if _place(hit) == _place(semantic[0])), None)
    if at is None or at < SEMANTIC_SLOT:
        return hits
    hit = hits.pop(at)
    hit.score = hits[SEMANTIC_SLOT - 1].score  # the one it displaces: scores stay in order
    hits.insert(SEMANTIC_SLOT - 1, hit)
    return hits


def search_code(
    conn: DbConnection,
    scope: Scope,
    query: str,
    *,
    limit: int = 10,
    offset: int = 0,
    mode: str = "hybrid",
    embed_query: QueryEmbedder | None = None,
    reranker: Reranker | None = None,
    connections: Connections | None = None,
    ranker: TreeEnsemble | Literal["shipped"] | None = "shipped",
    read_reports: bool = True,
) -> SearchReport:
    """Search the scope; `embed_query(model, text)` gives query vectors (None skips a model).
    In hybrid mode a learned `ranker` (retrieval/ranker.py; by default the shipped models, None
    for the fused order) orders the hits of the queries inside its domain; a `reranker` (none
    by default, retrieval/rerank.py) re-orders the leading hits. Given `connections`, the
    retrievers run concurrently (`run_concurrently`), and in lexical mode the lexical
    retriever's groups of repositories do. A pasted bug report (`is_report`) is answered in
    hybrid mode by `locate`'s ranking, its functions and files best file first
    (docs/retrieval.md, "Locate"), unless `read_reports` is False."""
    if mode == "hybrid" and read_reports and is_report(query):
        return _report_search(conn, scope, query, limit, offset, connections, embed_query)
    found = candidates(
        conn,
        scope,
        query,
        mode=mode,
        depth=max(50, (offset + limit) * 3),
        embed_query=embed_query,
        connections=connections,
    )
    check_budget("the retrievers")
    hits = found.hits
    models = shipped_models() if ranker == "shipped" else (ranker,) if ranker else ()
    model = found.model_among(models) if mode == "hybrid" and hits else None
    if model is not None:
        hits = learned_order(hits, model.predict(found.features()))
    if reranker is not None:
        check_budget("the learned order")
        from retrieval.rerank import rerank

        hits = rerank(conn, scope, query, hits, reranker)
    return SearchReport(hits=hits[offset : offset + limit], notes=found.notes)


def _report_search(
    conn: DbConnection,
    scope: Scope,
    report: str,
    limit: int,
    offset: int,
    connections: Connections | None,
    embed_query: QueryEmbedder | None,
) -> SearchReport:
    """A bug report's hits: `locate`'s functions and files in its order (of at most
    `REPORT_FILES` files: a file holds one hit or more, so the pages of `limit` hits from
    `offset` end there)."""
    files = min(REPORT_FILES, max(10, offset + limit))
    located = locate(conn, scope, report, files, connections=connections, embed_query=embed_query)
    hits = located_hits(conn, located)
    notes = [
        "read as a bug report (several lines, or more words than a question): ranked by its"
        " stack frames, quoted paths, named symbols and rarest words per file, tests and"
        " vendored copies last unless named (mode 'lexical' ranks it as one BM25 query)",
        *located.notes,
    ]
    return SearchReport(hits=hits[offset : offset + limit], notes=notes)


@dataclass
class Candidates:
    """The fused hits of one query with what each retriever said about them."""

    hits: list[Hit]
    notes: list[str]
    query: str
    rankings: dict[str, list[Row]]
    symbol_hits: list[Hit]
    named: list[str]

    def within(self, model: TreeEnsemble) -> bool:
        """Whether the learned `model` applies to this query (`TreeEnsemble.applies`)."""
        semantic = [name.split(":", 1)[1] for name in self.rankings if name.startswith("semantic:")]
        return model.applies(semantic, len(list(query_terms(self.query))))

    def model_among(self, models: Sequence[TreeEnsemble]) -> TreeEnsemble | None:
        """The first of the learned `models` that applies to this query, if any."""
        return next((m for m in models if self.within(m)), None)

    def features(self) -> np.ndarray:
        """The learned ranker's features of the hits (`retrieval/ranker.py`), in their order."""
        evidence = gather_evidence(self.rankings, [_place(h) for h in self.symbol_hits], _row_place)
        return features(
            self.hits,
            [_place(h) for h in self.hits],
            evidence,
            query_terms=list(query_terms(self.query)),
            query_identifiers=len(self.named),
            named=[h.symbol is not None and _is_named(h.symbol, self.named) for h in self.hits],
        )


def candidates(
    conn: DbConnection,
    scope: Scope,
    query: str,
    *,
    mode: str = "hybrid",
    depth: int = 50,
    embed_query: QueryEmbedder | None = None,
    connections: Connections | None = None,
) -> Candidates:
    """Every retriever's candidates (`depth` each) fused into hits, in the fused order."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    names: list[str] = []
    retrievers: list[Task] = []
    if mode in ("hybrid", "semantic"):
        for model in scope.by_model():
            names.append(f"semantic:{model}")
            retrievers.append(
                lambda c, model=model: _semantic(c, scope, model, query, depth, embed_query)
            )
    if mode in ("hybrid", "lexical"):
        names.append("lexical")
        # alone, the lexical retriever may spread its repositories over the spare connections
        spread = connections if mode == "lexical" else None
        retrievers.append(
            lambda c: with_file_evidence(lexical_candidates(c, scope, query, depth, spread))
        )
    if mode == "hybrid":
        names.append("symbol")
        retrievers.append(lambda c: exact_symbol_hits(c, scope, query))
    found = dict(zip(names, run_concurrently(conn, retrievers, connections), strict=True))
    notes = [
        f"semantic search skipped for model {name.split(':', 1)[1]!r} (no query embedder)"
        for name, rows in found.items()
        if rows is None
    ]
    rankings = {name: rows for name, rows in found.items() if name != "symbol" and rows is not None}
    with_stored_roles(conn, rankings)
    with_whole_functions(conn, rankings)
    named = query_identifiers(query)
    words = question_words(query)
    hits = fuse(rankings, named, words)
    symbol_hits: list[Hit] = found.get("symbol") or []
    if mode == "hybrid":
        hits = with_semantic_best(add_symbol_hits(symbol_hits, hits), rankings, named, words)
    return Candidates(hits, notes, query, rankings, symbol_hits, named)


def with_stored_roles(conn: DbConnection, rankings: dict[str, list[Row]]) -> None:
    """Give every candidate row the role its file's content showed when it was indexed
    (`stored_role`: a test suite in a folder the path rules do not know), for `_role_share`."""
    rows_of = [row for rows in rankings.values() for row in rows]
    found = stored_roles(conn, (row["file_version_id"] for row in rows_of))
    for row in rows_of:
        stored = found.get(row["file_version_id"])
        row["stored_role"] = stored["role"] if stored else None
        row["stored_language"] = stored["language"] if stored else None


def with_whole_functions(conn: DbConnection, rankings: dict[str, list[Row]]) -> None:
    """Give every candidate row of a function split into pieces, and shorter than
    `WHOLE_FUNCTION_LINES`, the whole function's text as its `short_content`, so that `is_thin`
    judges the function and not one piece of it: a long doc comment splits an accessor or a
    builder's setter into pieces, and it is as thin as one without the comment (clap's
    `Command::infer_subcommands`: eight pieces of doc comment and examples around one line of
    code). Longer functions are not thin whatever their comments say."""
    rows = [
        row
        for rows in rankings.values()
        for row in rows
        if row["piece_count"] > 1
        and row["symbol_kind"] in FUNCTION_KINDS
        and row["symbol_end"] - row["symbol_start"] < WHOLE_FUNCTION_LINES
    ]
    texts = function_texts(conn, (row["symbol_id"] for row in rows))
    for row in rows:
        row["short_content"] = texts.get(row["symbol_id"])


def learned_order(hits: list[Hit], scores: np.ndarray) -> list[Hit]:
    """The hits ordered by the ranker's scores (ties keep the fused order); a hit's score
    becomes the model's, so scores stay in order."""
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
    ranked = [hits[i] for i in order]
    for i, hit in zip(order, ranked, strict=True):
        hit.score = round(float(scores[i]), 6)
    return ranked


def _semantic(
    conn: DbConnection,
    scope: Scope,
    model: str,
    query: str,
    depth: int,
    embed_query: QueryEmbedder | None,
) -> list[Row] | None:
    """The model's semantic candidates, or None without a query vector (the query is embedded
    here, so that it overlaps the other retrievers' statements when they run concurrently)."""
    vector = embed_query(model, query[:SEMANTIC_QUERY_CHARS]) if embed_query else None
    if vector is None:
        return None
    return semantic_candidates(conn, scope, model, vector, depth)
