"""Locate: from a whole bug report to the files (and their functions) most likely to change.

A report is long and mixed: prose, a traceback, quoted code, file names. Search ranks units for
a question; here every piece of evidence is matched on its own terms and added up per file:

- stack-trace frames and quoted paths, matched against the indexed paths by their longest
  common suffix (`/home/u/venv/.../django/db/models/query.py` is `django/db/models/query.py`);
- dotted names read as module paths (`django.db.models.query` -> `django/db/models/query.py`);
- identifiers written as code, looked up as definitions, counting 1/n for a name n files define;
- the prose through BM25 (`lexical_candidates`) with the report's rarest words (idf-weighted,
  capped), summed per file as its best unit plus a decayed share of its other units;
- the report's meaning (given a query embedder): the chunks nearest to its opening, added up per
  file as the prose is.

Tests, fixtures, examples, docs, benchmarks, generated files and vendored copies (by path,
`retrieval/path_roles.py`, or by what the file contains, `indexing/parsing/content_roles.py`)
count a third unless a frame or a quoted path names them. docs/retrieval.md ("Locate") has the
measurements behind each constant.
"""

from __future__ import annotations

import math
import posixpath
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.database import Row
from core.sql_files import statement, statement_template
from core.terms import K1, B, query_terms, term_id
from indexing.parsing.content_roles import is_test_function
from indexing.parsing.grammars import FUNCTION_KINDS
from retrieval.concurrency import Connections, Task, run_concurrently
from retrieval.hits import INTERNAL, Hit, public_record, unit_range
from retrieval.issue_text import IssueEvidence, read_issue, report_title, without_template
from retrieval.lexical import lexical_candidates
from retrieval.locate_ranker import (
    FunctionCandidate,
    LocateRanker,
    ReportWords,
    shipped_locate_ranker,
)
from retrieval.path_roles import CODE, file_role
from retrieval.reading import stored_roles
from retrieval.request_budget import check_budget
from retrieval.scope import VISIBLE_FILES, DbConnection, Scope, visible_files_among
from retrieval.semantic import QueryEmbedder, semantic_candidates


@dataclass(frozen=True)
class LocateWeights:
    """The free constants of `locate`, each with where its value came from."""

    # a frame's or a quoted path's file against the best file by prose (which scores 1): equal
    # weight, the neutral choice; measured on the even half of the localisation set
    # (lab/loc.py) against 0.5 and 2, docs/retrieval.md
    frame: float = 1.0
    path: float = 1.0
    # a file defining named identifiers: this times ln(1 + sum of 1/n over the names)
    symbol: float = 0.5
    # a file's prose score: its best unit, plus its next units at DECAY, DECAY^2, ...
    decay: float = 0.5
    # tests, examples, docs and vendored copies against the code: a third (issue 26 measured a
    # third on today's search, file Acc@5 0.66 -> 0.74, before this module existed)
    auxiliary: float = 1 / 3
    # BM25 reads at most this many of the report's terms, the rarest first (weighted by idf):
    # `query_terms`' own cap for a question, which keeps a report's query as fast as one
    max_terms: int = 32
    # each word of the report's title (`report_title`) counts this many mentions more when no
    # meaning lookup runs: the title says what is wrong, and a long body's rarer words otherwise
    # crowd its words out of the `max_terms`. 1, not 0, 2 or 4, lexical-only: SWE-bench Lite's
    # reports file Acc@1 +0.019 (4 up, 0 down) and Acc@5 +0.014; the mined fixes' function
    # MRR@10 +0.012, outside its interval; 2 and 4 gained more on SWE-bench and cost C# file
    # MRR@10. With the local model's meaning lookup, which embeds the title first, it lost 6
    # of SWE-bench's 116 reports and gained 1 (lab/LOG.md, docs/retrieval.md)
    title: float = 1.0
    # chunks BM25 returns: the files they fall in are the candidates of the prose. 300, not
    # 100: the candidates then hold every gold file of 94% of the mined training fixes, not
    # 86%, and the learned order places them (docs/retrieval.md, "Deeper candidates")
    text_depth: int = 300
    # score every function of the leading files with the report's terms (`_add_file_functions`)
    file_functions: bool = True
    # the nearest chunks to the report's opening (with a query embedder), against the best file
    # by meaning (which scores 1): the neutral weight, as a frame's or a quoted path's; chosen
    # over 0.5, 1.5 and 2 on the even half of the localisation set (docs/retrieval.md)
    semantic: float = 1.0


