"""Train the learned order of `locate` (retrieval/locate_ranker.py) on mined fixes.

    python -m lab.ranker.locate_train --languages go,rust --max-repos 5 --max-pairs 10
    python -m lab.ranker.locate_train --ship     # write retrieval/locate_ranker_model.json
    python -m lab.ranker.locate_train --max-repos 6 --dev-repos 1 --max-pairs 30 --collect-only
    python -m lab.ranker.locate_train --from-cache --out lab/results/locate_ranker_v2.json
    python -m lab.ranker.locate_train --weights text_depth=300 --cache <folder> ...
    python -m lab.ranker.locate_train --mode hybrid --cache <folder> --collect-only ...
    python -m lab.ranker.locate_train --from-cache --cache <lexical> --also-cache <hybrid>

The train and dev splits of the mined (fix message -> changed functions) pairs
(lab/loc_fixes.py) are indexed at their parent commits; every pair is located once with a
recording ranker (`Recorder`: locate's own order, its features read on the way), so the rows are
exactly what `locate` computes when it serves. A listwise logistic model (softmax over one
report's candidates, L2; `lab.loc_learned.fit`) is fitted on the TRAIN split for the file order
and for the function order, its L2 chosen on the DEV split; boosted trees (LightGBM LambdaRank
starting from the linear score, stopped early on DEV) are added on top when they beat the linear
order on DEV outside its interval (`--linear`: never), and each part is kept only when it beats
locate's own order on the dev split. Collection goes in rounds (each language's next dev and
train repository) and its rows are cached per split and language (`--cache`), so that a run
stopped at any time covers every language and the next one collects only new pairs; `--from-
cache` fits on every row collected so far. `--weights` collects the rows with other locate
weights (the candidates change with `text_depth`; one cache per setting). The test split is
never read here: `python -m lab.loc_fixes --ranker <model>` measures a model on it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pickle
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lab.loc_fixes import FixPair, comma_separated, gold_absent, languages_in, load_pairs
from lab.loc_metrics import FoundFunction, _hits
from retrieval.locate_ranker import (
    FILE_FEATURES,
    FUNCTION_FEATURES,
    SHIPPED_LOCATE_MODEL,
    FunctionCandidate,
    LearnedOrder,
    LocateRanker,
    ReportWords,
    as_model,
    file_features,
    function_features,
)
from retrieval.trees import Trees, flat_trees

L2_GRID = (0.1, 1.0, 10.0, 100.0)
# boosted trees on top of the chosen linear score (LightGBM LambdaRank from it as the initial
# score): small trees, many candidates per leaf, stopped early on the dev split
TREE_PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "learning_rate": 0.05,
    "num_leaves": 7,
    "min_data_in_leaf": 40,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "seed": 20261207,
    "deterministic": True,
    "num_threads": 2,
    "verbosity": -1,
}
TREE_ROUNDS = 400
TREE_EVAL_AT = {"files": 5, "functions": 10}
# 2: the role features read the role stored from the file's content, not its path's alone;
# 3: boosted trees on top of the linear score
MODEL_VERSION = 3


@dataclass
class PairRows:
    """One pair's candidates as locate ordered them, with their features and labels."""

    id: str
    language: str
    file_x: np.ndarray
    file_paths: list[str]
    gold_files: list[str]
    function_x: np.ndarray
    function_gold: list[list[int]]  # per candidate: the gold functions it hits
    function_keys: list[tuple[int, int]]  # (file rank, start line): locate's tie order
    gold_functions: int
    file_labels: np.ndarray = field(init=False)
    function_labels: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.file_labels = np.asarray([p in self.gold_files for p in self.file_paths], float)
        self.function_labels = np.asarray([bool(g) for g in self.function_gold], float)


class Recorder(LocateRanker):
    """Locate's own order, with the features of its candidates kept (the last call's)."""

    def __init__(self) -> None:
        super().__init__()
        self.file_x = np.zeros((0, len(FILE_FEATURES)))
        self.file_paths: list[str] = []
        self.candidates: list[FunctionCandidate] = []
        self.function_x = np.zeros((0, len(FUNCTION_FEATURES)))

    def order_files(self, located, states, words: ReportWords):
        from retrieval.locate_ranker import FILE_CANDIDATES

        head = located[:FILE_CANDIDATES]
        self.file_x = file_features(head, states[: len(head)], words)
        self.file_paths = [f.path for f in head]
        return located

    def order_functions(self, candidates, words: ReportWords):
        self.candidates = list(candidates)
        self.function_x = function_features(candidates, words)
        return None


