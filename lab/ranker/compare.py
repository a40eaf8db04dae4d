"""The learned ranker against the rank-fusion order and BM25 alone, side by side in one run, with
95% bootstrap intervals and paired differences (`benchmarks/intervals.py`).

    python -m lab.ranker.compare --sets all,mined-test --embedder local

Systems: `lexical` (BM25F over symbol chunks), `fused` (hybrid search in the RRF order with the
hand-set weights and rules), `hybrid` (what search ships: the same candidates in the order of
the learned model whose domain holds the query, the fused order for the others; with
`--ranker FILE[,FILE]` other models than the shipped ones). `--form description` asks the mined
sets' questions in their long form (lab/ranker/collect.py).
Writes lab/results/ranker.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks import embedder as embedders
from benchmarks.codeatlas_search import CodeatlasSearch
from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.scoring import Result, first_rank
from benchmarks.workspace import prepare_environment
from lab.mined.sets import select
from lab.quality import ensure_index
from lab.ranker.collect import FORMS, questions_of
from lab.ranker.train import LONG_MODEL_PATH, MODEL_PATH
from retrieval.ranker import TreeEnsemble, load_model

RESULTS = Path(__file__).resolve().parents[1] / "results"
SYSTEMS = ("lexical", "fused", "hybrid")
METRICS = {"R@5": found_within(5), "MRR@10": reciprocal_rank}


def first_ranks(
    eval_set,
    provider: str,
    models: list[TreeEnsemble],
    *,
    keep_migrated: bool = False,
    form: str = "summary",
) -> dict[str, list[int | None]]:
    """Per system, the rank of each query's first hit (None: not in the top 10). The fused and
    the learned orders are two orders of the same candidates, computed once."""
    from retrieval.search import candidates, learned_order, search_code

    embedder = embedders.make(provider)
    index = ensure_index(eval_set, provider, embedder, fresh=False, keep_migrated=keep_migrated)
    search = CodeatlasSearch(index["url"], [index["repository"]], embedder)
    ranks: dict[str, list[int | None]] = {s: [] for s in SYSTEMS}
    started = time.perf_counter()
    try:
        for q in questions_of(eval_set, form):
            lexical = search_code(search.conn, search.scope, q["query"], mode="lexical")
            found = candidates(
                search.conn, search.scope, q["query"], embed_query=search.embed_query
            )
            search.conn.commit()
            fused = list(found.hits)
            model = found.model_among(models) if fused else None  # None: the fused order
            learned = (
                learned_order(list(fused), model.predict(found.features())) if model else fused
            )
            for system, hits in (("lexical", lexical.hits), ("fused", fused), ("hybrid", learned)):
                results = [Result(h.path, h.start_line, h.end_line) for h in hits[:10]]
                ranks[system].append(first_rank(results, q["gold"]))
    finally:
        search.close()
    n = max(1, len(ranks["hybrid"]))
    print(
        f"[compare] {eval_set.name}: {n} queries,"
        f" {1000 * (time.perf_counter() - started) / n:.0f} ms/q for all three",
        file=sys.stderr,
    )
    return ranks


def summarise(ranks: dict[str, list[int | None]]) -> dict:
    """Each metric per system with its interval, and the learned order's paired differences."""
    out: dict = {"queries": len(ranks["hybrid"])}
    for metric, term in METRICS.items():
        values = {s: [term(r) for r in ranks[s]] for s in SYSTEMS}
        out[metric] = {s: interval(v) for s, v in values.items()}
        out[metric]["hybrid-fused"] = paired(values["hybrid"], values["fused"])
        out[metric]["hybrid-lexical"] = paired(values["hybrid"], values["lexical"])
    return out


def table(results: dict[str, dict]) -> str:
    """A markdown table: a row per set."""
    head = ["set", "n"]
    for metric in METRICS:
        head += [f"{metric} {s}" for s in SYSTEMS] + [f"Δ{metric} vs fused", f"Δ{metric} vs BM25"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, r in results.items():
        cells = [name, str(r["queries"])]
        for metric in METRICS:
            m = r[metric]
            cells += [fmt(*m[s]) for s in SYSTEMS]
            cells += [fmt_delta(*m["hybrid-fused"]), fmt_delta(*m["hybrid-lexical"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure the sets, print and write the table."""

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default="all", help="comma-separated sets or groups")
    p.add_argument("--embedder", default="local")
    shipped = [str(p) for p in (MODEL_PATH, LONG_MODEL_PATH) if p.is_file()]
    p.add_argument(
        "--ranker",
        default=",".join(shipped),
        help="comma-separated models, each applied inside its domain (make train-ranker)",
    )
    p.add_argument("--form", choices=FORMS, default="summary", help="mined questions' form")
    p.add_argument("--out", default=str(RESULTS / "ranker.md"))
    p.add_argument(
        "--keep-migrated",
        action="store_true",
        help="search an index a migration was applied to since, instead of rebuilding it",
    )
    args = p.parse_args(argv)
    prepare_environment()
    missing = [f for f in args.ranker.split(",") if not Path(f).is_file()]
    if missing or not args.ranker:
        raise SystemExit(f"no ranker at {missing}: make train-ranker, or --ranker FILE")
    models = [load_model(f) for f in args.ranker.split(",")]
    results: dict[str, dict] = {}
    sets = [s for group in args.sets.split(",") for s in select(group)]
    for eval_set in sets:
        ranks = first_ranks(
            eval_set, args.embedder, models, keep_migrated=args.keep_migrated, form=args.form
        )
        # each question's first-hit rank per system too: two runs pair by question
        results[eval_set.name] = {**summarise(ranks), "ranks": ranks}
        print(table({eval_set.name: results[eval_set.name]}).splitlines()[-1], flush=True)
    text = table(results)
    print(text)
    out = Path(args.out)
    out.write_text(
        f"# Learned ranker vs rank fusion vs BM25 ({args.embedder} embedder,"
        f" {time.strftime('%Y-%m-%d')})\n\n"
        "95% bootstrap intervals; Δ is the learned order's paired difference, * when its"
        " interval excludes 0.\n\n" + text + "\n"
    )
    out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
