"""Behaviour questions against BM25 over 2,048-character windows: where the windows win, and why.

Reads the per-query first-hit ranks of a `python -m lab.quality --baselines --json` run and
splits every score by the question's type (`behavior` against the rest), with 95% bootstrap
intervals and the paired difference of each codeatlas mode against `bm25-2048`. Then, for the
behaviour questions where the windows rank an answer better than codeatlas, it reads what the
window holds that the answer does not:

- how much of the question (IDF-weighted, the windows' own tokens and statistics) the gold
  definition's lines hold, the first hitting window's lines, and the whole file;
- whether that window is mostly the answer or mostly its neighbours (the share of its lines
  inside a gold range: a window touching an answer by a line counts as a hit by the eval
  READMEs' rules), and whether it starts above the answer (its docblock, the class header).

    python -m lab.behaviour /tmp/php.json --set php [--json lab/results/behaviour_php.json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path

from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.scoring import is_hit
from benchmarks.workspace import WORK
from lab.baselines.bm25 import BM25, readme_tokens
from lab.baselines.suite import WINDOW_CHARS
from lab.baselines.windows import line_windows
from lab.mined.sets import select

METRICS = {"recall@5": found_within(5), "mrr@10": reciprocal_rank}
BASELINE = "bm25-2048"


def by_type(result: dict, queries: list[dict]) -> dict:
    """Every system's R@5 and MRR@10 on the behaviour questions and on the rest, with intervals,
    and each codeatlas mode's paired difference against the windows."""
    groups = {
        "behavior": [q["id"] for q in queries if q["type"] == "behavior"],
        "other": [q["id"] for q in queries if q["type"] != "behavior"],
        "all": [q["id"] for q in queries],
    }
    out: dict = {}
    for group, ids in groups.items():
        out[group] = {"queries": len(ids), "systems": {}, "against_windows": {}}
        for system, scores in result["scores"].items():
            ranks = scores["first_hit_rank"]
            out[group]["systems"][system] = {
                m: interval([f(ranks[i]) for i in ids]) for m, f in METRICS.items()
            }
        base = result["scores"][BASELINE]["first_hit_rank"]
        for system in result["scores"]:
            if not system.startswith("codeatlas-"):
                continue
            ranks = result["scores"][system]["first_hit_rank"]
            out[group]["against_windows"][system] = {
                m: paired([f(ranks[i]) for i in ids], [f(base[i]) for i in ids])
                for m, f in METRICS.items()
            }
    return out


def _lines(text: str, start: int, end: int) -> str:
    return "".join(text.splitlines(keepends=True)[start - 1 : end])


def _coverage(terms: dict[str, float], text: str) -> float:
    """Share of the question's IDF mass whose terms the text holds."""
    present = set(readme_tokens(text))
    total = sum(terms.values())
    return sum(w for t, w in terms.items() if t in present) / total if total else 0.0