WEIGHTS = LocateWeights()
# chunks the semantic lookup returns, and how much of the report it embeds (the models read 256
# tokens: the title and the opening paragraph say what is wrong)
SEMANTIC_DEPTH = 100
REPORT_OPENING = 2000
# an identifier defined in more files than this names nothing in particular (`get`, `run`)
MAX_DEFINING_FILES = 10
# identifiers looked up per report (the most mentioned first)
MAX_IDENTIFIERS = 200
# distinct words of a report read for its BM25 terms (the most mentioned first): the longest
# report of the localisation set holds 741; 64 KiB of distinct identifiers held 5,000 (issue 47)
MAX_REPORT_WORDS = 2000
FUNCTIONS_PER_FILE = 5
MAX_EVIDENCE = 8  # evidence lines kept per file


@dataclass
class LocatedFunction:
    """A likely function of a located file, and why."""

    symbol: str
    kind: str
    start_line: int
    end_line: int
    score: float
    evidence: list[str]


@dataclass
class LocatedFile:
    """A file likely to change for a bug report: its role, evidence and likely functions."""

    repository: str
    path: str
    commit: str
    source: str
    role: str
    score: float
    evidence: list[str]
    functions: list[LocatedFunction]
    file_version_id: int = field(default=0, repr=False, metadata=INTERNAL)

    def as_dict(self) -> dict[str, Any]:
        """All fields, functions as records."""
        return public_record(self)


@dataclass
class RankedFunction:
    """One place of the report's functions in a single ranking across the located files: where
    to look first, second... (the files' own lists keep each file's functions together)."""

    repository: str
    path: str
    source: str
    symbol: str
    start_line: int
    end_line: int

    def as_dict(self) -> dict[str, Any]:
        """All fields."""
        return public_record(self)


@dataclass
class LocateReport:
    """Located files, best first, and what the report offered."""

    files: list[LocatedFile]
    notes: list[str] = field(default_factory=list[str])
    # the functions' scores are a learned model's over all the located files' functions
    # (`retrieval/locate_ranker.py`), not shares of their file's evidence
    learned_order: bool = False

    def functions(self) -> list[tuple[LocatedFile, LocatedFunction]]:
        """Every located function in one ranking (`units`)."""
        return [(f, u) for f, u, _ in self.units() if u is not None]

    def ranked_functions(self) -> list[RankedFunction]:
        """`functions` as the answer's records: the order the function metrics are measured in,
        which a reader of the files' lists alone could not rebuild (a file's scores are shares
        of its best function unless the order is learned)."""
        return [
            RankedFunction(f.repository, f.path, f.source, u.symbol, u.start_line, u.end_line)
            for f, u in self.functions()
        ]

    def units(self) -> list[tuple[LocatedFile, LocatedFunction | None, float]]:
        """Every located function, and every located file without one, in one ranking with its
        score: a function's file's score times its share of the file's best function (each
        file's best function in file order, the others after the ones of files that score more
        than they do); a file without functions its own score, in its place. Ordered by a
        learned model (`learned_order`): the functions by their scores, then the files without
        one in file order."""
        if self.learned_order:
            scored = [(u.score, r, f, u) for r, f in enumerate(self.files) for u in f.functions]
            scored.sort(key=lambda t: (-t[0], t[1], t[3].start_line))
            found: list[tuple[LocatedFile, LocatedFunction | None, float]] = [
                (f, u, score) for score, _, f, u in scored
            ]
            return found + [(f, None, f.score) for f in self.files if not f.functions]
        ranked: list[tuple[float, int, LocatedFile, LocatedFunction | None]] = []
        for rank, f in enumerate(self.files):
            best = max((u.score for u in f.functions), default=0.0) or 1.0
            ranked += [(f.score * u.score / best, rank, f, u) for u in f.functions]
            if not f.functions:
                ranked.append((f.score, rank, f, None))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [(f, u, score) for score, _, f, u in ranked]


FileKey = tuple[str, str, str]  # repository, path, source


@dataclass
class _Unit:
    symbol: str
    kind: str
    start_line: int
    end_line: int
    named: float = 0.0  # frames and identifiers that name it
    text: float = 0.0  # its best chunk's BM25 score
    meaning: float = 0.0  # its best chunk's nearness to the report (1 nearest, 0 farthest)
    evidence: list[str] = field(default_factory=list[str])