def collect(
    url: str, pairs: list[FixPair], *, embed_query=None, weights=None, log=sys.stderr
) -> list[PairRows]:
    """The rows of every pair whose base commit is indexed and whose gold is there, located
    with `weights` (None: locate's own)."""
    from core.database import connect
    from lab.loc import _snapshot_id
    from retrieval.locate import WEIGHTS, locate
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    conn = connect(url)
    principal = ensure_operator(conn)
    conn.commit()
    out: list[PairRows] = []
    try:
        for pair in pairs:
            snapshot = _snapshot_id(conn, pair.repo, pair.parent)
            if snapshot is None or gold_absent(conn, snapshot, pair):
                conn.rollback()
                continue
            scope = resolve_scope(conn, principal, [pair.repo], pair.parent)
            recorder = Recorder()
            report = locate(
                conn,
                scope,
                pair.query,
                weights=weights or WEIGHTS,
                embed_query=embed_query,
                ranker=recorder,
            )
            conn.commit()
            paths = [f.path for f in report.files]
            gold = [
                [
                    i
                    for i, g in enumerate(pair.functions)
                    if _hits(
                        FoundFunction(paths[c.file_rank], c.symbol, c.start_line, c.end_line), g
                    )
                ]
                for c in recorder.candidates
            ]
            out.append(
                PairRows(
                    pair.id,
                    pair.language,
                    recorder.file_x,
                    recorder.file_paths,
                    list(pair.files),
                    recorder.function_x,
                    gold,
                    [(c.file_rank, c.start_line) for c in recorder.candidates],
                    len(pair.functions),
                )
            )
    finally:
        conn.close()
    print(f"[locate-train] {len(out)} of {len(pairs)} pairs collected", file=log, flush=True)
    return out


def file_hits(rows: PairRows, scores: np.ndarray | None, k: int = 5) -> float:
    """File Acc@k of the pair's candidates in the order of `scores` (None: locate's)."""
    order = _order(len(rows.file_paths), scores)
    top = {rows.file_paths[i] for i in order[:k]}
    return float(set(rows.gold_files) <= top)


def function_hits(rows: PairRows, scores: np.ndarray | None, k: int = 10) -> float:
    """Function Acc@k in the order of `scores` (None: locate's, `LocateReport.units`)."""
    if scores is None:
        # locate's own order: its unit score times its file's, as `units()` ranks them
        x = rows.function_x
        scores = (
            x[:, FUNCTION_FEATURES.index("file_score")]
            * x[:, FUNCTION_FEATURES.index("unit_score")]
        )
    order = sorted(
        range(len(rows.function_gold)), key=lambda i: (-scores[i], *rows.function_keys[i])
    )
    found = {g for i in order[:k] for g in rows.function_gold[i]}
    return float(len(found) == rows.gold_functions)


def _order(n: int, scores: np.ndarray | None) -> list[int]:
    if scores is None:
        return list(range(n))
    return sorted(range(n), key=lambda i: (-scores[i], i))


def fit_order(rows: list[PairRows], part: str, l2: float) -> LearnedOrder | None:
    """The listwise model of `part` ("files" or "functions") on the pairs with a gold
    candidate (None when there is none)."""
    from lab.loc_learned import fit

    lists = _lists(rows, part)
    if not lists:
        return None
    features = FILE_FEATURES if part == "files" else FUNCTION_FEATURES
    return LearnedOrder(features, fit(lists, l2))


