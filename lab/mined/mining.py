"""Questions from one corpus: every function's docs emptied as its files are copied in, the
documented functions filtered CodeSearchNet-style, deduplicated, sampled with a fixed seed, and
each question's gold range read from the file as it is committed."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lab.mined.docs import MINED_KINDS, DocumentedFunction, mine_file
from lab.mined.paths import is_test_path
from lab.mined.stripping import blank_lines
from lab.mined.summary import (
    MAX_DESCRIPTION_WORDS,
    first_paragraph,
    first_sentence,
    rejection,
    shape,
    without_leading_name,
)

MIN_CODE_LINES = 3
MAX_PER_SHAPE = 2
MAX_FILE_BYTES = 500_000
# a test module inside a source file (Rust's `#[cfg(test)] mod tests`, a `Tests` class)
_TEST_MODULE = re.compile(
    r"(^|::|\.)(tests?|test_\w+|\w+_tests?|Tests?)(::|\.)"
)  # tables and generated data, not code someone searches


@dataclass
class Candidate:
    """A documented function and what became of it."""

    function: DocumentedFunction
    package: str
    summary: str
    reason: str | None  # why it is no question; None: kept
    # the first paragraph when it says more than the summary (None: it is the summary, or a
    # run-on text longer than a question): the long form of the question
    description: str | None = None


@dataclass
class TreeStats:
    """What one source folder contributed."""

    files: int = 0
    functions: int = 0
    documented: int = 0


def take_sources(
    root: Path,
    prefix: str,
    suffixes: tuple[str, ...],
    corpus: Path,
    *,
    package: str,
    exclude: tuple[str, ...] = (),
) -> tuple[TreeStats, list[Candidate]]:
    """Copy the folder's non-test sources into `corpus/prefix/` with every function's docs
    emptied (line numbers unchanged); return what it held and its documented functions."""
    stats = TreeStats()
    found: list[Candidate] = []
    for file in sorted(root.rglob("*")):
        relative = file.relative_to(root)
        if not file.is_file() or not relative.name.endswith(suffixes):
            continue
        if is_test_path(relative.as_posix()) or any(relative.match(x) for x in exclude):
            continue
        data = file.read_bytes()
        if len(data) > MAX_FILE_BYTES or b"\0" in data[:4096]:
            continue
        path = f"{prefix}/{relative.as_posix()}"
        count, functions = mine_file(path, data)
        stats.files += 1
        stats.functions += count
        stats.documented += len(functions)
        stripped = blank_lines(data, (n for f in functions if f.strippable for n in f.doc_lines))
        target = corpus / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(stripped)
        found += [_candidate(function, package) for function in functions]
    return stats, found


def _candidate(function: DocumentedFunction, package: str) -> Candidate:
    summary = without_leading_name(first_sentence(function.doc), function.name)
    description: str | None = without_leading_name(first_paragraph(function.doc), function.name)
    if description == summary or len(description.split()) > MAX_DESCRIPTION_WORDS:
        description = None
    reason = None
    if _TEST_MODULE.search(function.qualified_name):
        reason = "in a test module"
    elif not function.has_body:
        reason = "a declaration without a body"
    elif not function.strippable:
        reason = "docstring is the whole body"
    elif function.code_lines < MIN_CODE_LINES:
        reason = "fewer than 3 lines of code"
    else:
        reason = rejection(summary, function.name)
    return Candidate(function, package, summary, reason, description)


def questions(
    language: str, split: str, sample: list[Candidate], corpus: Path, form: str = "summary"
) -> tuple[list[dict], int]:
    """The questions of the sampled candidates with their gold ranges, read from the files as
    committed; and how many were lost (their function not found again: never seen so far).
    `form`: asked as the summary, or as the long form (`description`, which they must have)."""
    long = form == "description"
    by_path: dict[str, list[Candidate]] = {}
    for c in sample:
        by_path.setdefault(c.function.path, []).append(c)
    queries: list[dict] = []
    lost = 0
    for path, chosen in by_path.items():
        ranges = symbol_ranges(path, (corpus / path).read_bytes())
        for c in chosen:
            span = ranges.get((c.function.qualified_name, c.function.definition_line))
            if span is None:
                lost += 1
                continue
            queries.append(
                {
                    "id": f"{language}-{split}-{'long-' * long}{len(queries) + 1:04d}",
                    "type": "description" if long else "docstring",
                    "query": c.description if long else c.summary,
                    "gold": [
                        {
                            "path": path,
                            "symbol": c.function.qualified_name,
                            "start_line": span[0],
                            "end_line": span[1],
                        }
                    ],
                    "package": c.package,
                }
            )
    return queries, lost


def symbol_ranges(path: str, data: bytes) -> dict[tuple[str, int], tuple[int, int]]:
    """(qualified name, a line inside it) -> line range of every function and method of the
    file, as codeatlas parses it."""
    from indexing.parsing.parser import parse_file

    ranges: dict[tuple[str, int], tuple[int, int]] = {}
    for symbol in parse_file(path, data).symbols:
        if symbol.kind in MINED_KINDS:
            for line in range(symbol.start_line, symbol.end_line + 1):
                ranges.setdefault(
                    (symbol.qualified_name, line), (symbol.start_line, symbol.end_line)
                )
    return ranges


def sample(candidates: list[Candidate], limit: int, seed: str) -> list[Candidate]:
    """Up to `limit` kept candidates chosen at random with a fixed seed, in file order."""
    kept = [c for c in candidates if c.reason is None]
    kept.sort(key=lambda c: (c.function.path, c.function.definition_line))
    chosen = random.Random(seed).sample(kept, min(limit, len(kept)))
    return sorted(chosen, key=lambda c: (c.function.path, c.function.definition_line))


def drop_duplicates(candidates: list[Candidate], seed: str) -> None:
    """A summary that several functions share has no one answer: all of them are dropped. A
    family of functions documented from one template ("is like IntSlice, but accepts a
    shorthand...") keeps at most MAX_PER_SHAPE, chosen at random, so it cannot fill the set."""
    duplicates = Counter(c.summary.lower() for c in candidates if c.reason is None)
    for c in candidates:
        if c.reason is None and duplicates[c.summary.lower()] > 1:
            c.reason = "same summary as another function"
    families: dict[str, list[Candidate]] = {}
    for c in candidates:
        if c.reason is None:
            families.setdefault(shape(c.summary), []).append(c)
    rng = random.Random(f"{seed}-shapes")
    for family in families.values():
        if len(family) > MAX_PER_SHAPE:
            for c in rng.sample(family, len(family) - MAX_PER_SHAPE):
                c.reason = "templated summary (a family of alike functions)"