@dataclass
class _FileState:
    repository: str
    path: str
    commit: str
    source: str
    file_version_id: int
    text: list[float] = field(default_factory=list[float])
    meaning: list[float] = field(default_factory=list[float])
    frame: float = 0.0
    path_named: float = 0.0
    symbols: float = 0.0
    evidence: list[str] = field(default_factory=list[str])
    units: dict[str, _Unit] = field(default_factory=dict[str, _Unit])
    stored_role: str | None = None  # what its content showed when indexed (`file_role`)
    # functions a frame (of a trace written innermost first) named: its place in the trace
    # orders them, not how rare their names are
    framed_units: set[str] = field(default_factory=set[str])
    language: str = ""

    def note(self, evidence: str) -> None:
        # the first few say why; a file defining forty named identifiers need not list them
        if evidence not in self.evidence and len(self.evidence) < MAX_EVIDENCE:
            self.evidence.append(evidence)

    def unit(self, name: str, kind: str, start: int, end: int) -> _Unit:
        found = self.units.get(name)
        if found is None:
            found = _Unit(name, kind, start, end)
            self.units[name] = found
        return found


def locate(
    conn: DbConnection,
    scope: Scope,
    issue_text: str,
    limit_files: int = 10,
    weights: LocateWeights = WEIGHTS,
    connections: Connections | None = None,
    embed_query: QueryEmbedder | None = None,
    ranker: LocateRanker | None | str = "shipped",
) -> LocateReport:
    """The files of the scope most likely to change for the bug report, best first, each with
    its likely functions and the evidence that placed it. Given spare `connections` (the MCP
    server's), the lookups (paths, identifiers, prose, meaning) run at the same time: the call
    takes as long as the slowest instead of their sum. `embed_query(model, text)` gives the
    report's vectors for the semantic lookup (None, or a zero `weights.semantic`: none).
    `ranker` orders the files and functions by a learned model (`retrieval/locate_ranker.py`;
    "shipped": the package's model when one ships; None: the evidence order)."""
    # what the reporter wrote, without the template it was filed through
    issue_text = without_template(issue_text)
    if not issue_text.strip() or not scope.repositories:
        return LocateReport(files=[])
    evidence = read_issue(issue_text)
    check_budget("reading the report")
    files: dict[FileKey, _FileState] = {}
    reads_meaning = embed_query is not None and bool(weights.semantic) and bool(scope.by_model())
    # the meaning lookup embeds the report's opening, title first: the words count it once more
    # only where nothing reads the meaning
    title = 0.0 if reads_meaning else weights.title
    lookups: list[Task] = [
        lambda c: _path_rows(c, scope, evidence),
        lambda c: _symbol_rows(c, scope, evidence),
        lambda c: _text_rows(c, scope, issue_text, weights.text_depth, weights.max_terms, title),
    ]
    if embed_query is not None and reads_meaning:
        lookups.append(lambda c: _semantic_rows(c, scope, issue_text, embed_query))
    path_rows, symbol_rows, (terms, text_rows), *semantic = run_concurrently(
        conn, lookups, connections
    )
    semantic_rows: list[list[Row]] = semantic[0] if semantic else []
    check_budget("the lookups")
    _add_paths(conn, evidence, path_rows, files)
    _add_symbols(evidence, symbol_rows, files)
    _add_text(text_rows, files)
    _add_meaning(semantic_rows, files)
    _add_roles(conn, files)
    if ranker == "shipped":
        ranker = shipped_locate_ranker()
    assert not isinstance(ranker, str), "ranker: a LocateRanker, None or 'shipped'"
    words = ReportWords.of(issue_text) if ranker is not None else None
    keep = FUNCTIONS_PER_FILE if ranker is None else None
    ranked = _learned_files(ranker, words, _rank(files, weights, keep), files)
    check_budget("ranking the files")
    if weights.file_functions:
        leading = [files[(f.repository, f.path, f.source)] for f in ranked[:limit_files]]
        _add_file_functions(conn, leading, terms)
        # the files' order stands; their functions are rescored
        ranked = _learned_files(ranker, words, _rank(files, weights, keep), files)
    located = ranked[:limit_files]
    learned = ranker is not None and _learned_functions(ranker, words, located, files)
    for f in located:
        f.functions = f.functions[:FUNCTIONS_PER_FILE]
    if len(located) < limit_files:
        located += _neighbours(conn, scope, located, limit_files - len(located))
    notes: list[str] = []
    if not evidence.frames and not evidence.paths:
        notes.append("the report quotes no stack frame or file path; ranked by its words")
    return LocateReport(files=located, notes=notes, learned_order=learned)


