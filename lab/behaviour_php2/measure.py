"""The php2 behaviour questions on both corpora (the framework alone, and as a checkout holds it
with its tests and guide): codeatlas lexical and hybrid, with and without the auxiliary-file
weight (`retrieval.search.AUXILIARY_WEIGHT`), against BM25 over 2,048-character windows, with
95% bootstrap intervals and paired differences over the same questions.

    YII2_GIT_DIR=/path/to/yii2.git python -m lab.behaviour_php2.measure --embedder local \
        --json lab/results/behaviour_php2.json

The indexes are built on first use (`lab.quality`'s databases; the local model embeds the
framework's 6,263 chunks and the checkout's 12,649, ~9 and ~19 minutes at load 12 on two cores).
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks import embedder as embedders
from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.scoring import CorpusText, Result, score_run
from benchmarks.workspace import prepare_environment
from lab.baselines.bm25 import BM25, readme_tokens
from lab.baselines.suite import WINDOW_CHARS
from lab.baselines.windows import line_windows
from lab.behaviour_php2 import PHP2, PHP2_CHECKOUT
from lab.quality import DEPTH, codeatlas_runs, ensure_index

METRICS = {"recall@5": found_within(5), "mrr@10": reciprocal_rank}
WINDOWS = "bm25-2048"


def first_hit_ranks(eval_set, provider: str, modes: tuple[str, ...]) -> dict[str, dict]:
    """Per system, each question's first-hit rank (None: not in the top 10)."""
    from retrieval import search

    embedder = embedders.make(provider)
    index = ensure_index(eval_set, provider, embedder, fresh=False)
    queries = eval_set.queries()
    text = CorpusText(index["corpus"])
    ranks: dict[str, dict] = {}
    shipped = search.AUXILIARY_WEIGHT
    for label, weight in (("", shipped), (" without roles", 1.0)):
        search.AUXILIARY_WEIGHT = weight
        try:
            ranked, _ = codeatlas_runs(index["url"], index["repository"], queries, modes, embedder)
        finally:
            search.AUXILIARY_WEIGHT = shipped
        for system, results in ranked.items():
            ranks[system + label] = score_run(queries, results, text.tokens)["first_hit_rank"]
    windows = line_windows(index["corpus"], WINDOW_CHARS, eval_set.source_suffixes)
    bm25 = BM25([w.text for w in windows], tokens=readme_tokens)
    found = {
        q["id"]: [
            Result(windows[i].path, windows[i].start_line, windows[i].end_line)
            for i in bm25.top(q["query"], DEPTH)
        ]
        for q in queries
    }
    ranks[WINDOWS] = score_run(queries, found, text.tokens)["first_hit_rank"]
    return ranks


def summarize(ranks: dict[str, dict]) -> dict:
    """Every system's scores with intervals, and the paired differences that matter: each
    codeatlas system against the windows, and each against itself without the role weight."""
    ids = sorted(ranks[WINDOWS])

    def values(system: str, metric: str) -> list[float]:
        return [METRICS[metric](ranks[system][i]) for i in ids]

    out: dict = {"questions": len(ids), "systems": {}, "against_windows": {}, "roles": {}}
    for system in ranks:
        out["systems"][system] = {m: interval(values(system, m)) for m in METRICS}
        if system.startswith("codeatlas-"):
            out["against_windows"][system] = {
                m: paired(values(system, m), values(WINDOWS, m)) for m in METRICS
            }
        if system.startswith("codeatlas-") and not system.endswith(" without roles"):
            out["roles"][system] = {
                m: paired(values(system, m), values(system + " without roles", m)) for m in METRICS
            }
    out["first_hit_rank"] = ranks
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure both corpora; print the tables; optionally write them."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--embedder", default="local", help="provider: local | fake")
    p.add_argument("--modes", default="lexical,hybrid")
    p.add_argument("--json", dest="json_out")
    args = p.parse_args(argv)
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    prepare_environment()
    out = {}
    for eval_set in (PHP2, PHP2_CHECKOUT):
        out[eval_set.name] = summarize(first_hit_ranks(eval_set, args.embedder, modes))
        data = out[eval_set.name]
        print(f"## {eval_set.name} ({data['questions']} behaviour questions, {args.embedder})")
        for system, metrics in data["systems"].items():
            print(f"  {system:34s} " + "  ".join(f"{m} {fmt(*v)}" for m, v in metrics.items()))
        for kind in ("against_windows", "roles"):
            for system, metrics in data[kind].items():
                what = "windows" if kind == "against_windows" else "itself without roles"
                print(
                    f"  {system} - {what}: "
                    + "  ".join(f"{m} {fmt_delta(*v)}" for m, v in metrics.items())
                )
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"embedder": args.embedder, "sets": out}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
