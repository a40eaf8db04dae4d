"""Chunking benchmark: parse throughput and symbol completeness, codeatlas vs fixed windows.

Run as `python -m lab.chunking_bench` (writes lab/results/chunking.md) or call
`run()`. Corpora are the real per-language packages of the parsing tests (fetched and cached
from PyPI, npm and Debian on first use).

Definitions, applied identically to both chunkers, with codeatlas' own symbol table (tree-sitter)
as ground truth and the same token estimate (`estimate_tokens`) for both:
- fixed windows: each file cut into consecutive whole-line windows of at most 512 tokens;
- codeatlas: `parse_file(..., max_tokens=512)`;
- a chunk is a *complete symbol* when it contains the whole range of one symbol S and no part of
  any other symbol, except symbols around it (S's class) or inside S;
- *symbols kept whole*: leaf symbols (functions, methods, types without member symbols) whose
  whole range lies inside a single chunk;
- *chunks cutting a symbol*: chunks that hold part of a leaf symbol but not all of it, outside
  that symbol (a piece of a split symbol lies inside it and does not count).
"""

from __future__ import annotations

import sys
import time
from bisect import bisect_left
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpora.languages import CORPORA, corpus_files  # noqa: E402
from indexing.parsing.model import Symbol  # noqa: E402
from indexing.parsing.parser import PARSER_VERSION, parse_file  # noqa: E402
from indexing.parsing.source import estimate_tokens  # noqa: E402
from lab import machine  # noqa: E402

WINDOW_TOKENS = 512
RESULTS = Path(__file__).resolve().parent / "results" / "chunking.md"


def fixed_windows(data: bytes, window: int = WINDOW_TOKENS) -> list[tuple[int, int]]:
    """Byte ranges of consecutive whole-line windows of at most `window` tokens."""
    ranges: list[tuple[int, int]] = []
    start = position = tokens = 0
    for line in data.splitlines(keepends=True):
        cost = estimate_tokens(line.decode("utf-8", "replace"))
        if tokens and tokens + cost > window:
            ranges.append((start, position))
            start, tokens = position, 0
        position += len(line)
        tokens += cost
    if position > start:
        ranges.append((start, position))
    return ranges


def completeness(chunks: list[tuple[int, int]], symbols: list[Symbol]) -> dict[str, int]:
    """Counts behind the three completeness measures for one file's chunks (byte ranges)."""
    spans = sorted((s.start_byte, s.end_byte) for s in symbols)
    starts = [a for a, _ in spans]
    leaves = [
        (a, b)
        for i, (a, b) in enumerate(spans)
        if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in spans[i + 1 : i + 64])
    ]
    complete = cutting = 0
    for lo, hi in chunks:
        overlapping = _overlapping(spans, starts, lo, hi)
        inside = [(a, b) for a, b in overlapping if lo <= a and b <= hi]
        partial = [
            (a, b) for a, b in overlapping if (a, b) not in inside and not (a <= lo and hi <= b)
        ]
        if inside and not partial:
            outer = max(inside, key=lambda s: s[1] - s[0])
            if all(outer[0] <= a and b <= outer[1] for a, b in inside):
                complete += 1
        if any(s in leaves for s in partial):
            cutting += 1
    whole = sum(1 for a, b in leaves if any(lo <= a and b <= hi for lo, hi in chunks))
    return {"chunks": len(chunks), "complete": complete, "cutting": cutting,
            "leaves": len(leaves), "whole": whole}  # fmt: skip


def _overlapping(spans, starts, lo: int, hi: int) -> list[tuple[int, int]]:
    end = bisect_left(starts, hi)
    return [(a, b) for a, b in spans[:end] if b > lo]