def _learned_files(
    ranker: LocateRanker | None,
    words: ReportWords | None,
    ranked: list[LocatedFile],
    files: dict[FileKey, _FileState],
) -> list[LocatedFile]:
    """The files in the ranker's order (each keeps its evidence score)."""
    if ranker is None or words is None:
        return ranked
    states = [files.get((f.repository, f.path, f.source)) for f in ranked]
    return ranker.order_files(ranked, states, words)


def _learned_functions(
    ranker: LocateRanker,
    words: ReportWords | None,
    located: list[LocatedFile],
    files: dict[FileKey, _FileState],
) -> bool:
    """Every function of the located files scored by the ranker and each file's functions
    sorted by it; False when the ranker keeps locate's function order."""
    candidates: list[FunctionCandidate] = []
    units: list[LocatedFunction] = []
    for rank, f in enumerate(located):
        state = files.get((f.repository, f.path, f.source))
        for u in f.functions:
            found = state.units.get(u.symbol) if state else None
            candidates.append(
                FunctionCandidate(
                    rank,
                    f.score,
                    u.symbol,
                    u.start_line,
                    u.end_line,
                    u.score,
                    found.named if found else 0.0,
                    found.text if found else 0.0,
                    found.meaning if found else 0.0,
                )
            )
            units.append(u)
    if words is None:
        return False
    scores = ranker.order_functions(candidates, words)
    if scores is None:
        return False
    for u, score in zip(units, scores, strict=True):
        u.score = round(score, 4)
    for f in located:
        f.functions.sort(key=lambda u: (-u.score, u.start_line))
    return True


def _state(files: dict[FileKey, _FileState], row: Row) -> _FileState:
    key = (row["repository"], row["path"], row["source"])
    if key not in files:
        files[key] = _FileState(
            row["repository"], row["path"], row["commit_sha"], row["source"], row["file_version_id"]
        )
    return files[key]


# --- paths and frames ---------------------------------------------------------------------


def _module_paths(dotted: str) -> list[str]:
    """`a.b.c.d` read as module paths, longest first: a/b/c/d.py, a/b/c.py, a/b.py."""
    parts = dotted.split(".")
    return [
        "/".join(parts[:n]) + ext
        for n in range(len(parts), 1, -1)
        for ext in (".py",)  # the only language whose module paths are dotted names of files
    ]


def _suffix_length(path: str, quoted: str) -> int:
    """How many trailing path components `path` shares with `quoted`."""
    a, b = path.split("/")[::-1], quoted.split("/")[::-1]
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _best_matches(rows: list[Row], quoted: str, whole: bool) -> list[Row]:
    """The indexed files the quoted path means: those sharing the longest suffix with it, at
    least its folder and name (only the name when it has no folder); `whole`: all of it."""
    scored = [(_suffix_length(r["path"], quoted), r) for r in rows]
    parts = quoted.count("/") + 1
    need = parts if whole else min(2, parts)
    best = max((n for n, _ in scored), default=0)
    if best < need:
        return []
    return [r for n, r in scored if n == best]


# the scope's files named so, found through the scope's snapshots (their files' primary key) and
# the principal's working-tree files first: `VISIBLE_FILES` filtered by name afterwards read the
# files of every snapshot in the database (all of django's releases and every other repository's)
_PATH_ROWS_SQL = statement_template("locate", "path_rows").format(
    visible_files=visible_files_among(statement("locate", "named_file_versions"))
)


def _path_rows(conn: DbConnection, scope: Scope, ev: IssueEvidence) -> list[Row]:
    """The indexed files named like a frame's, a quoted path's or a dotted module's file."""
    quoted = [f.path for f in ev.frames] + ev.paths
    quoted += [p for m in ev.modules for p in _module_paths(m)]
    names = sorted({posixpath.basename(p) for p in quoted})
    if not names:
        return []
    return conn.execute(_PATH_ROWS_SQL, {**scope.params(), "names": names}).fetchall()


