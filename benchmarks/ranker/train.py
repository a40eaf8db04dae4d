"""Train the learned ranker of hybrid search (`make train-ranker`) and ship it as JSON.

    python -m benchmarks.ranker.train --sets mined-train --embedder local

Rebuilt from the registries alone: the mined query sets (benchmarks/mined/) are fetched and
indexed, every training query is searched to get its fused hits and their features
(`benchmarks.ranker.collect`), and a LightGBM LambdaRank model is fitted on them. It is trained
only on mined queries, never on the eval sets; a tenth of the training queries (by query, fixed
seed) stops the boosting early. The model is written to `retrieval/models/ranker.json` with its
training sets, counts, parameters and feature importances.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pickle
import sys
from pathlib import Path

import numpy as np

from benchmarks import embedder as embedders
from benchmarks.codeatlas_search import CodeatlasSearch
from benchmarks.eval_sets import select
from benchmarks.quality import ensure_index
from benchmarks.ranker.collect import QueryRows, collect
from benchmarks.workspace import WORK, prepare_environment

MODEL_PATH = Path(__file__).resolve().parents[2] / "retrieval" / "models" / "ranker.json"
SEED = 20261203
# LambdaRank over the fused top ~100 hits of a query; small trees, strong regularisation: the
# features are few and the queries' wording differs from the mined docstrings'
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [1, 5, 10],
    "label_gain": [0.0, 1.0, 3.0],
    "lambdarank_truncation_level": 20,
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "seed": SEED,
    "deterministic": True,
    "num_threads": 2,
    "verbosity": -1,
}
MAX_ROUNDS = 600
NAME_QUERY_EVERY = 5
EARLY_STOP = 50


def rows_of(set_name: str, provider: str, *, refresh: bool) -> list[QueryRows]:
    """A set's training rows, cached per index commit and feature list."""
    from retrieval.ranker import FEATURES

    eval_set = select(set_name)[0]
    embedder = embedders.make(provider)
    index = ensure_index(eval_set, provider, embedder, fresh=False)
    cache = WORK / "ranker" / f"{set_name}-{provider}-{index['commit'][:12]}.pkl"
    if cache.is_file() and not refresh:
        cached = pickle.loads(cache.read_bytes())
        if cached["features"] == FEATURES:
            return cached["rows"]
    search = CodeatlasSearch(index["url"], [index["repository"]], embedder)
    try:
        rows = collect(eval_set, search, eval_set.queries() + name_queries(eval_set.queries()))
    finally:
        search.close()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps({"features": FEATURES, "rows": rows}))
    return rows


def name_queries(queries: list[dict]) -> list[dict]:
    """Agents also search by name: every `NAME_QUERY_EVERY`th mined query asked again as its
    answer's name (alternately the qualified and the bare one), so that the ranker learns what
    a named definition is worth as well as a described one."""
    asked: list[dict] = []
    for i, q in enumerate(queries[::NAME_QUERY_EVERY]):
        symbol = q["gold"][0].get("symbol")
        if not symbol:
            continue
        name = symbol if i % 2 == 0 else symbol.rsplit(".", 1)[-1]
        asked.append({**q, "id": f"{q['id']}-name", "query": name})
    return asked


def _dataset(rows: list[QueryRows]):
    import lightgbm as lgb

    from retrieval.ranker import FEATURES

    x = np.concatenate([r.features for r in rows])
    y = np.concatenate([r.labels for r in rows])
    return lgb.Dataset(
        x, y, group=[len(r.labels) for r in rows], feature_name=list(FEATURES), free_raw_data=False
    )


def train(rows: list[QueryRows]) -> tuple[object, dict]:
    """Fit LambdaRank on the queries that have a gold hit among their candidates."""
    import lightgbm as lgb

    useful = [r for r in rows if r.labels.max() > 0]
    rng = np.random.default_rng(SEED)
    held = set(rng.choice(len(useful), size=max(1, len(useful) // 10), replace=False).tolist())
    fit = [r for i, r in enumerate(useful) if i not in held]
    stop = [r for i, r in enumerate(useful) if i in held]
    booster = lgb.train(
        PARAMS,
        _dataset(fit),
        num_boost_round=MAX_ROUNDS,
        valid_sets=[_dataset(stop)],
        callbacks=[lgb.early_stopping(EARLY_STOP, verbose=False)],
    )
    stats = {
        "queries": len(rows),
        "queries_with_gold_candidate": len(useful),
        "fit_queries": len(fit),
        "early_stopping_queries": len(stop),
        "rounds": booster.best_iteration,
        "validation_ndcg": {k: round(v, 4) for k, v in booster.best_score["valid_0"].items()},
    }
    return booster, stats


def main(argv: list[str] | None = None) -> int:
    """Collect, train, write the model."""
    from retrieval.ranker import FEATURES, as_model

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default="mined-train", help="sets to train on (never eval sets)")
    p.add_argument("--embedder", default="local", help="the provider the index is built with")
    p.add_argument("--out", default=str(MODEL_PATH), help="where to write the model")
    p.add_argument("--refresh", action="store_true", help="recollect the cached feature rows")
    args = p.parse_args(argv)
    prepare_environment()
    names = [s.name for s in select(args.sets)]
    leaked = [n for n in names if not n.startswith("mined-") or n.endswith("-test")]
    if leaked:
        raise SystemExit(f"the ranker trains on mined training sets only, not {leaked}")
    rows: list[QueryRows] = []
    for name in names:
        rows.extend(rows_of(name, args.embedder, refresh=args.refresh))
    print(f"[ranker] training on {len(rows)} queries of {len(names)} sets", file=sys.stderr)
    booster, stats = train(rows)
    importance = booster.feature_importance(importance_type="gain")  # type: ignore[attr-defined]
    meta = {
        "trained": datetime.date.today().isoformat(),
        "sets": names,
        "embedding_model": embedders.make(args.embedder).model_name,
        "params": PARAMS,
        **stats,
        "gain": {f: round(float(g), 1) for f, g in zip(FEATURES, importance, strict=True)},
    }
    dump = booster.dump_model(num_iteration=booster.best_iteration)  # type: ignore[attr-defined]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(as_model(dump, meta), separators=(",", ":")) + "\n")
    print(json.dumps({k: v for k, v in meta.items() if k != "params"}, indent=1))
    print(f"[ranker] wrote {out} ({out.stat().st_size / 1024:.0f} KiB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