def run(languages: list[str] | None = None) -> dict:
    """Measure every language's corpus; returns per-language numbers and the machine."""
    results: dict[str, dict] = {}
    for language in languages or sorted(CORPORA):
        files = [(p, p.read_bytes()) for p in corpus_files(language)]
        started = time.perf_counter()
        for path, data in files:
            parse_file(str(path), data)
        elapsed = time.perf_counter() - started
        size = sum(len(data) for _, data in files)
        ours = {"chunks": 0, "complete": 0, "cutting": 0, "leaves": 0, "whole": 0}
        fixed = dict(ours)
        for path, data in files:
            wide = parse_file(str(path), data, max_tokens=WINDOW_TOKENS)
            for key, value in completeness(
                [(c.start_byte, c.end_byte) for c in wide.chunks], wide.symbols
            ).items():
                ours[key] += value
            for key, value in completeness(fixed_windows(data), wide.symbols).items():
                fixed[key] += value
        results[language] = {
            "files": len(files),
            "bytes": size,
            "seconds": elapsed,
            "files_per_s": len(files) / elapsed,
            "mb_per_s": size / elapsed / 1e6,
            "codeatlas": _ratios(ours),
            "fixed_512": _ratios(fixed),
        }
    return {"parser_version": PARSER_VERSION, "machine": machine.describe(), "languages": results}


def _ratios(counts: dict[str, int]) -> dict[str, float | int]:
    chunks = max(counts["chunks"], 1)
    return {
        **counts,
        "complete_fraction": counts["complete"] / chunks,
        "cutting_fraction": counts["cutting"] / chunks,
        "whole_symbol_fraction": counts["whole"] / max(counts["leaves"], 1),
    }


def render(report: dict) -> str:
    """The Markdown page for lab/results/chunking.md."""
    m = report["machine"]
    lines = [
        "# Chunking benchmark",
        "",
        f"Measured {m['date']} on {m['nproc']} cores ({m['cpu_model']}, 1-min load"
        f" {m['load_average'][0]:.2f} at the"
        f" end: other work shared the machine), Python {m['python']},"
        f" parser `{report['parser_version']}`. Produced by `python -m lab.chunking_bench`.",
        "",
        "Throughput: `parse_file` with default settings (256-token chunks), one process, corpora"
        " already on disk. Completeness: codeatlas at `max_tokens=512` vs fixed 512-token"
        " line windows; definitions in the module docstring of `lab/chunking_bench.py`.",
        "",
        "| language | files | KB | files/s | MB/s | complete-symbol chunks: codeatlas / fixed"
        " | leaf symbols kept whole: codeatlas / fixed"
        " | chunks cutting a symbol: codeatlas / fixed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals = {"files": 0, "bytes": 0, "seconds": 0.0}
    for language, r in report["languages"].items():
        ours, fixed = r["codeatlas"], r["fixed_512"]
        for key in totals:
            totals[key] += r[key]
        lines.append(
            f"| {language} | {r['files']} | {r['bytes'] / 1e3:.0f} | {r['files_per_s']:.0f}"
            f" | {r['mb_per_s']:.2f}"
            f" | {ours['complete_fraction']:.0%} / {fixed['complete_fraction']:.0%}"
            f" | {ours['whole_symbol_fraction']:.0%} / {fixed['whole_symbol_fraction']:.0%}"
            f" | {ours['cutting_fraction']:.0%} / {fixed['cutting_fraction']:.0%} |"
        )
    seconds = max(totals["seconds"], 1e-9)
    lines += [
        "",
        f"All languages: {totals['files']} files, {totals['bytes'] / 1e6:.1f} MB in"
        f" {totals['seconds']:.1f} s = {totals['files'] / seconds:.0f} files/s,"
        f" {totals['bytes'] / seconds / 1e6:.2f} MB/s.",
        "",
        "Reading the table: codeatlas chunks that are not complete symbols are file chunks"
        " (imports, top-level code), class headers (fields without their methods) and pieces of"
        " symbols larger than the window; none of them cuts a symbol. Leaf symbols not kept whole"
        " by codeatlas are the ones larger than the window, which are split into pieces that"
        " each carry the symbol's signature.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark, print the table and write it to lab/results/chunking.md."""
    report = run()
    page = render(report)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(page)
    print(page)


if __name__ == "__main__":
    main()