def _add_paths(
    conn: DbConnection, ev: IssueEvidence, rows: list[Row], files: dict[FileKey, _FileState]
) -> None:
    """Frames, quoted paths and dotted module names matched against the indexed paths."""
    modules = {m: _module_paths(m) for m in ev.modules}
    by_name: dict[str, list[Row]] = {}
    for row in rows:
        by_name.setdefault(posixpath.basename(row["path"]), []).append(row)
    frame_files: dict[FileKey, list[Any]] = {}
    for frame in ev.frames:
        # a dependency's frame, or a Java frame's package path, names exactly that path
        candidates = by_name.get(posixpath.basename(frame.path), [])
        if frame.dependency and "/" not in frame.path:
            # a file at a package's root (`errors.go` of a Go module) is this repository's
            # only at its root: a bare name would match every file so named
            candidates = [r for r in candidates if r["path"] == frame.path]
        matches = _best_matches(candidates, frame.path, frame.whole)
        for row in matches:
            state = _state(files, row)
            # where it failed counts whole, its callers less (`Frame.depth`; Python's: all 0)
            state.frame = max(state.frame, 1 / len(matches) / (1 + frame.depth))
            where = f" line {frame.line}" if frame.line else ""
            state.note(f"stack frame{where}" + (f" in {frame.function}" if frame.function else ""))
            frame_files.setdefault((row["repository"], row["path"], row["source"]), []).append(
                frame
            )
    for path in ev.paths:
        matches = _best_matches(by_name.get(posixpath.basename(path), []), path, False)
        for row in matches:
            state = _state(files, row)
            state.path_named = max(state.path_named, 1 / len(matches))
            state.note(f"path named {path}")
    for dotted, candidates in modules.items():
        for path in candidates:  # the longest module path that exists
            matches = _best_matches(by_name.get(posixpath.basename(path), []), path, True)
            if matches:
                for row in matches:
                    state = _state(files, row)
                    state.path_named = max(state.path_named, 1 / len(matches))
                    state.note(f"module named {dotted}")
                break
    _add_frame_functions(conn, files, frame_files)


def _add_frame_functions(
    conn: DbConnection, files: dict[FileKey, _FileState], frame_files: dict[FileKey, list[Any]]
) -> None:
    """The functions the frames name (by name; by line when the frame names none)."""
    if not frame_files:
        return
    ids = [files[key].file_version_id for key in frame_files]
    rows = conn.execute(
        statement("locate", "frame_functions"), {"ids": ids, "kinds": sorted(FUNCTION_KINDS)}
    ).fetchall()
    by_version: dict[int, list[Row]] = {}
    for row in rows:
        by_version.setdefault(row["file_version_id"], []).append(row)
    for key, frames in frame_files.items():
        state = files[key]
        symbols = by_version.get(state.file_version_id, [])
        for frame in frames:
            named = _named_functions(symbols, frame.function or "")
            if not named and frame.line is not None and not frame.function:
                inside = [s for s in symbols if s["start_line"] <= frame.line <= s["end_line"]]
                named = sorted(inside, key=lambda s: s["end_line"] - s["start_line"])[:1]
            for s in named:
                unit = state.unit(s["qualified_name"], s["kind"], s["start_line"], s["end_line"])
                # the frame where it failed counts whole, its callers less the farther they are
                unit.named += 1.0 / (1 + frame.depth)
                if frame.function and not frame.path.endswith((".py", ".pyx", ".pyi")):
                    state.framed_units.add(s["qualified_name"])
                if "stack frame" not in unit.evidence:
                    unit.evidence.append("stack frame")


def dotted(qualified_name: str) -> str:
    """A qualified name with the languages' separators (`::`, `\\`, `->`) as dots."""
    return qualified_name.replace("::", ".").replace("\\", ".").replace("->", ".")


def _named_functions(symbols: list[Row], function: str) -> list[Row]:
    """The file's functions a frame names: by name, those whose qualified name ends with the
    frame's `Class.method` when some do (two classes of one file may share a method name)."""
    name = function.rsplit(".", 1)[-1]
    named = [s for s in symbols if name and s["name"] == name]
    if "." in function:
        tail = "." + function
        qualified = [s for s in named if ("." + dotted(s["qualified_name"])).endswith(tail)]
        return qualified or named
    return named


# --- identifiers --------------------------------------------------------------------------


_SYMBOLS_SQL = statement_template("locate", "named_symbols").format(
    visible_files=visible_files_among("SELECT file_version_id FROM matched")
)


def _mentioned(ev: IssueEvidence) -> list[str]:
    """The identifiers looked up, the most mentioned first."""
    return sorted(ev.identifiers, key=lambda n: -ev.identifiers[n])[:MAX_IDENTIFIERS]


def _symbol_rows(conn: DbConnection, scope: Scope, ev: IssueEvidence) -> list[Row]:
    """The definitions of the identifiers' bare names."""
    bare = sorted({n.rsplit(".", 1)[-1] for n in _mentioned(ev)})
    if not bare:
        return []
    return conn.execute(
        _SYMBOLS_SQL,
        {**scope.params(), "names": bare, "lowered": [n.lower() for n in bare]},
    ).fetchall()


