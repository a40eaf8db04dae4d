"""The learned ranker of long questions trained on fixes: what a fix's message says it changed,
asked as a question at its parent commit, with the functions the fix changed as gold (issue 46).

    python -m lab.ranker.fix_questions --split train --repos a/b,c/d --out model.json
    python -m lab.ranker.fix_questions --split test --measure model.json

The mined pairs (lab/loc_fixes.py) are searched on the hybrid index of their parent commits
(`bench_loc_fixes_hybrid`, the local model's vectors). A question is the message's title and
its body's first paragraph on one line (`question_of`): of at least `MIN_TERMS` terms, where
the shipped short-question model stops, and not read as a pasted report (`is_report`), which
search hands to `locate`. Every question's fused hits are rows of the ranking problem
(`retrieval.search.candidates`, exactly what search computes), labelled as the mined sets'
are (lab/ranker/collect.py); `--out` trains a LambdaRank model on them with the short model's
parameters (lab/ranker/train.py), whose domain starts where the short model's ends.
`--measure` orders the split's questions by a model and by the fused order, paired.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

from lab.loc_fixes import FixPair, gold_absent, selected_pairs
from lab.ranker.collect import QueryRows, label

# a question has at least the terms the short model stops at plus one, and at most these words
MIN_TERMS = 12
MAX_WORDS = 60


def question_of(message: str, min_terms: int = MIN_TERMS) -> str | None:
    """The message's title and its body's first paragraph, on one line and cut at `MAX_WORDS`
    words; None when shorter than `min_terms` terms or read as a pasted report."""
    from core.terms import query_terms
    from retrieval.issue_text import is_report, read_issue

    title, _, body = message.strip().partition("\n")
    paragraph = body.strip().split("\n\n", 1)[0]
    if paragraph.lstrip().startswith(("*", "-", "```", ">")) or read_issue(paragraph).frames:
        paragraph = ""  # a list of changes, a pasted block or a trace: not a sentence
    words = f"{title} {paragraph}".split()[:MAX_WORDS]
    text = " ".join(words)
    if len(query_terms(text)) < min_terms or is_report(text):
        return None
    return text


def collect(url: str, pairs: list[FixPair], embed_query, log=sys.stderr) -> list[QueryRows]:
    """The rows of every pair with a question whose base commit is indexed and holds its gold."""
    from benchmarks.scoring import Result
    from core.database import connect
    from lab.loc import _snapshot_id
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import candidates

    conn = connect(url)
    principal = ensure_operator(conn)
    conn.commit()
    rows: list[QueryRows] = []
    try:
        for pair in pairs:
            question = question_of(pair.query)
            snapshot = _snapshot_id(conn, pair.repo, pair.parent)
            if question is None or snapshot is None or gold_absent(conn, snapshot, pair):
                conn.rollback()
                continue
            scope = resolve_scope(conn, principal, [pair.repo], pair.parent)
            found = candidates(conn, scope, question, embed_query=embed_query)
            conn.commit()
            if not found.hits:
                continue
            golds = [
                {"path": g.path, "start_line": g.start_line, "end_line": g.end_line}
                for g in pair.functions
            ]
            labels = [label(Result(h.path, h.start_line, h.end_line), golds) for h in found.hits]
            rows.append(
                QueryRows(f"fixes-{pair.language}", pair.id, found.features(), np.asarray(labels))
            )
    finally:
        conn.close()
    print(f"[fix-questions] {len(rows)} of {len(pairs)} pairs asked", file=log, flush=True)
    return rows


def measure(rows: list[QueryRows], model) -> dict:
    """R@5 and MRR@10 of the fused order and of `model`'s, paired, over the rows' questions
    (the fused order is the rows' order)."""
    from benchmarks.intervals import found_within, interval, paired, reciprocal_rank
    from retrieval.ranker import FEATURES

    def first(labels: np.ndarray) -> int | None:
        hits = np.flatnonzero(labels[:10] > 0)
        return int(hits[0]) + 1 if len(hits) else None

    fused, learned = [], []
    for r in rows:
        fused.append(first(r.labels))
        terms = int(r.features[0, FEATURES.index("query_terms")])
        if model.applies([model.embedding_model], terms):
            order = np.argsort(-model.predict(r.features), kind="stable")
            learned.append(first(r.labels[order]))
        else:
            learned.append(fused[-1])
    out: dict = {"questions": len(rows)}
    for metric, term in (("R@5", found_within(5)), ("MRR@10", reciprocal_rank)):
        a, b = [term(k) for k in learned], [term(k) for k in fused]
        out[metric] = {"fused": interval(b), "learned": interval(a), "delta": paired(a, b)}
    return out


def main(argv: list[str] | None = None) -> int:
    """Index (hybrid), collect, and train or measure."""
    from benchmarks import embedder as embedders
    from benchmarks.workspace import WORK, database, prepare_environment
    from lab.loc import query_embedder
    from lab.loc_fixes import DATA, ensure_indexed
    from lab.ranker.train import write_model

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--split", default="train", choices=("train", "dev", "test"))
    p.add_argument("--languages", default="", help="comma-separated (default: every folder)")
    p.add_argument("--repos", default="", help="comma-separated: only these repositories")
    p.add_argument("--max-repos", type=int, default=3)
    p.add_argument("--max-pairs", type=int, default=20)
    p.add_argument("--smallest", action="store_true", help="the smallest repositories first")
    p.add_argument("--data", default=str(DATA))
    p.add_argument("--cache", default=str(WORK / "fix_questions"), help="the collected rows")
    p.add_argument("--refresh", action="store_true", help="collect the cached rows again")
    p.add_argument("--out", help="train a model on the rows and write it here")
    p.add_argument("--measure", metavar="MODEL", help="order the rows by this model, paired")
    args = p.parse_args(argv)
    prepare_environment()
    pairs = selected_pairs(args, recent=args.smallest)
    embedder = embedders.make("local")
    url = database("bench_loc_fixes_hybrid", fresh=False)
    ensure_indexed(url, pairs, embedder=embedder)
    from retrieval.ranker import FEATURES

    cache = Path(args.cache) / f"{args.split}.pkl"
    known: dict = {}
    if cache.is_file() and not args.refresh:
        cached = pickle.loads(cache.read_bytes())
        known = cached["rows"] if cached.get("features") == FEATURES else {}
    missing = [q for q in pairs if q.id not in known]
    known.update({r.query_id: r for r in collect(url, missing, query_embedder(embedder))})
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps({"features": FEATURES, "rows": known}))
    rows = [known[q.id] for q in pairs if q.id in known]
    if args.out:
        from retrieval.ranker import shipped_model

        start = (shipped_model().max_query_terms or 0) + 1
        sets = sorted({r.set_name for r in rows})
        write_model(rows, sets, embedder.model_name, Path(args.out), form="fix", min_terms=start)
    if args.measure:
        import json

        from retrieval.ranker import load_model

        print(json.dumps(measure(rows, load_model(args.measure)), indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
