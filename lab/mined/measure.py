"""MRR@10 and Recall@k with 95% bootstrap intervals on mined sets: codeatlas in the chosen modes
beside the BM25 baseline of the eval READMEs (whole-line windows up to 2,048 characters), without
the slower embedding baselines of `lab.quality --baselines`.

    python -m lab.mined.measure --sets mined-test --modes lexical --embedder fake
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from benchmarks import embedder as embedders
from benchmarks.eval_sets import EvalSet
from benchmarks.scoring import CorpusText, Result, intervals, score_run
from benchmarks.workspace import prepare_environment
from lab.baselines.bm25 import BM25, readme_tokens
from lab.baselines.suite import WINDOW_CHARS
from lab.baselines.windows import line_windows
from lab.mined.build import AREA
from lab.mined.sets import select
from lab.quality import DEPTH, codeatlas_runs, ensure_index


def measure(eval_set: EvalSet, modes: tuple[str, ...], provider: str) -> dict:
    """Index the set (when needed), rank its questions, and score each system with intervals."""
    embedder = embedders.make(provider)
    index = ensure_index(eval_set, provider, embedder, fresh=False)
    queries = eval_set.queries()
    ranked, _ = codeatlas_runs(index["url"], index["repository"], queries, modes, embedder)
    windows = line_windows(index["corpus"], WINDOW_CHARS, eval_set.source_suffixes)
    bm25 = BM25([p.text for p in windows], tokens=readme_tokens)
    ranked["bm25-2048"] = {
        q["id"]: [
            Result(windows[i].path, windows[i].start_line, windows[i].end_line)
            for i in bm25.top(q["query"], DEPTH)
        ]
        for q in queries
    }
    text = CorpusText(index["corpus"])
    scores = {name: score_run(queries, r, text.tokens) for name, r in ranked.items()}
    return {
        name: {
            "queries": s["queries"],
            "mrr@10": s["mrr@10"],
            "recall@1": s["recall@1"],
            "recall@5": s["recall@5"],
            "recall@10": s["recall@10"],
            "intervals": intervals(s),
        }
        for name, s in scores.items()
    }


def main(argv: list[str] | None = None) -> int:
    """Measure the sets; print one line per set and system; keep the figures in a JSON file."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default="mined-test")
    p.add_argument("--modes", default="lexical", help="codeatlas modes: lexical,hybrid,semantic")
    p.add_argument("--embedder", default="fake", help="fake | local")
    args = p.parse_args(argv)
    prepare_environment()
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    out = AREA / f"measured-{args.embedder}.json"
    found = json.loads(out.read_text()) if out.is_file() else {}
    print("set                    system             n     MRR@10 [95% CI]         R@5 [95% CI]")
    for eval_set in select(args.sets):
        started = time.monotonic()
        found[eval_set.name] = measure(eval_set, modes, args.embedder)
        for system, s in found[eval_set.name].items():
            mrr, r5 = s["intervals"]["mrr@10"], s["intervals"]["recall@5"]
            print(
                f"{eval_set.name:22} {system:18} {s['queries']:4}"
                f"  {s['mrr@10']:.3f} [{mrr[0]:.3f}, {mrr[1]:.3f}]"
                f"  {s['recall@5']:.3f} [{r5[0]:.3f}, {r5[1]:.3f}]",
                flush=True,
            )
        print(f"  ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        out.write_text(json.dumps(found, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