def _lists(rows: list[PairRows], part: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The candidates and labels of `part` of the pairs with a gold candidate."""
    lists = []
    for r in rows:
        x, y = (r.file_x, r.file_labels) if part == "files" else (r.function_x, r.function_labels)
        if len(y) and y.sum():
            lists.append((x, y))
    return lists


def fit_trees(
    train: list[PairRows], dev: list[PairRows], part: str, base: LearnedOrder
) -> LearnedOrder | None:
    """Boosted trees fitted on top of `base`'s linear score (its scores as LightGBM's initial
    scores), stopped early on the dev split; None when there is nothing to fit on."""
    import lightgbm as lgb

    sets = []
    for rows in (train, dev):
        lists = _lists(rows, part)
        if not lists:
            return None
        x = np.vstack([x for x, _ in lists])
        sets.append(
            lgb.Dataset(
                x,
                label=np.concatenate([y for _, y in lists]).astype(int),
                group=[len(y) for _, y in lists],
                init_score=base.score(x),
                feature_name=list(base.features),
                free_raw_data=False,
            )
        )
    params = {**TREE_PARAMS, "eval_at": [TREE_EVAL_AT[part]]}
    booster = lgb.train(
        params,
        sets[0],
        num_boost_round=TREE_ROUNDS,
        valid_sets=[sets[1]],
        callbacks=[lgb.early_stopping(40, verbose=False)],
    )
    rounds = booster.best_iteration or TREE_ROUNDS
    dump = booster.dump_model(num_iteration=rounds)
    return LearnedOrder(base.features, base.weights, Trees(flat_trees(dump)))


def accuracy(rows: list[PairRows], part: str, order: LearnedOrder | None) -> list[float]:
    """Per pair: file Acc@5 or function Acc@10 of `order` (None: locate's own)."""
    out = []
    for r in rows:
        if part == "files":
            out.append(file_hits(r, order.score(r.file_x) if order and len(r.file_x) else None))
        else:
            x = r.function_x
            out.append(function_hits(r, order.score(x) if order and len(x) else None))
    return out


def choose(
    train: list[PairRows], dev: list[PairRows], log=sys.stderr, *, trees: bool = True
) -> tuple[dict, dict]:
    """Per part the L2 with the best dev accuracy, boosted trees on top of it when they beat
    it on dev outside the interval (`trees`), and the part kept only when it beats locate's own
    order on dev; the model parts and a record of every candidate's figures."""
    from benchmarks.intervals import paired

    chosen: dict = {}
    record: dict = {}
    for part in ("files", "functions"):
        base = accuracy(dev, part, None)
        trials = []
        for l2 in L2_GRID:
            order = fit_order(train, part, l2)
            if order is None:
                continue
            dev_acc = accuracy(dev, part, order)
            trials.append((float(np.mean(dev_acc)), l2, order, dev_acc))
        record[part] = {
            "dev_locate": float(np.mean(base)) if base else None,
            "dev_learned": {str(t[1]): t[0] for t in trials},
        }
        if not trials or not base:
            chosen[part] = None
            continue
        best = max(trials, key=lambda t: t[:2])
        record[part]["chosen_l2"] = best[1]
        dev_acc, order = best[3], best[2]
        if trees and (boosted := fit_trees(train, dev, part, order)) is not None:
            boosted_acc = accuracy(dev, part, boosted)
            record[part]["dev_trees"] = float(np.mean(boosted_acc))
            record[part]["trees"] = len(boosted.trees or ())
            record[part]["dev_trees_delta"] = gain = paired(boosted_acc, dev_acc)
            # the trees stay when they beat the linear order on dev outside the interval: a
            # gain within it was noise on the mined test split (lab/LOG.md)
            if gain[1] > 0:
                dev_acc, order = boosted_acc, boosted
        record[part]["trees_kept"] = order.trees is not None
        diff = paired(dev_acc, base)
        record[part]["dev_delta"] = diff
        chosen[part] = order if diff[0] > 0 else None
        record[part]["kept"] = chosen[part] is not None
        print(f"[locate-train] {part}: {record[part]}", file=log, flush=True)
    return chosen, record


class _RowsUnpickler(pickle.Unpickler):
    """Reads a rows cache whichever module wrote it: run as `python -m`, this module is
    `__main__`, and its rows were pickled as `__main__.PairRows`."""

    def find_class(self, module: str, name: str) -> Any:
        if name == PairRows.__name__ and module in ("__main__", __name__):
            return PairRows
        return super().find_class(module, name)


def _unpickled(path: Path) -> dict:
    with path.open("rb") as f:
        return _RowsUnpickler(f).load()


def _rows(
    url: str,
    pairs: list[FixPair],
    cache: Path,
    refresh: bool,
    weights=None,
    *,
    mode: str = "lexical",
    embed_query=None,
) -> list[PairRows]:
    """The pairs' rows, read from `cache` where it holds them (collected with the same
    features, locate weights and mode), the others collected and added to it: a run with more
    repositories or pairs collects only what is new."""
    from retrieval.locate import WEIGHTS

    features = (FILE_FEATURES, FUNCTION_FEATURES)
    setting = asdict(weights or WEIGHTS)
    known: dict[tuple[str, str], PairRows] = {}
    if cache.is_file() and not refresh:
        cached = _unpickled(cache)
        same = cached.get("features") == features
        # a cache without recorded weights predates `text_depth`: collected again
        same = same and cached.get("weights") == setting
        same = same and cached.get("mode", "lexical") == mode
        if same and isinstance(cached.get("rows"), dict):
            known = cached["rows"]
    missing = [p for p in pairs if (p.id, p.parent) not in known]
    if missing:
        parents = {p.id: p.parent for p in missing}
        collected = collect(url, missing, weights=weights, embed_query=embed_query)
        known.update({(r.id, parents[r.id]): r for r in collected})
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(
            pickle.dumps({"features": features, "weights": setting, "mode": mode, "rows": known})
        )
    return [known[(p.id, p.parent)] for p in pairs if (p.id, p.parent) in known]


def _collect_rounds(args, data: Path, languages: list[str], cache: Path) -> dict:
    """Index and collect in rounds: each language's next repository of each split (dev while it
    has any, then train), so that a run stopped at any time has every language alike."""
    from benchmarks import embedder as embedders
    from benchmarks.workspace import database
    from lab.loc import query_embedder
    from lab.loc_fixes import MODES, ensure_indexed

    url = database(f"bench_loc_fixes_{args.mode}", fresh=False)
    provider = MODES[args.mode]
    embedder = embedders.make(provider) if provider else None
    embed_query = query_embedder(embedder) if embedder else None
    by_repo: dict[tuple[str, str], list[list[FixPair]]] = {}
    for split, repos in (("dev", args.dev_repos), ("train", args.max_repos)):
        for language in languages:
            # the smallest repositories first: the commits are indexed on a shared machine
            pairs = load_pairs(
                [language],
                split,
                max_repos=repos,
                max_pairs=args.max_pairs,
                data=data,
                smallest=True,
                recent=True,
                repos=args.repos,
            )
            grouped: dict[str, list[FixPair]] = {}
            for pair in pairs:
                grouped.setdefault(pair.repo, []).append(pair)
            by_repo[(split, language)] = list(grouped.values())
    splits: dict[str, list[PairRows]] = {"train": [], "dev": []}
    for round_ in range(max(args.dev_repos, args.max_repos)):
        for language in languages:
            for split in ("dev", "train"):
                groups = by_repo[(split, language)]
                if round_ >= len(groups):
                    continue
                pairs = groups[round_]
                failed = ensure_indexed(url, pairs, embedder=embedder, max_commits=args.max_commits)
                rows = _rows(
                    url,
                    pairs,
                    cache / f"{split}-{language}.pkl",
                    args.refresh,
                    args.weights,
                    mode=args.mode,
                    embed_query=embed_query,
                )
                print(
                    f"[locate-train] {time.strftime('%H:%M:%S')} round {round_} {split}"
                    f" {language} {pairs[0].repo}: {len(rows)} of {len(pairs)} pairs;"
                    f" {dict(failed)}",
                    file=sys.stderr,
                    flush=True,
                )
                splits[split] += rows
    return splits


def _cached(
    caches: list[Path], split: str, languages: list[str], weights=None, modes=None
) -> list[PairRows]:
    """Every row collected so far of the split's languages in the `caches` (`--from-cache`),
    collected with `weights` (None: locate's own); `modes` gathers the modes they were
    collected in (lexical, hybrid)."""
    from retrieval.locate import WEIGHTS

    setting = asdict(weights or WEIGHTS)
    rows: list[PairRows] = []
    for path in (c / f"{split}-{language}.pkl" for c in caches for language in languages):
        if not path.is_file():
            continue
        cached = _unpickled(path)
        if modes is not None:
            modes.add(cached.get("mode", "lexical"))
        if cached.get("features") != (FILE_FEATURES, FUNCTION_FEATURES):
            raise SystemExit(f"{path} holds rows of other features: collect again (--refresh)")
        if cached.get("weights") != setting:
            recorded = cached.get("weights") or "not recorded"
            raise SystemExit(
                f"{path} holds rows located with other weights ({recorded}):"
                " pass the same --weights, or another --cache"
            )
        rows += sorted(cached["rows"].values(), key=lambda r: r.id)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Index the train and dev pairs' base commits, collect, fit, choose on dev, write."""
    from benchmarks.workspace import WORK, prepare_environment
    from lab.loc_fixes import DATA, MAX_COMMITS

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--languages", default="", help="comma-separated (default: every folder)")
    p.add_argument("--max-repos", type=int, default=5)
    p.add_argument("--max-pairs", type=int, default=10)
    p.add_argument("--dev-repos", type=int, default=3)
    p.add_argument(
        "--repos",
        type=comma_separated,
        default=[],
        help="comma-separated: only these repositories (owner/name)",
    )
    p.add_argument("--max-commits", type=int, default=MAX_COMMITS)
    p.add_argument("--data", default=str(DATA))
    p.add_argument("--out", default=str(WORK / "locate_ranker.json"))
    p.add_argument("--ship", action="store_true", help=f"write {SHIPPED_LOCATE_MODEL.name}")
    p.add_argument("--refresh", action="store_true", help="recollect the cached rows")
    p.add_argument(
        "--cache",
        default=str(WORK / "locate_ranker"),
        help="the collected rows, per split and language",
    )
    p.add_argument("--collect-only", action="store_true", help="index and collect, fit nothing")
    p.add_argument("--linear", action="store_true", help="the linear order alone, no trees")
    p.add_argument(
        "--weights",
        default="",
        help="locate weights the rows are collected with, e.g. text_depth=300 (a cache of its own)",
    )
    p.add_argument(
        "--from-cache",
        action="store_true",
        help="fit on every row collected so far (--cache and --also-cache), indexing nothing",
    )
    p.add_argument(
        "--also-cache",
        action="append",
        default=[],
        metavar="FOLDER",
        help="with --from-cache: the rows of another collection too (say, of the other --mode)",
    )
    p.add_argument(
        "--mode",
        default="lexical",
        choices=("lexical", "hybrid"),
        help="collect on an index without vectors, or with the local model's (its own database;"
        " the meaning features are 0 in lexical rows)",
    )
    args = p.parse_args(argv)
    from lab.loc import parse_weights
    from retrieval.locate import WEIGHTS

    args.weights = parse_weights(args.weights, WEIGHTS)
    prepare_environment()
    data = Path(args.data)
    languages = languages_in(args.languages, data)
    cache = Path(args.cache)
    modes: set[str] = set()
    if args.from_cache:
        caches = [cache, *(Path(c) for c in args.also_cache)]
        splits = {
            split: _cached(caches, split, languages, args.weights, modes)
            for split in ("train", "dev")
        }
    else:
        splits = _collect_rounds(args, data, languages, cache)
        modes.add(args.mode)
    if args.collect_only:
        return 0
    chosen, record = choose(splits["train"], splits["dev"], trees=not args.linear)
    meta = {
        "version": MODEL_VERSION,
        "trained": datetime.date.today().isoformat(),
        "languages": languages,
        "train_pairs": len(splits["train"]),
        "train_repositories": len({r.id.split("@")[0] for r in splits["train"]}),
        "dev_pairs": len(splits["dev"]),
        "mode": "+".join(sorted(modes)),
        "locate_weights": asdict(args.weights),
        "selection": record,
    }
    model = as_model(chosen["files"], chosen["functions"], meta)
    out = SHIPPED_LOCATE_MODEL if args.ship else Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model, indent=1, default=float) + "\n")
    print(json.dumps(model, indent=1, default=float))
    print(f"[locate-train] wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