def _add_symbols(ev: IssueEvidence, rows: list[Row], files: dict[FileKey, _FileState]) -> None:
    """Definitions of the identifiers the report writes as code: each name gives the files
    defining it 1/n (n files define it), names defined in many files nothing."""
    mentioned = _mentioned(ev)
    by_name: dict[str, list[Row]] = {}
    for row in rows:
        by_name.setdefault(row["name"], []).append(row)
    for name in mentioned:
        last = name.rsplit(".", 1)[-1]
        defs = by_name.get(last, [])
        if "." in name:  # `Class.method`: the qualified name's tail must match
            defs = [d for d in defs if ("." + dotted(d["qualified_name"])).endswith("." + name)]
        paths = {(d["repository"], d["path"], d["source"]) for d in defs}
        if not paths or len(paths) > MAX_DEFINING_FILES:
            continue
        share = 1 / len(paths)
        for d in defs:
            state = _state(files, d)
            state.symbols += share / sum(1 for x in defs if x["path"] == d["path"])
            state.note(f"symbol named {name}")
            if d["kind"] in FUNCTION_KINDS and d["qualified_name"] not in state.framed_units:
                unit = state.unit(d["qualified_name"], d["kind"], d["start_line"], d["end_line"])
                unit.named += share
                if "symbol named" not in unit.evidence:
                    unit.evidence.append("symbol named")


# --- prose --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportTerms:
    """The report's chosen BM25 terms: query weight, full weight (times idf), and the scope's
    mean chunk length."""

    query_weights: dict[str, float]
    weights: dict[str, float]
    avgdl: float


def report_terms(
    conn: DbConnection,
    scope: Scope,
    text: str,
    max_terms: int = WEIGHTS.max_terms,
    title: float = WEIGHTS.title,
) -> ReportTerms:
    """The report's BM25 terms: every word's stem with weight 1 + ln(mentions), each word of
    the title counted `title` mentions more, the `max_terms` with the largest weight times idf
    (the words that say the most about where)."""
    counts: dict[str, float] = {}
    # each distinct word read once, at most MAX_REPORT_WORDS of them, the most mentioned first
    for token, mentions in Counter(text.split()).most_common(MAX_REPORT_WORDS):
        for term, n in query_terms(token).items():
            counts[term] = counts.get(term, 0.0) + n * mentions
    if title:
        for token in set(report_title(text).split()):
            for term, n in query_terms(token).items():
                counts[term] = counts.get(term, 0.0) + n * title
    if not counts:
        return ReportTerms({}, {}, 1.0)
    repos = sorted({r.repository_id for r in scope.repositories})
    terms = list(counts)
    row = conn.execute(statement("locate", "corpus_size"), {"repos": repos}).fetchone()
    total, avgdl = (row["n"], row["avgdl"]) if row else (0.0, 1.0)
    df = {
        r["term"]: r["df"]
        for r in conn.execute(
            statement("locate", "term_frequencies"),
            {"terms": [term_id(t) for t in terms], "repos": repos},
        ).fetchall()
    }
    weight = {t: 1 + math.log(counts[t]) for t in terms}

    def value(t: str) -> float:
        d = df.get(term_id(t), 0.0)
        # a word no indexed chunk holds says nothing here
        return weight[t] * math.log(1 + (total - d + 0.5) / (d + 0.5)) if d else 0.0

    chosen = sorted((t for t in terms if value(t) > 0), key=lambda t: (-value(t), t))[:max_terms]
    return ReportTerms({t: weight[t] for t in chosen}, {t: value(t) for t in chosen}, avgdl)


def _text_rows(
    conn: DbConnection, scope: Scope, text: str, depth: int, max_terms: int, title: float
) -> tuple[ReportTerms, list[Row]]:
    """The report's chosen terms and BM25's best chunks for them."""
    terms = report_terms(conn, scope, text, max_terms, title)
    if not terms.query_weights:
        return terms, []
    return terms, lexical_candidates(conn, scope, text, depth, terms=terms.query_weights)


def _add_text(rows: list[Row], files: dict[FileKey, _FileState]) -> None:
    """BM25 over the report's chosen terms; each unit's best chunk score kept per file."""
    best: dict[tuple[FileKey, str], float] = {}
    for row in rows:
        state = _state(files, row)
        key = (row["repository"], row["path"], row["source"])
        unit = row["qualified_name"] if row["symbol_id"] is not None else f"#{row['chunk_id']}"
        if (key, unit) in best:
            continue
        best[(key, unit)] = row["rank"]
        state.text.append(row["rank"])
        if row["symbol_id"] is not None and row["symbol_kind"] in FUNCTION_KINDS:
            start, end = unit_range(row["symbol_start"], row["symbol_end"], row["outline_end"])
            found = state.unit(unit, row["symbol_kind"], start, end)
            found.text = max(found.text, row["rank"])


