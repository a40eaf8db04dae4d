"""The headline tables of BENCHMARKS.md, written from the results stored as data.

Each table sits between `<!-- table:NAME -->` and `<!-- /table:NAME -->` in BENCHMARKS.md and is
rendered from `benchmarks/published/<file>.json`, which names the raw results (in lab/results/)
and the command that measured them. After a new measurement, change the numbers there, then

    python -m benchmarks.tables            # rewrite the tables in BENCHMARKS.md
    python -m benchmarks.tables --check    # exit 1 if BENCHMARKS.md differs (what the test runs)

The text around the tables is written by hand; the numbers in the tables only come from here.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = Path(__file__).resolve().parent / "published"
PAGE = ROOT / "BENCHMARKS.md"
MARKER = re.compile(r"(<!-- table:([a-z_]+) -->\n)(.*?)(<!-- /table:\2 -->)", re.S)


def load(name: str, folder: Path = PUBLISHED) -> dict:
    """One file of stored results."""
    return json.loads((folder / f"{name}.json").read_text())


def _num(value: float | None, places: int = 3) -> str:
    """A figure as the tables print it: at most `places` decimals, no trailing zeros."""
    if value is None:
        return "—"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{places}f}".rstrip("0").rstrip(".")


def _fraction(value: float | None) -> str:
    """A share (recall, precision, MRR) with three decimals, as the eval READMEs print them."""
    return "—" if value is None else f"{value:.3f}"


def _lines(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def quality(data: dict) -> str:
    """Per set: codeatlas hybrid against BM25 and naive RAG; find_callers."""
    rows = []
    for s in data["sets"].values():
        systems = s["systems"]
        hybrid, bm25 = systems["codeatlas-hybrid"], systems["bm25-2048"]
        naive = systems["naive-rag"]
        cast = systems.get("cast-hybrid")
        rows.append(
            [
                f"{s['language']}{' (held out)' if s['held_out'] else ''}",
                str(s["questions"]),
                f"**{_fraction(hybrid['recall@5'])}**",
                _fraction(hybrid["tight@5"]),
                _fraction(hybrid["mrr@10"]),
                _fraction(bm25["recall@5"]),
                _fraction(naive["recall@5"]),
                _fraction(cast["recall@5"]) if cast else "—",
                f"{_fraction(hybrid['recall@2000tok'])} / {_fraction(bm25['recall@2000tok'])}",
                " / ".join(_fraction(s["find_callers"][k]) for k in ("precision", "recall")),
            ]
        )
    header = [
        "set",
        "questions",
        "codeatlas R@5",
        "tight@5",
        "MRR@10",
        "BM25 R@5",
        "naive RAG R@5",
        "cAST R@5",
        "R within 2k tokens (codeatlas / BM25)",
        "find_callers P / R",
    ]
    return _lines(header, rows)


def quality_remeasured(data: dict) -> str:
    """codeatlas hybrid R@5 of the first run beside every later one (`remeasured`: one run or
    a list of them, oldest first), and their means."""
    later = data["remeasured"]
    runs = later if isinstance(later, list) else [later]
    rows = []
    first: list[float] = []
    for name, s in data["sets"].items():
        value = s["systems"]["codeatlas-hybrid"]["recall@5"]
        first.append(value)
        rows.append(
            [s["language"], _fraction(value), *(_fraction(r["recall@5"][name]) for r in runs)]
        )
    means = [
        sum(first) / len(first),
        *(sum(r["recall@5"].values()) / len(r["recall@5"]) for r in runs),
    ]
    rows.append(["**mean**", *(f"**{_fraction(m)}**" for m in means)])
    measured = data["measured"]
    header = [
        "set",
        f"{measured['date'][:10]}, {measured['machine'].split(',')[0]}",
        *(f"{r['date']}, {r['machine'].split(',')[0]}{r.get('label', '')}" for r in runs),
    ]
    return _lines(header, rows)


ACCURACIES = ("file_acc@1", "file_acc@5", "file_acc@10", "func_acc@5", "func_acc@10")


def _acc(triple: list[float] | None) -> str:
    if triple is None:
        return "—"
    mean, lo, hi = triple
    return f"{mean:.3f} [{lo:.2f}, {hi:.2f}]"


def _localisation(part: dict) -> str:
    rows = []
    for name, s in part["systems"].items():
        bold = name.startswith("locate")
        rows.append(
            [
                f"**{name}**" if bold else name,
                *(_acc(s[k]) for k in ACCURACIES),
                f"{s['p50_ms']} / {s['p95_ms']}",
            ]
        )
    header = [
        "system",
        "file Acc@1",
        "file Acc@5",
        "file Acc@10",
        "function Acc@5",
        "function Acc@10",
        "p50 / p95 ms",
    ]
    return _lines(header, rows)


def localisation(data: dict) -> str:
    """SWE-bench Lite reports, the local model."""
    return _localisation(data["swe_bench_lite"])


def localisation_release_notes(data: dict) -> str:
    """Release-note reports, the local model."""
    return _localisation(data["release_notes"])


def _delta(triple: list[float]) -> str:
    mean, lo, hi = triple
    return f"{mean:+.3f} [{lo:+.2f}, {hi:+.2f}]"


def localisation_mined_fixes(data: dict) -> str:
    """Mined fixes per language: locate against BM25 over functions, with the paired difference."""
    rows = []
    for language, s in data["mined_fixes"]["languages"].items():
        delta = s["locate_minus_bm25"]
        rows.append(
            [
                f"**{language}**" if language == "all" else language,
                str(s["n"]),
                _acc(s["locate"]["file_acc@5"]),
                _acc(s["bm25"]["file_acc@5"]),
                _delta(delta["file_acc@5"]),
                _acc(s["locate"]["func_acc@10"]),
                _acc(s["bm25"]["func_acc@10"]),
                _delta(delta["func_acc@10"]),
            ]
        )
    header = [
        "language",
        "fixes",
        "locate file Acc@5",
        "BM25 file Acc@5",
        "Δ",
        "locate function Acc@10",
        "BM25 function Acc@10",
        "Δ",
    ]
    return _lines(header, rows)


def localisation_published(data: dict) -> str:
    """The papers' figures beside codeatlas's (percent, as published)."""
    ours = data["swe_bench_lite"]["systems"]
    locate = next(s for name, s in ours.items() if name.startswith("locate"))
    bm25 = ours["BM25 over functions (LocAgent's baseline)"]
    rows = [
        [
            f"codeatlas locate ({data['swe_bench_lite']['reports']} reports, no LLM)",
            _num(100 * locate["file_acc@5"][0], 1),
            _num(100 * locate["func_acc@10"][0], 1),
        ],
        [
            "codeatlas's BM25 over functions (same reports)",
            _num(100 * bm25["file_acc@5"][0], 1),
            _num(100 * bm25["func_acc@10"][0], 1),
        ],
    ]
    for name, s in data["published"]["systems"].items():
        rows.append(
            [
                f"{name} (published)",
                _num(None if s["file_acc@5"] is None else 100 * s["file_acc@5"], 2),
                _num(None if s["func_acc@10"] is None else 100 * s["func_acc@10"], 2),
            ]
        )
    return _lines(["system", "file Acc@5 %", "function Acc@10 %"], rows)


def measurements(data: dict) -> str:
    """Rows of one measurement each: the figure, when and where, and the command."""
    rows = []
    for r in data["rows"]:
        labels, values = list(r["values"]), list(r["values"].values())
        figure = " / ".join(_num(v, 3) for v in values) + f" {r['unit']}"
        if labels != ["wall"] and labels != ["total"] and labels != ["peak"]:
            figure += f" ({' / '.join(labels)})"
        load = r.get("load")
        if load:
            load = f"load {load}" if load[0].isdigit() else load
            when = f"{r['date']}, {r['machine']}, {load}"
        else:
            when = f"{r['date']}, {r['machine']}"
        rows.append([r["measure"], f"**{figure}**", when, f"`{r['command']}`"])
    return _lines(["what", "measured", "when, machine", "re-run"], rows)


# table name -> (data file, renderer)
TABLES: dict[str, tuple[str, Callable[[dict], str]]] = {
    "quality": ("quality", quality),
    "quality_remeasured": ("quality", quality_remeasured),
    "localisation": ("localisation", localisation),
    "localisation_published": ("localisation", localisation_published),
    "localisation_release_notes": ("localisation", localisation_release_notes),
    "localisation_mined_fixes": ("localisation", localisation_mined_fixes),
    "speed": ("speed", measurements),
    "scale": ("scale", measurements),
    "freshness": ("freshness", measurements),
}


def render(page: str, folder: Path = PUBLISHED) -> str:
    """The page with every marked table rewritten from the stored results."""
    found: set[str] = set()

    def table(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in TABLES:
            raise SystemExit(
                f"BENCHMARKS.md marks an unknown table {name!r}; known: {', '.join(TABLES)}"
            )
        found.add(name)
        file, renderer = TABLES[name]
        return match.group(1) + renderer(load(file, folder)) + match.group(4)

    out = MARKER.sub(table, page)
    missing = set(TABLES) - found
    if missing:
        raise SystemExit(
            f"BENCHMARKS.md has no markers for {', '.join(sorted(missing))}:"
            " add `<!-- table:NAME -->` and `<!-- /table:NAME -->` lines where each goes"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if BENCHMARKS.md differs")
    parser.add_argument("--page", type=Path, default=PAGE)
    args = parser.parse_args(argv)
    page = args.page.read_text()
    new = render(page)
    if args.check:
        if new != page:
            print(f"{args.page} differs from benchmarks/published/: python -m benchmarks.tables")
            return 1
        return 0
    args.page.write_text(new)
    print(f"wrote the tables of {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
