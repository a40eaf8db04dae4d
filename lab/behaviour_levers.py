"""Levers for behaviour questions, measured in process on an existing quality index: neighbour
evidence, the window's share of the answer that BM25 over 2,048-character windows has and a
symbol chunk does not (lab/behaviour.py reads it).

A lexical candidate gains `share` x the best BM25 score of another definition of its file that
lies within `lines` lines of it (the members above and below: what a window around the answer
also holds), on top of the file evidence every candidate already has. Each variant is scored
against the shipped order with paired 95% intervals, on the behaviour questions, the rest, and
all of a set's questions.

    python -m lab.behaviour_levers --sets php,ts,py --json lab/results/behaviour_levers.json

The index must exist (`python -m lab.quality --sets ... --embedder fake --reuse` builds it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from benchmarks import embedder as embedders
from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.scoring import CorpusText, score_run
from benchmarks.workspace import prepare_environment
from lab.mined.sets import select
from lab.quality import codeatlas_runs, ensure_index

METRICS = {"recall@5": found_within(5), "mrr@10": reciprocal_rank}
# ("near", share, lines): the neighbour's share and how far it may lie; ("cover", alpha): BM25
# times the share of the question's terms the chunk's text, name and path hold, to that power
VARIANTS: dict[str, tuple | None] = {
    "shipped": None,
    "near 0.2/20": ("near", 0.2, 20),
    "near 0.4/20": ("near", 0.4, 20),
    "small class 0.3/60": ("class", 0.3, 60),
    "small class 0.6/60": ("class", 0.6, 60),
    "no semantic slot": ("no-slot",),
    "small class whole 60": ("whole", 60, False),
    "small class whole 60 full weight": ("whole", 60, True),
    "cover 0.5": ("cover", 0.5),
    "cover 1.0": ("cover", 1.0),
    # ("windows", weight, strict): BM25 over 2,048-character windows as a fourth ranking, each
    # window's rank given to the hits it overlaps (strict: holding half of the hit or being half
    # in it, not touching it by a line)
    "windows 0.5": ("windows", 0.5, False),
    "windows 1.0": ("windows", 1.0, False),
    "windows 1.0 strict": ("windows", 1.0, True),
    # ("roles", share): a unit of a test, fixture, example, benchmark or vendored file
    # (`retrieval.path_roles.path_role`) counts `share` in the fusion unless the question asks
    # for that kind of file in words
    "roles 1/3": ("roles", 1 / 3),
    "roles 0.1": ("roles", 0.1),
    # the shipped order without its auxiliary-file weight (`retrieval.search.AUXILIARY_WEIGHT`,
    # measured as the lab's "roles 1/3" above, then shipped): what it changed
    "without roles": ("const", "AUXILIARY_WEIGHT", 1.0),
}
# the words (stems, `core.terms.word_stems`) with which a question asks for a kind of file
ROLE_WORDS = {
    "test": {"test", "spec"},
    "fixture": {"fixtur", "test"},
    "example": {"exampl", "demo", "sampl"},
    "benchmark": {"benchmark", "bench"},
    "vendored": {"vendor"},
    "generated": {"generat"},
}
WINDOW_DEPTH = 50  # windows read per question (as deep as the lexical retriever reads chunks)


def with_neighbour_evidence(share: float, lines: int) -> Callable[[list[dict]], list[dict]]:
    """`retrieval.search.with_file_evidence` plus the neighbour evidence."""
    from retrieval import search

    shipped = search.with_file_evidence

    def ranked(rows: list[dict]) -> list[dict]:
        rows = shipped(rows)
        by_file: dict[tuple[Any, ...], list[dict]] = {}
        for row in rows:
            by_file.setdefault((row["repository"], row["path"], row["source"]), []).append(row)
        out = []
        for row in rows:
            near = [
                other["bm25"]
                for other in by_file[(row["repository"], row["path"], row["source"])]
                if other["qualified_name"] != row["qualified_name"]
                and other["chunk_start"] <= row["chunk_end"] + lines
                and other["chunk_end"] >= row["chunk_start"] - lines
            ]
            out.append({**row, "rank": row["rank"] + share * max(near, default=0.0)})
        return sorted(out, key=lambda r: -r["rank"])

    return ranked


def with_small_class_evidence(share: float, lines: int) -> Callable[[list[dict]], list[dict]]:
    """`retrieval.search.with_file_evidence` plus class evidence scaled by the class's size: a
    method gains `share` x the BM25 score of its class's declaration chunk (its doc comment,
    its header) among the candidates, x min(1, `lines` / the class's lines). A class that fits
    in a window shares its words with its few methods, as the window holding it all does; a
    large class's doc says little about any one of its methods."""
    from indexing.parsing.grammars import FUNCTION_KINDS
    from retrieval import search

    shipped = search.with_file_evidence

    def ranked(rows: list[dict]) -> list[dict]:
        rows = shipped(rows)
        declarations: dict[tuple[Any, ...], tuple[float, int]] = {}
        for row in rows:
            if row["symbol_id"] is None or row["symbol_kind"] in FUNCTION_KINDS:
                continue
            key = (row["repository"], row["path"], row["source"], row["qualified_name"])
            size = (row["symbol_end"] or row["chunk_end"]) - (
                row["symbol_start"] or row["chunk_start"]
            )
            best = declarations.get(key, (0.0, size + 1))
            declarations[key] = (max(best[0], row["bm25"]), size + 1)
        out = []
        for row in rows:
            gain = 0.0
            name = row["qualified_name"] or ""
            if row["symbol_kind"] in FUNCTION_KINDS and "." in name:
                owner = (row["repository"], row["path"], row["source"], name.rsplit(".", 1)[0])
                if owner in declarations:
                    score, size = declarations[owner]
                    gain = share * score * min(1.0, lines / size)
            out.append({**row, "rank": row["rank"] + gain})
        return sorted(out, key=lambda r: -r["rank"])

    return ranked


def whole_small_classes(lines: int, full_weight: bool) -> tuple[Callable, Callable]:
    """`retrieval.search._row_range` and `_unit_weight` with a declaration of at most `lines`
    lines (a class that fits in a window) answered whole, its methods with its doc, instead of
    by its head; with `full_weight` it also counts fully in the fusion instead of half."""
    from indexing.parsing.grammars import FUNCTION_KINDS
    from retrieval import search

    range_of, weight_of = search._row_range, search._unit_weight

    def small(row) -> bool:
        return (
            row["symbol_id"] is not None
            and row["symbol_start"] is not None
            and row["symbol_kind"] not in FUNCTION_KINDS
            and row["symbol_end"] - row["symbol_start"] < lines
        )

    def row_range(row):
        return (row["symbol_start"], row["symbol_end"]) if small(row) else range_of(row)

    def unit_weight(row, named, words=search.NO_WORDS):
        return 1.0 if full_weight and small(row) else weight_of(row, named, words)

    return row_range, unit_weight


def with_coverage(alpha: float) -> Callable[..., list[dict]]:
    """`retrieval.lexical.lexical_candidates` with each candidate's BM25 multiplied by
    coverage ** alpha: the share of the question's distinct terms (`query_terms`) its chunk's
    text, qualified name and path hold. BM25 sums its terms, so a chunk repeating one rare word
    of a long question outranks one that holds most of them; a window holds more of them."""
    from core.terms import query_terms, text_terms
    from retrieval import lexical

    shipped = lexical.lexical_candidates

    def candidates(conn, scope, query, limit, connections=None, terms=None) -> list[dict]:
        rows = shipped(conn, scope, query, limit, connections, terms)
        wanted = set(query_terms(query) if terms is None else terms)
        if not rows or not wanted:
            return rows
        texts = {
            r["id"]: r["content"]
            for r in conn.execute(
                "SELECT c.id, codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content"
                " FROM code_chunks c WHERE c.id = ANY(%s)",
                ([r["chunk_id"] for r in rows],),
            ).fetchall()
        }
        out = []
        for r in rows:
            held = set(
                text_terms(f"{texts.get(r['chunk_id'], '')} {r['qualified_name']} {r['path']}")
            )
            share = len(wanted & held) / len(wanted)
            out.append({**r, "rank": r["rank"] * share**alpha})
        return sorted(out, key=lambda r: -r["rank"])

    return candidates


def with_window_ranking(
    weight: float, strict: bool, corpus, suffixes: tuple[str, ...]
) -> tuple[Callable, Callable]:
    """`retrieval.search.question_words` and `fuse` with BM25 over the corpus' 2,048-character
    windows (the eval READMEs' reference) fused as one more ranking: a hit gains `weight` /
    (k + r), r the rank of the best window overlapping it (strict: overlapping at least half of
    the smaller of the two), a declaration or file chunk half of that, as in the fusion. The
    windows are what beat codeatlas on the hidden behaviour questions; as a ranking beside the
    chunks' they add a window's context (the doc comment and neighbours a method sits among)
    without giving up the chunks' exact answers. Only hits the retrievers found are re-scored
    (a window's units outside the lexical and semantic candidates do not enter)."""
    from indexing.parsing.grammars import FUNCTION_KINDS
    from lab.baselines.bm25 import BM25, readme_tokens
    from lab.baselines.suite import WINDOW_CHARS
    from lab.baselines.windows import line_windows
    from retrieval import search

    windows = line_windows(corpus, WINDOW_CHARS, suffixes)
    bm25 = BM25([w.text for w in windows], tokens=readme_tokens)
    shipped_fuse, shipped_words = search.fuse, search.question_words
    asked: dict[str, str] = {}

    def question_words(query: str):
        asked["query"] = query  # `candidates` reads the question's words just before fusing
        return shipped_words(query)

    def overlaps(window, hit) -> bool:
        shared = min(window.end_line, hit.end_line) - max(window.start_line, hit.start_line) + 1
        if shared <= 0:
            return False
        smaller = min(window.end_line - window.start_line, hit.end_line - hit.start_line) + 1
        return not strict or 2 * shared >= smaller

    def fuse(rankings, named=(), words=search.NO_WORDS):
        hits = shipped_fuse(rankings, named, words)
        if "lexical" not in rankings or "query" not in asked:  # the semantic slot's own fusion
            return hits
        by_path: dict[str, list[tuple[int, Any]]] = {}
        for rank, i in enumerate(bm25.top(asked["query"], WINDOW_DEPTH), start=1):
            by_path.setdefault(windows[i].path, []).append((rank, windows[i]))
        for hit in hits:
            best = min((r for r, w in by_path.get(hit.path, []) if overlaps(w, hit)), default=None)
            if best is None:
                continue
            unit = 1.0 if hit.kind in FUNCTION_KINDS else search.DECLARATION_WEIGHT
            hit.score = round(hit.score + weight * unit / (search.RRF_K + best), 6)
            hit.retrievers.append("windows")
        return sorted(hits, key=lambda h: -h.score)

    return question_words, fuse


def with_role_weights(share: float) -> Callable:
    """`retrieval.search._unit_weight` times `share` for a unit of a file that is not the code
    itself (its tests, fixtures, examples, docs, benchmarks, a vendored copy: `path_role`),
    unless the question asks for that kind of file (`ROLE_WORDS`). A question of how the code
    does something is answered by the code; a test of it repeats the question's words in short
    methods whose BM25 (and meaning) is high, and `locate` ranks them below the code already."""
    from retrieval import search
    from retrieval.path_roles import path_role

    weight_of = search._unit_weight

    def unit_weight(row, named, words=search.NO_WORDS):
        weight = weight_of(row, named, words)
        role = path_role(row["path"])
        if role not in ROLE_WORDS:  # the code, or a docs folder (cobra's `doc` package is code)
            return weight
        asked = ROLE_WORDS[role] & set(words.text.split())
        return weight if asked else weight * share

    return unit_weight


def measure(
    names: list[str], modes: tuple[str, ...], chosen: list[str] | None = None, provider="fake"
) -> dict:
    """Every variant's first-hit ranks and paired differences against the shipped order."""
    from retrieval import search

    prepare_environment()
    embedder = embedders.make(provider)
    shipped = search.with_file_evidence
    shipped_lexical = search.lexical_candidates
    shipped_slot = search.with_semantic_best
    shipped_range, shipped_weight = search._row_range, search._unit_weight
    shipped_fuse, shipped_words = search.fuse, search.question_words
    shipped_constants = {
        p[1]: getattr(search, p[1]) for p in VARIANTS.values() if p and p[0] == "const"
    }
    out: dict = {}
    for name in names:
        eval_set = select(name)[0]
        index = ensure_index(eval_set, provider, embedder, fresh=False)
        queries = eval_set.queries()
        text = CorpusText(index["corpus"])
        ranks: dict[str, dict[str, dict]] = {}
        for variant, params in VARIANTS.items():
            if chosen and variant != "shipped" and variant not in chosen:
                continue
            if params and params[0] == "near":
                search.with_file_evidence = with_neighbour_evidence(*params[1:])
            elif params and params[0] == "class":
                search.with_file_evidence = with_small_class_evidence(*params[1:])
            elif params and params[0] == "no-slot":
                search.with_semantic_best = lambda hits, *args, **kwargs: hits
            elif params and params[0] == "whole":
                search._row_range, search._unit_weight = whole_small_classes(*params[1:])
            elif params and params[0] == "cover":
                search.lexical_candidates = with_coverage(*params[1:])
            elif params and params[0] == "const":
                setattr(search, params[1], params[2])
            elif params and params[0] == "roles":
                search._unit_weight = with_role_weights(params[1])
            elif params and params[0] == "windows":
                search.question_words, search.fuse = with_window_ranking(
                    *params[1:], index["corpus"], eval_set.source_suffixes
                )
            try:
                ranked, _ = codeatlas_runs(
                    index["url"], index["repository"], queries, modes, embedder
                )
            finally:
                search.with_file_evidence = shipped
                search.lexical_candidates = shipped_lexical
                search.with_semantic_best = shipped_slot
                search._row_range, search._unit_weight = shipped_range, shipped_weight
                search.fuse, search.question_words = shipped_fuse, shipped_words
                for constant, value in shipped_constants.items():
                    setattr(search, constant, value)
            for system, results in ranked.items():
                scores = score_run(queries, results, text.tokens)
                ranks.setdefault(system, {})[variant] = scores["first_hit_rank"]
        out[name] = _compare(queries, ranks)
    return out


def _compare(queries: list[dict], ranks: dict[str, dict[str, dict]]) -> dict:
    groups = {
        "behavior": [q["id"] for q in queries if q["type"] == "behavior"],
        "other": [q["id"] for q in queries if q["type"] != "behavior"],
        "all": [q["id"] for q in queries],
    }
    out: dict = {}
    for system, variants in ranks.items():
        base = variants["shipped"]
        for variant, r in variants.items():
            for group, ids in groups.items():
                cell = out.setdefault(system, {}).setdefault(variant, {}).setdefault(group, {})
                for m, f in METRICS.items():
                    cell[m] = interval([f(r[i]) for i in ids])
                    if variant != "shipped":
                        cell[m + "_delta"] = paired(
                            [f(r[i]) for i in ids], [f(base[i]) for i in ids]
                        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure the variants on the chosen sets; print them; optionally write them."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default="php,ts,py")
    p.add_argument("--modes", default="lexical,hybrid")
    p.add_argument("--variants", help="comma-separated names of VARIANTS (default: all)")
    p.add_argument("--embedder", default="fake", help="provider: fake (quick) | local")
    p.add_argument("--json", dest="json_out")
    args = p.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    chosen = [v.strip() for v in args.variants.split(",")] if args.variants else None
    out = measure(names, modes, chosen, args.embedder)
    for name, systems in out.items():
        for system, variants in systems.items():
            for variant, groups in variants.items():
                for group, cell in groups.items():
                    line = "  ".join(
                        f"{m} {fmt(*cell[m])}"
                        + (f" Δ {fmt_delta(*cell[m + '_delta'])}" if m + "_delta" in cell else "")
                        for m in METRICS
                    )
                    print(f"{name} {system} {variant:12s} {group:8s} {line}")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