def _semantic_rows(
    conn: DbConnection, scope: Scope, text: str, embed_query: QueryEmbedder
) -> list[list[Row]]:
    """The chunks nearest to the report's opening, per embedding model of the scope."""
    found: list[list[Row]] = []
    for model in scope.by_model():
        vector = embed_query(model, text[:REPORT_OPENING])
        if vector is not None:
            found.append(semantic_candidates(conn, scope, model, vector, SEMANTIC_DEPTH))
    return found


def _add_meaning(rankings: list[list[Row]], files: dict[FileKey, _FileState]) -> None:
    """Each model's nearest chunks scaled between its nearest (1) and its farthest returned (0),
    so that two models' distances compare; each unit's best kept per file, as `_add_text` keeps
    its score."""
    for rows in rankings:
        if not rows:
            continue
        near, far = rows[0]["distance"], rows[-1]["distance"]
        seen: set[tuple[FileKey, str]] = set()
        for row in rows:
            value = (far - row["distance"]) / (far - near) if far > near else 1.0
            state = _state(files, row)
            key = (row["repository"], row["path"], row["source"])
            unit = row["qualified_name"] if row["symbol_id"] is not None else f"#{row['chunk_id']}"
            if (key, unit) in seen or value <= 0:
                continue
            seen.add((key, unit))
            state.meaning.append(value)
            if row["symbol_id"] is not None and row["symbol_kind"] in FUNCTION_KINDS:
                start, end = unit_range(row["symbol_start"], row["symbol_end"], row["outline_end"])
                found = state.unit(unit, row["symbol_kind"], start, end)
                found.meaning = max(found.meaning, value)


_FUNCTION_SCORES_SQL = statement("lexical", "function_scores")


def _add_file_functions(conn: DbConnection, states: list[_FileState], terms: ReportTerms) -> None:
    """Every function of the leading files scored by BM25 with the report's terms (the same
    formula and weights as the lexical retriever), not only the few among its candidates: the
    function to change is often not the one that repeats the report's words most."""
    if not states or not terms.weights:
        return
    rows = conn.execute(
        _FUNCTION_SCORES_SQL,
        {
            "terms": [term_id(t) for t in terms.weights],
            "weights": list(terms.weights.values()),
            "avgdl": terms.avgdl,
            "k1": K1,
            "b": B,
            "versions": [s.file_version_id for s in states],
            "kinds": sorted(FUNCTION_KINDS),
        },
    ).fetchall()
    by_version: dict[int, list[_FileState]] = {}
    for state in states:  # (identical files at two paths share a file version)
        by_version.setdefault(state.file_version_id, []).append(state)
    for row, state in ((r, s) for r in rows for s in by_version[r["file_version_id"]]):
        unit = state.unit(
            row["qualified_name"], row["symbol_kind"], row["start_line"], row["end_line"]
        )
        unit.text = max(unit.text, row["score"])


def _add_roles(conn: DbConnection, files: dict[FileKey, _FileState]) -> None:
    """The role each candidate's content showed when it was indexed, and its language."""
    found = stored_roles(conn, (s.file_version_id for s in files.values()))
    for state in files.values():
        row = found.get(state.file_version_id)
        if row is not None:
            state.stored_role, state.language = row["role"], row["language"]


# --- ranking ------------------------------------------------------------------------------


def _text_score(scores: Sequence[float], decay: float) -> float:
    return sum(s * decay**i for i, s in enumerate(sorted(scores, reverse=True)))


