"""Run every benchmark and write BENCHMARKS.md (`make bench`).

python -m benchmarks.run_all                 # everything (eval-corpus databases rebuilt)
python -m benchmarks.run_all --quick         # quality + callers only, reusing indexes
python -m benchmarks.run_all --fresh-scale   # also rebuild the ~20k/~100k-chunk databases
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback

from benchmarks import machine, report
from benchmarks.workspace import prepare_environment

OTHER_BENCHMARKS = ("chunking_bench", "embedding_bench", "freshness_bench")


def _others(skip: bool) -> dict:
    """The colleagues' benchmarks: their `run()` (unless skipped), and their results files."""
    out: dict = {}
    for name in OTHER_BENCHMARKS:
        short = name.removesuffix("_bench")
        try:
            module = importlib.import_module(f"benchmarks.{name}")
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
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse options, run, write BENCHMARKS.md and benchmarks/results/run_all.json."""
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
    p.add_argument("--note", help="a sentence for BENCHMARKS.md about the conditions")
    args = p.parse_args(argv)

    from benchmarks import callers_bench, quality, speed
    from benchmarks.workspace import database

    started = time.monotonic()
    prepare_environment()
    os.environ.setdefault("CODEATLAS_EMBEDDING_PROVIDER", args.provider)
    results: dict = {
        "machine": machine.describe(database("postgres", fresh=False)),
        "note": args.note,
        "missing": [],
    }
    fresh = not (args.quick or args.reuse)

    print("[run_all] quality", file=sys.stderr, flush=True)
    results["quality"] = quality.run(fresh=fresh, provider=args.provider, cache=not fresh)
    if not results["quality"]["embedder"]["real"]:
        results["missing"].append(
            "a real embedding model: the `local` provider returned the fake embedder, so the"
            " semantic numbers are not those of all-MiniLM-L6-v2"
        )

    print("[run_all] callers", file=sys.stderr, flush=True)
    results["callers"] = callers_bench.run(results["quality"]["database_url"])
    if not results["callers"].get("available"):
        results["missing"].append(f"find_callers: {results['callers'].get('why')}")

    if not args.quick:
        print("[run_all] speed", file=sys.stderr, flush=True)
        results["speed"] = speed.run(
            fresh=fresh,
            fresh_scale=args.fresh_scale,
            quality_result=results["quality"],
            scale_levels=tuple(x for x in args.scale_levels.split(",") if x),
        )
        results["others"] = _others(args.skip_others)
    results["machine"]["load_end"] = [round(x, 2) for x in os.getloadavg()]
    results["seconds"] = round(time.monotonic() - started, 1)

    report.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (report.RESULTS_DIR / "run_all.json").write_text(
        json.dumps(results, indent=1, default=str) + "\n"
    )
    path = report.write(results)
    print(f"[run_all] wrote {path} in {results['seconds']:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