def diagnose(result: dict, queries: list[dict], corpus: Path, suffixes: tuple[str, ...]) -> dict:
    """The behaviour questions the windows answer better than codeatlas lexical, read."""
    windows = line_windows(corpus, WINDOW_CHARS, suffixes)
    bm25 = BM25([p.text for p in windows], tokens=readme_tokens)
    df = Counter(t for p in windows for t in set(readme_tokens(p.text)))
    n = len(windows)
    lexical = result["scores"]["codeatlas-lexical"]["first_hit_rank"]
    base = result["scores"][BASELINE]["first_hit_rank"]
    files: dict[str, str] = {}
    rows = []
    for q in queries:
        if q["type"] != "behavior":
            continue
        ours, theirs = lexical[q["id"]], base[q["id"]]
        if theirs is None or (ours is not None and ours <= theirs):
            continue
        terms = {
            t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            for t in set(readme_tokens(q["query"]))
            if df[t]
        }
        top = [windows[i] for i in bm25.top(q["query"], 10)]
        window = top[theirs - 1]
        gold = next(g for g in q["gold"] if is_hit(window, g))
        text = files.setdefault(gold["path"], (corpus / gold["path"]).read_text(errors="replace"))
        gold_text = _lines(text, gold["start_line"], gold["end_line"])
        window_lines = window.end_line - window.start_line + 1
        inside = min(window.end_line, gold["end_line"]) - max(window.start_line, gold["start_line"])
        missing = sorted(
            (t for t in terms if t not in set(readme_tokens(gold_text))),
            key=lambda t: -terms[t],
        )
        in_window = set(readme_tokens(window.text))
        rows.append(
            {
                "id": q["id"],
                "codeatlas_lexical_rank": ours,
                "windows_rank": theirs,
                "gold": f"{gold['path']}:{gold['start_line']}-{gold['end_line']}",
                "symbol": gold.get("symbol"),
                "gold_lines": gold["end_line"] - gold["start_line"] + 1,
                "window": f"{window.start_line}-{window.end_line}",
                "window_share_in_gold": round((inside + 1) / window_lines, 3),
                "window_starts_above_gold": window.start_line < gold["start_line"],
                "coverage_gold": round(_coverage(terms, gold_text), 3),
                "coverage_window": round(_coverage(terms, window.text), 3),
                "coverage_file": round(_coverage(terms, text), 3),
                "terms_missing_from_gold_found_in_window": [t for t in missing if t in in_window],
                "terms_missing_from_gold_and_window": [t for t in missing if t not in in_window],
            }
        )
    summary = {
        "all_behaviour": _coverage_all(queries, corpus, df, n),
        "windows_edge_hits": _edge_hits(queries, windows, bm25),
    }
    if rows:
        for key in ("window_share_in_gold", "coverage_gold", "coverage_window", "coverage_file"):
            summary[key + "_median"] = round(statistics.median(r[key] for r in rows), 3)
        summary["windows_mostly_neighbours"] = sum(r["window_share_in_gold"] < 0.5 for r in rows)
        summary["codeatlas_not_in_top10"] = sum(r["codeatlas_lexical_rank"] is None for r in rows)
    return {"questions": len(rows), "summary": summary, "rows": rows}


def _overlap(window, gold: dict) -> int:
    return min(window.end_line, gold["end_line"]) - max(window.start_line, gold["start_line"]) + 1


def _edge_hits(queries: list[dict], windows: list, bm25: BM25) -> dict:
    """Behaviour questions the windows find within 5 by the eval rules (any overlap), and by a
    stricter reading: the hitting window's overlap with an answer is at least half of the
    smaller of the two (the window is about that answer, not touching it at an edge)."""
    loose = strict = total = 0
    for q in queries:
        if q["type"] != "behavior":
            continue
        total += 1
        top = [windows[i] for i in bm25.top(q["query"], 5)]
        overlaps = [
            (_overlap(w, g), min(w.end_line - w.start_line, g["end_line"] - g["start_line"]) + 1)
            for w in top
            for g in q["gold"]
            if is_hit(w, g)
        ]
        loose += bool(overlaps)
        strict += any(2 * inside >= smaller for inside, smaller in overlaps)
    return {"questions": total, "recall@5": loose, "recall@5_half_overlap": strict}


def _coverage_all(queries: list[dict], corpus: Path, df: Counter, n: int) -> dict:
    """Over every behaviour question: the median share of its IDF mass in the gold definition,
    in the definition with 1,024 characters above it (its docblock, the members before), with
    1,024 below, and in the file."""
    shares: dict[str, list[float]] = {"gold": [], "above": [], "below": [], "file": []}
    for q in queries:
        if q["type"] != "behavior":
            continue
        terms = {
            t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            for t in set(readme_tokens(q["query"]))
            if df[t]
        }
        gold = q["gold"][0]
        text = (corpus / gold["path"]).read_text(errors="replace")
        lines = text.splitlines(keepends=True)
        begin = sum(len(x) for x in lines[: gold["start_line"] - 1])
        end = sum(len(x) for x in lines[: gold["end_line"]])
        shares["gold"].append(_coverage(terms, text[begin:end]))
        shares["above"].append(_coverage(terms, text[max(0, begin - 1024) : end]))
        shares["below"].append(_coverage(terms, text[begin : end + 1024]))
        shares["file"].append(_coverage(terms, text))
    return {k: round(statistics.median(v), 3) for k, v in shares.items() if v}