def _rank(
    files: dict[FileKey, _FileState],
    weights: LocateWeights,
    keep_functions: int | None = FUNCTIONS_PER_FILE,
) -> list[LocatedFile]:
    """Evidence added up per file: prose (relative to the best file's), frames, quoted paths,
    named definitions; auxiliary files (tests, docs, copies) at `weights.auxiliary` unless a
    frame or a quoted path names them. Each file keeps its best `keep_functions` functions
    (None: all, for a learned order to choose from)."""
    text = {key: _text_score(s.text, weights.decay) for key, s in files.items()}
    top_text = max(text.values(), default=0.0) or 1.0
    meaning = {key: _text_score(s.meaning, weights.decay) for key, s in files.items()}
    top_meaning = max(meaning.values(), default=0.0) or 1.0
    top_unit = max((u.text for s in files.values() for u in s.units.values()), default=0.0)
    located: list[LocatedFile] = []
    for key, s in files.items():
        score = (
            text[key] / top_text
            + weights.semantic * meaning[key] / top_meaning
            + weights.frame * s.frame
            + weights.path * s.path_named
            + weights.symbol * math.log1p(s.symbols)
        )
        role = file_role(s.path, s.stored_role)
        if role != CODE and not (s.frame or s.path_named):
            score *= weights.auxiliary
        if text[key] > 0 and "text" not in s.evidence:
            s.evidence.append("text")
        if meaning[key] > 0 and "meaning" not in s.evidence:
            s.evidence.append("meaning")
        functions: list[LocatedFunction] = []
        for unit in s.units.values():
            unit_text = unit.text / top_unit if top_unit else 0.0
            unit_meaning = weights.semantic * unit.meaning
            # a code file's own tests (Rust's inline `mod tests`) count as its test files do
            share = weights.auxiliary if is_test_function(s.language, unit.symbol) else 1.0
            functions.append(
                LocatedFunction(
                    symbol=unit.symbol,
                    kind=unit.kind,
                    start_line=unit.start_line,
                    end_line=unit.end_line,
                    score=round(share * (unit.named + unit_text + unit_meaning), 4),
                    evidence=unit.evidence
                    + (["text"] if unit_text else [])
                    + (["meaning"] if unit_meaning else []),
                )
            )
        functions.sort(key=lambda u: (-u.score, u.start_line))
        located.append(
            LocatedFile(
                repository=s.repository,
                path=s.path,
                commit=s.commit,
                source=s.source,
                role=role,
                score=round(score, 4),
                evidence=s.evidence,
                functions=functions[:keep_functions],
                file_version_id=s.file_version_id,
            )
        )
    located.sort(key=lambda f: (-f.score, f.path))
    return located


# the visible files of some folders, with their stored roles (sql/locate/neighbours.sql)
_NEIGHBOURS_SQL = statement_template("locate", "neighbours").format(visible_files=VISIBLE_FILES)


def _neighbours(
    conn: DbConnection, scope: Scope, located: list[LocatedFile], wanted: int
) -> list[LocatedFile]:
    """Code files beside the located ones (same folder), when the evidence found too few."""
    taken = {(f.repository, f.path) for f in located}
    folders = sorted({posixpath.dirname(f.path) for f in located})
    rows = conn.execute(_NEIGHBOURS_SQL, {**scope.params(), "folders": folders}).fetchall()
    out: list[LocatedFile] = []
    for row in rows:
        role = file_role(row["path"], row["role"])
        if (row["repository"], row["path"]) in taken or role != CODE:
            continue
        out.append(
            LocatedFile(
                row["repository"],
                row["path"],
                row["commit_sha"],
                row["source"],
                role,
                0.0,
                [f"beside {posixpath.dirname(row['path']) or '.'}/"],
                [],
                row["file_version_id"],
            )
        )
        if len(out) == wanted:
            break
    return out


def located_hits(conn: DbConnection, report: LocateReport) -> list[Hit]:
    """The report's functions, and its files without one (spanning the whole file), as search
    hits in `LocateReport.units` order: how `search` answers a pasted bug report."""
    bare = [f.file_version_id for f, u, _ in report.units() if u is None]
    spans = (
        {
            r["file_version_id"]: (r["first"], r["last"])
            for r in conn.execute(statement("locate", "file_spans"), {"ids": bare}).fetchall()
        }
        if bare
        else {}
    )
    hits: list[Hit] = []
    for f, u, score in report.units():
        if u is None:
            start, end = spans.get(f.file_version_id, (1, 1))
            symbol, kind, evidence = None, "file", f.evidence
        else:
            start, end, symbol, kind = u.start_line, u.end_line, u.symbol, u.kind
            evidence = u.evidence
        hits.append(
            Hit(
                repository=f.repository,
                path=f.path,
                start_line=start,
                end_line=end,
                symbol=symbol,
                kind=kind,
                score=round(score, 6),
                retrievers=["locate", *_retrievers(evidence)],
                commit=f.commit,
                source=f.source,
            )
        )
    return hits


def _retrievers(evidence: list[str]) -> list[str]:
    """What placed a located unit, in the words of search's `retrievers`."""
    kinds = {
        "stack frame": "frame",
        "path named": "path",
        "module named": "path",
        "symbol named": "symbol",
        "text": "lexical",
        "meaning": "semantic",
    }
    found = [kinds[k] for k in kinds if any(e.startswith(k) for e in evidence)]
    return sorted(set(found), key=found.index)
