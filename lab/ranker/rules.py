"""Each hand-set rule of the fused order switched off in turn, against search as shipped, on the
same candidates and questions: paired differences of R@5 and MRR@10 of the shipped order (the
learned model inside its domain, the fused order outside) with 95% bootstrap intervals.

    python -m lab.ranker.rules --sets all,mined-test

A rule that does not win outside its interval on the large (mined) sets, or loses there, is a
candidate for deletion (issue 26). Writes lab/results/rules.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.intervals import found_within, paired, reciprocal_rank
from benchmarks.workspace import prepare_environment
from lab.mined.sets import select
from lab.ranker.compare import first_ranks
from lab.ranker.train import LONG_MODEL_PATH, MODEL_PATH

RESULTS = Path(__file__).resolve().parents[1] / "results"
# each rule off: the module constant of retrieval/search.py and the value that switches it off
RULES_OFF = {
    "semantic slot": ("SEMANTIC_SLOT", 10**6),
    "thin functions at half": ("THIN_FUNCTION_WEIGHT", 1.0),
    "declarations at half": ("DECLARATION_WEIGHT", 1.0),
    "file-level code at half": ("FILE_WEIGHT", 1.0),
    "file evidence share": ("FILE_EVIDENCE_SHARE", 0.0),
}
METRICS = {"R@5": found_within(5), "MRR@10": reciprocal_rank}


def main(argv: list[str] | None = None) -> int:
    """Measure every rule off on every set; print and write the table."""
    import retrieval.search as search
    from retrieval.ranker import load_model

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default="all,mined-test", help="comma-separated sets or groups")
    p.add_argument("--embedder", default="local")
    p.add_argument("--out", default=str(RESULTS / "rules"), help="output path without extension")
    args = p.parse_args(argv)
    prepare_environment()
    models = [load_model(f) for f in (MODEL_PATH, LONG_MODEL_PATH) if f.is_file()]
    rows: dict[str, dict[str, Any]] = {}
    for eval_set in [s for group in args.sets.split(",") for s in select(group)]:
        shipped = first_ranks(eval_set, args.embedder, models)["hybrid"]
        rows[eval_set.name] = {"n": len(shipped)}
        for rule, (constant, off) in RULES_OFF.items():
            kept = getattr(search, constant)
            setattr(search, constant, off)
            try:
                ranks = first_ranks(eval_set, args.embedder, models)["hybrid"]
            finally:
                setattr(search, constant, kept)
            rows[eval_set.name][rule] = {
                m: paired([f(r) for r in ranks], [f(r) for r in shipped])
                for m, f in METRICS.items()
            }
        print(f"[rules] {eval_set.name} done", file=sys.stderr, flush=True)
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    text = table(rows)
    out.with_suffix(".md").write_text(
        "# The fused order's hand-set rules, each switched off (`python -m"
        " lab.ranker.rules`)\n\nΔR@5 / ΔMRR@10 of search as shipped with the rule off"
        " minus as shipped; * when the 95% interval excludes 0.\n\n" + text + "\n"
    )
    print(text)
    return 0


def table(rows: dict[str, dict[str, Any]]) -> str:
    """A markdown table: a row per set, a column per rule switched off."""
    lines = ["| set | n | " + " | ".join(f"{r} off" for r in RULES_OFF) + " |"]
    lines.append("|---|---|" + "---|" * len(RULES_OFF))
    for name, row in rows.items():
        cells = []
        for rule in RULES_OFF:
            parts = []
            for metric in METRICS:
                mean, lo, hi = row[rule][metric]
                parts.append(f"{mean:+.3f}" + ("*" if lo > 0 or hi < 0 else ""))
            cells.append(" / ".join(parts))
        lines.append(f"| {name} | {row['n']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