def above_answers(eval_set, queries: list[dict]) -> dict:
    """On the behaviour questions codeatlas lexical does not answer first, what ranks above the
    answer: a hit of the answer's own file (its class's other members, its file's top-level
    code), a test, a declaration (class, interface...) of another file, or code of another file.
    Uses the set's quality index (fake embedder; lexical mode needs no vectors)."""
    from benchmarks import embedder as embedders
    from benchmarks.codeatlas_search import CodeatlasSearch
    from benchmarks.workspace import prepare_environment
    from indexing.parsing.grammars import FUNCTION_KINDS
    from lab.quality import ensure_index
    from retrieval.path_roles import path_role

    prepare_environment()
    embedder = embedders.make("fake")
    index = ensure_index(eval_set, "fake", embedder, fresh=False)
    search = CodeatlasSearch(index["url"], [index["repository"]], embedder)
    kinds: Counter = Counter()
    questions = 0
    try:
        for q in queries:
            if q["type"] != "behavior":
                continue
            hits = search.search(q["query"], "lexical", 10)
            gold_paths = {g["path"] for g in q["gold"]}
            first = next(
                (i for i, h in enumerate(hits) for g in q["gold"] if is_hit(_as_range(h), g)),
                10,
            )
            if first == 0:
                continue
            questions += 1
            for h in hits[: min(first, 5)]:
                if h["path"] in gold_paths:
                    kinds["same file as the answer"] += 1
                elif path_role(h["path"]) != "code":
                    kinds[f"another file: {path_role(h['path'])}"] += 1
                elif h["kind"] not in FUNCTION_KINDS:
                    kinds["another file: declaration or top-level code"] += 1
                else:
                    kinds["another file: function or method"] += 1
    finally:
        search.close()
    return {"questions": questions, "hits_above_the_answer_within_5": dict(kinds)}


def _as_range(hit: dict):
    from benchmarks.scoring import Result

    return Result(hit["path"], hit["start_line"], hit["end_line"])


def main(argv: list[str] | None = None) -> int:
    """Print the split by type and the read of the windows' wins; optionally write them."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("result", help="a `lab.quality --baselines --json` file")
    p.add_argument("--set", dest="name", required=True, help="the set in it: py, php, ts, go...")
    p.add_argument("--json", dest="json_out", help="also write the findings to this file")
    args = p.parse_args(argv)
    eval_set = select(args.name)[0]
    result = json.loads(Path(args.result).read_text())[args.name]
    queries = eval_set.queries()
    split = by_type(result, queries)
    for group, data in split.items():
        print(f"## {args.name} {group} ({data['queries']} questions)")
        for system, metrics in data["systems"].items():
            print(f"  {system:20s} " + "  ".join(f"{m} {fmt(*v)}" for m, v in metrics.items()))
        for system, metrics in data["against_windows"].items():
            print(
                f"  {system} - windows "
                + "  ".join(f"{m} {fmt_delta(*v)}" for m, v in metrics.items())
            )
    corpus = WORK / eval_set.corpus_dir
    read = diagnose(result, queries, corpus, eval_set.source_suffixes)
    print(f"## windows better than codeatlas lexical: {read['questions']} behaviour questions")
    print(json.dumps(read["summary"], indent=1))
    for row in read["rows"]:
        print(
            f"  {row['id']} ours {row['codeatlas_lexical_rank']} windows {row['windows_rank']}"
            f" {row['symbol']} ({row['gold_lines']} lines)"
            f" window share {row['window_share_in_gold']}"
            f" cover gold/window/file {row['coverage_gold']}/{row['coverage_window']}"
            f"/{row['coverage_file']} window-only: {row['terms_missing_from_gold_found_in_window']}"
        )
    above = above_answers(eval_set, queries)
    print(json.dumps(above, indent=1))
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps(
                {"set": args.name, "by_type": split, "diagnosis": read, "above_answers": above},
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
