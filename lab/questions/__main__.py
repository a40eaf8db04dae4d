"""`python -m lab.questions count NAME` builds a set's corpus and records its file and line
counts in its set.json (and writes the set's fetch_corpus.sh); `check NAME` (or `check all`)
rebuilds it and checks the questions: ids, types, and every gold range a function's or
method's span as codeatlas parses the file, its symbol's last part the function's name."""

from __future__ import annotations

import argparse
import json
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
    """Build the corpus into `target`; with `counts`, first record its counts in set.json."""
    if counts:
        spec = recipe(folder)
        spec["files"], spec["lines"] = 0, 0
        (folder / "set.json").write_text(json.dumps(spec, indent=1) + "\n")
    out = subprocess.run(
        ["bash", str(FOLDER / "fetch_corpus.sh"), str(folder), str(target)],
        capture_output=True,
        text=True,
    )
    if counts and "unexpected corpus" in out.stderr:
        files, lines = out.stderr.split(": ", 1)[1].split(" (")[0].replace(",", "").split(" files")
        spec["files"] = int(files)
        spec["lines"] = int(lines.split()[0].strip(", "))
        (folder / "set.json").write_text(json.dumps(spec, indent=1) + "\n")
        (folder / "fetch_corpus.sh").write_text(WRAPPER)
        return build(folder, target)
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("command", choices=("count", "check"))
    p.add_argument("name", help="a set's folder name, or all (check)")
    args = p.parse_args(argv)
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
