"""Run every benchmark and write the full report, lab/results/run_all.md (`make bench`); the
headline tables of BENCHMARKS.md are rewritten from benchmarks/published/ by
`python -m benchmarks.tables` once their numbers are updated there.

python -m lab.run_all                 # everything (eval-corpus databases rebuilt)
python -m lab.run_all --quick         # quality + callers only, reusing indexes
python -m lab.run_all --sets ts       # some eval sets (default: all seven; speed needs py)
python -m lab.run_all --fresh-scale   # also rebuild the ~20k/~100k-chunk databases

Quality and find_callers run on every eval set, the public dev sets and the held-out ones
(benchmarks/eval_sets.py, benchmarks/holdout/); speed, latency and storage on the Python set's
corpus and the scale repositories.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

from benchmarks.workspace import prepare_environment
from lab import machine, report

OTHER_BENCHMARKS = ("chunking_bench", "embedding_bench", "freshness_bench")
# run by hand (hours and ~19 GB: `python -m lab.lexical_scale`; the Linux kernel:
# `python -m lab.kernel`, `python -m lab.commit_scaling`); their results files are
# included as they are
BY_HAND = ("lexical_scale", "everyday_use", "ranker", "kernel", "commit_scaling")


def _others(skip: bool) -> dict:
    """The colleagues' benchmarks: their `run()` (unless skipped), and their results files."""
    out: dict = {}
    for name in OTHER_BENCHMARKS:
        short = name.removesuffix("_bench")
        try:
            module = importlib.import_module(f"lab.{name}")
        except ImportError:
            continue
        entry: dict = {"result": None}
        if not skip:
            print(f"[run_all] {name}.run()", file=sys.stderr, flush=True)
            try:
                entry["result"] = module.run()
            except Exception as exc:  # noqa: BLE001 - one benchmark must not sink the report
                entry["error"] = f"{type(exc).__name__}: {exc}"[:300]
                traceback.print_exc()
        out[short] = entry
    for name in BY_HAND:
        out[name] = {"result": None}
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse options, run, write lab/results/run_all.md and run_all.json."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="quality and callers only, reuse indexes")
    p.add_argument("--reuse", action="store_true", help="reuse the eval-corpus indexes")
    p.add_argument("--fresh-scale", action="store_true", help="rebuild the scale databases")
    p.add_argument(
        "--skip-others",
        action="store_true",
        help="do not run chunking/embedding/freshness (still include their results)",
    )
    p.add_argument(
        "--scale-levels",
        default="20k,100k",
        help="comma-separated scale databases to measure latency on ('' for none)",
    )
    p.add_argument("--provider", default="local", help="embedder for quality (local | fake)")
    p.add_argument(
        "--sets",
        default="all",
        help="eval sets for quality and callers (all: the dev and held-out sets)",
    )
    p.add_argument("--note", help="a sentence for the report about the conditions")
    p.add_argument(
        "--output", type=Path, help="write the report here (and its .json beside it) instead"
    )
    args = p.parse_args(argv)

    from benchmarks.workspace import database
    from lab import callers_bench, quality, speed
    from lab.mined.sets import select

    started = time.monotonic()
    prepare_environment()
    os.environ.setdefault("CODEATLAS_EMBEDDING_PROVIDER", args.provider)
    results: dict = {
        "machine": machine.describe(database("postgres", fresh=False)),
        "note": args.note,
        "missing": [],
    }
    fresh = not (args.quick or args.reuse)

    results["quality"], results["callers"] = {}, {}
    for eval_set in select(args.sets):
        print(f"[run_all] quality {eval_set.name}", file=sys.stderr, flush=True)
        q = quality.run(eval_set, fresh=fresh, provider=args.provider, cache=not fresh)
        results["quality"][eval_set.name] = q
        fake = args.provider == "local" and not q["embedder"]["real"]
        if fake and not any("real embedding" in m for m in results["missing"]):
            results["missing"].append(
                "a real embedding model: the `local` provider returned the fake embedder, so"
                " the semantic numbers are not those of all-MiniLM-L6-v2"
            )
        print(f"[run_all] callers {eval_set.name}", file=sys.stderr, flush=True)
        c = callers_bench.run(q["database_url"], q["corpus"]["repository"], eval_set)
        results["callers"][eval_set.name] = c
        if not c.get("available"):
            results["missing"].append(f"find_callers ({eval_set.name}): {c.get('why')}")
        skipped = q["baseline_build"].get("cast", {}).get("skipped")
        if skipped:
            results["missing"].append(f"cAST baselines for {eval_set.language}: {skipped}")

    if not args.quick and "py" in results["quality"]:
        print("[run_all] speed", file=sys.stderr, flush=True)
        results["speed"] = speed.run(
            fresh=fresh,
            fresh_scale=args.fresh_scale,
            quality_result=results["quality"]["py"],
            scale_levels=tuple(x for x in args.scale_levels.split(",") if x),
        )
        results["others"] = _others(args.skip_others)
    results["machine"]["load_end"] = [round(x, 2) for x in os.getloadavg()]
    results["seconds"] = round(time.monotonic() - started, 1)

    raw = args.output.with_suffix(".json") if args.output else report.RESULTS_DIR / "run_all.json"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text(json.dumps(results, indent=1, default=str) + "\n")
    path = report.write(results, args.output)
    print(f"[run_all] wrote {path} in {results['seconds']:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
