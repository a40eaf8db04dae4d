"""`python -m lab.questions count NAME` builds a set's corpus and records its file and line
counts in its set.json (and writes the set's fetch_corpus.sh); `check NAME` (or `check all`)
rebuilds it and checks the questions: ids, types, and every gold range a function's or
method's span as codeatlas parses the file, its symbol's last part the function's name;
`measure` ranks every set's questions with codeatlas (lexical, hybrid) and BM25 over 2,048-
character windows and writes lab/results/questions.{md,json}: per set, the behaviour
questions and all, with 95% bootstrap intervals and paired differences."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from lab.questions import FOLDER, recipe

TYPES = ("behavior", "identifier", "config")
WRAPPER = """#!/usr/bin/env bash
# this set's corpus (lab/questions/fetch_corpus.sh reads set.json beside this script)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../fetch_corpus.sh" "$here" "$1"
"""


def build(folder: Path, target: Path, counts: bool = False) -> str:
    """Build the corpus into `target`; with `counts`, first record its file and line counts in
    set.json (and write the set's fetch_corpus.sh)."""
    script = ["bash", str(FOLDER / "fetch_corpus.sh"), str(folder), str(target)]
    if counts:
        out = subprocess.run(
            script, capture_output=True, text=True, env={**os.environ, "RECORD_COUNTS": "1"}
        )
        if out.returncode != 0:
            raise SystemExit(out.stderr.strip())
        spec = recipe(folder)
        spec["files"], spec["lines"] = (int(n) for n in out.stdout.split())
        (folder / "set.json").write_text(json.dumps(spec, indent=1) + "\n")
        (folder / "fetch_corpus.sh").write_text(WRAPPER)
    out = subprocess.run(script, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr.strip())
    return out.stdout.strip()


def check(folder: Path) -> list[str]:
    """The problems of one set (empty: none), after printing its summary."""
    from indexing.parsing.languages import detect_language
    from lab.fixes.functions import file_functions

    problems: list[str] = []
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        print(build(folder, corpus))
        ids = Counter(q["id"] for q in queries)
        problems += [f"id {i} used {n} times" for i, n in ids.items() if n > 1]
        parsed: dict[str, list] = {}
        for q in queries:
            if q.get("type") not in TYPES:
                problems.append(f"{q['id']}: type {q.get('type')!r} is not one of {TYPES}")
            if not q.get("gold"):
                problems.append(f"{q['id']}: no gold answer")
            for g in q.get("gold", []):
                path = corpus / g["path"]
                if not path.is_file():
                    problems.append(f"{q['id']}: {g['path']} is not in the corpus")
                    continue
                if g["path"] not in parsed:
                    language = detect_language(g["path"]) or ""
                    parsed[g["path"]] = file_functions(g["path"], path.read_bytes(), language)
                spans = {(f.start_line, f.end_line): f for f in parsed[g["path"]]}
                found = spans.get((g["start_line"], g["end_line"]))
                if found is None:
                    near = [
                        f"{f.symbol} {f.start_line}-{f.end_line}"
                        for f in parsed[g["path"]]
                        if abs(f.start_line - g["start_line"]) <= 3
                    ]
                    problems.append(
                        f"{q['id']}: {g['path']}:{g['start_line']}-{g['end_line']} is no"
                        f" function's span (near: {near})"
                    )
                    continue
                last = lambda s: s.replace("::", ".").split(".")[-1]  # noqa: E731
                if last(found.symbol) != last(g["symbol"]):
                    problems.append(f"{q['id']}: {g['symbol']} is {found.symbol} there")
    types = Counter(q.get("type") for q in queries)
    print(f"{folder.name}: {len(queries)} questions {dict(types)}, {len(problems)} problems")
    return problems


RESULTS = Path(__file__).resolve().parents[1] / "results"
SYSTEMS = ("codeatlas-hybrid", "codeatlas-lexical")
WINDOWS = "bm25-2048"


def measure(provider: str, out: Path) -> None:
    """Rank every set with each system (indexing it first when needed), write the ranks and
    the table of each system against the windows."""
    from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired
    from benchmarks.intervals import reciprocal_rank as rr
    from benchmarks.workspace import prepare_environment
    from lab.behaviour_php2.measure import first_hit_ranks
    from lab.questions import question_sets

    prepare_environment()
    found: dict[str, dict] = {}
    for name, eval_set in question_sets().items():
        ranks = first_hit_ranks(eval_set, provider, ("lexical", "hybrid"))
        types = {q["id"]: q["type"] for q in eval_set.queries()}
        found[name] = {"types": types, "ranks": {s: ranks[s] for s in (*SYSTEMS, WINDOWS)}}
    r5 = found_within(5)
    rows = [
        "| set | questions | n | system | R@5 | MRR@10 | Δ R@5 vs windows | Δ MRR@10 vs windows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    pooled: dict[tuple[str, str], list[tuple]] = {}
    for name, got in [*found.items(), ("all sets", None)]:
        for kind in ("behavior", "all"):
            for system in (*SYSTEMS, WINDOWS):
                if got is None:
                    pairs = pooled[(kind, system)]
                else:
                    ids = [i for i, t in sorted(got["types"].items()) if kind in ("all", t)]
                    pairs = [(got["ranks"][system][i], got["ranks"][WINDOWS][i]) for i in ids]
                    pooled.setdefault((kind, system), []).extend(pairs)
                ours, theirs = [a for a, _ in pairs], [b for _, b in pairs]
                cells = [
                    fmt(*interval([r5(a) for a in ours])),
                    fmt(*interval([rr(a) for a in ours])),
                ]
                if system != WINDOWS:
                    cells.append(fmt_delta(*paired([r5(a) for a in ours], [r5(b) for b in theirs])))
                    cells.append(fmt_delta(*paired([rr(a) for a in ours], [rr(b) for b in theirs])))
                else:
                    cells += ["", ""]
                rows.append(f"| {name} | {kind} | {len(pairs)} | {system} | {' | '.join(cells)} |")
    out.with_suffix(".json").write_text(json.dumps(found, indent=1) + "\n")
    head = (
        "# Written questions over training-split code: codeatlas against BM25 windows\n\n"
        f"`python -m lab.questions measure --embedder {provider}`; R@5 and MRR@10 with 95%"
        " bootstrap intervals, Δ paired over the same questions (* when the interval excludes"
        " 0). `behavior`: the questions of how the code does something; `all`: with the"
        " identifier and config ones.\n\n"
    )
    out.with_suffix(".md").write_text(head + "\n".join(rows) + "\n")
    print("\n".join(rows))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("command", choices=("count", "check", "measure"))
    p.add_argument("name", nargs="?", default="all", help="a set's folder name, or all")
    p.add_argument("--embedder", default="local", help="measure: provider (local | fake)")
    p.add_argument("--out", default=str(RESULTS / "questions"), help="measure: results stem")
    args = p.parse_args(argv)
    if args.command == "measure":
        measure(args.embedder, Path(args.out))
        return 0
    if args.command == "count":
        with tempfile.TemporaryDirectory() as tmp:
            print(build(FOLDER / args.name, Path(tmp) / "corpus", counts=True))
        return 0
    names = (
        [p.name for p in sorted(FOLDER.iterdir()) if (p / "set.json").is_file()]
        if args.name == "all"
        else [args.name]
    )
    problems = [p for name in names for p in check(FOLDER / name)]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
