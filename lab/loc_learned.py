"""Locate's weights learned instead of set by hand: measured, not kept (docs/retrieval.md).

Trains on the release-note set (`lab.fix_notes`: reports nobody here wrote, mined from
the registries) and scores the SWE-bench reports (`lab.loc`), both indexed with the local
model. For each report, locate's evidence of its top 40 files and every function of its top 10
files (with the exact cosine of each function's chunks to the report's opening) is read once;
a listwise logistic model (softmax over a report's candidates, L2) is fitted on the release
notes, and its order is compared with locate's on the SWE-bench reports, paired, with 95%
bootstrap intervals:

- files: the evidence locate adds up (prose, meaning, frames, quoted paths, named definitions,
  auxiliary role), each as a feature, against locate's hand-set weights (file Acc@5);
- functions: their file's score and rank, BM25 and meaning against the best of the report and
  of their file, named evidence, size, kind and name shape (function Acc@10).

    python -m lab.loc_learned        # results/loc_learned.md
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np

from benchmarks.intervals import interval

RESULTS = Path(__file__).parent / "results"
FILE_FEATURES = ("text", "meaning", "frame", "path", "symbols", "aux", "aux text", "aux meaning")
FUNCTION_FEATURES = (
    "file score", "file rank", "named", "text", "text in file", "meaning", "cosine",
    "cosine in file", "lines", "method", "private", "dunder", "name in report",
    "name parts in report", "any evidence",
)  # fmt: skip
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def collect(url: str, instances: list, embed_query, model: str) -> list[dict]:
    """Per report: its gold, locate's top 40 files with their evidence, and every function of
    its top 10 files with theirs."""
    import retrieval.locate as locate_module
    from core.database import connect
    from indexing.parsing.grammars import FUNCTION_KINDS
    from lab.loc import _snapshot_id
    from lab.loc_gold import resolve_gold
    from lab.loc_metrics import FoundFunction, _hits
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    states: dict = {}
    ranked = locate_module._rank

    def keep_states(files, weights, *rest):  # the evidence behind the scores
        states["files"] = files
        return ranked(files, weights, *rest)

    locate_module._rank = keep_states
    conn = connect(url)
    principal = ensure_operator(conn)
    conn.commit()
    out = []
    try:
        for inst in instances:
            snapshot = _snapshot_id(conn, inst.project, inst.commit)
            if snapshot is None or resolve_gold(conn, snapshot, inst):
                conn.rollback()
                continue
            scope = resolve_scope(conn, principal, [inst.project], inst.commit)
            report = locate_module.locate(
                conn, scope, inst.issue, limit_files=40, embed_query=embed_query
            )
            opening = embed_query(model, inst.issue[: locate_module.REPORT_OPENING])
            top = report.files[:10]
            rows = conn.execute(
                "SELECT c.file_version_id, c.qualified_name, c.symbol_kind, s.start_line,"
                " s.end_line, max(1 - (e.embedding <=> %(v)s::halfvec)) AS cosine"
                " FROM code_chunks c JOIN code_symbols s ON s.id = c.symbol_id"
                " LEFT JOIN chunk_embeddings e ON e.content_hash = c.content_hash"
                " AND e.embedding_model = %(m)s"
                " WHERE c.file_version_id = ANY(%(f)s) AND c.symbol_kind = ANY(%(k)s)"
                " GROUP BY 1, 2, 3, 4, 5",
                {
                    "v": [float(x) for x in opening],
                    "m": model,
                    "f": [f.file_version_id for f in top],
                    "k": sorted(FUNCTION_KINDS),
                },
            ).fetchall()
            conn.commit()
            files, functions = [], []
            for rank, f in enumerate(report.files):
                s = states["files"].get((f.repository, f.path, f.source))
                files.append(
                    {
                        "path": f.path,
                        "score": f.score,
                        "aux": f.role != "code" and not (s and (s.frame or s.path_named)),
                        "text": sorted(s.text, reverse=True) if s else [],
                        "meaning": sorted(s.meaning, reverse=True) if s else [],
                        "frame": s.frame if s else 0.0,
                        "path_named": s.path_named if s else 0.0,
                        "symbols": s.symbols if s else 0.0,
                    }
                )
                if rank >= 10:
                    continue
                units = s.units if s else {}
                for r in (r for r in rows if r["file_version_id"] == f.file_version_id):
                    u = units.get(r["qualified_name"])
                    found = FoundFunction(
                        f.path, r["qualified_name"], r["start_line"], r["end_line"]
                    )
                    functions.append(
                        {
                            "path": f.path,
                            "file_rank": rank,
                            "file_score": f.score,
                            "name": r["qualified_name"],
                            "start": r["start_line"],
                            "lines": r["end_line"] - r["start_line"] + 1,
                            "cosine": r["cosine"] or 0.0,
                            "named": u.named if u else 0.0,
                            "text": u.text if u else 0.0,
                            "meaning": u.meaning if u else 0.0,
                            "gold": [
                                i for i, g in enumerate(inst.gold_functions) if _hits(found, g)
                            ],
                        }
                    )
            out.append(
                {
                    "issue": inst.issue,
                    "gold_files": list(inst.gold_files),
                    "gold_functions": len(inst.gold_functions),
                    "files": files,
                    "functions": functions,
                }
            )
    finally:
        locate_module._rank = ranked
        conn.close()
    return out


def _decayed(scores: list[float]) -> float:
    return sum(s * 0.5**i for i, s in enumerate(scores))


def file_features(report: dict) -> np.ndarray:
    files = report["files"]
    text = [_decayed(f["text"]) for f in files]
    meaning = [_decayed(f["meaning"]) for f in files]
    top_text, top_meaning = max(text, default=0) or 1, max(meaning, default=0) or 1
    rows = []
    for f, t, m in zip(files, text, meaning, strict=True):
        aux = float(f["aux"])
        t, m = t / top_text, m / top_meaning
        rows.append(
            [t, m, f["frame"], f["path_named"], math.log1p(f["symbols"]), aux, aux * t, aux * m]
        )
    return np.array(rows, dtype=float).reshape(-1, len(FILE_FEATURES))


def _name_parts(name: str) -> list[str]:
    return [p.lower() for p in re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)]


def function_features(report: dict) -> np.ndarray:
    functions = report["functions"]
    words = {w.lower() for w in WORD.findall(report["issue"])}
    parts = {p for w in words for p in _name_parts(w)}
    top_file = max((f["file_score"] for f in functions), default=0) or 1
    top_text = max((f["text"] for f in functions), default=0) or 1
    top_cosine = max((f["cosine"] for f in functions), default=0)
    file_text: dict[str, float] = {}
    file_cosine: dict[str, float] = {}
    for f in functions:
        file_text[f["path"]] = max(file_text.get(f["path"], 0.0), f["text"])
        file_cosine[f["path"]] = max(file_cosine.get(f["path"], -1.0), f["cosine"])
    rows = []
    for f in functions:
        short = f["name"].rsplit(".", 1)[-1]
        own = _name_parts(short)
        rows.append(
            [
                f["file_score"] / top_file,
                math.log1p(f["file_rank"]),
                f["named"],
                f["text"] / top_text,
                f["text"] / (file_text[f["path"]] or 1),
                f["meaning"],
                f["cosine"] - top_cosine,
                f["cosine"] - file_cosine[f["path"]],
                math.log(f["lines"]),
                float("." in f["name"]),
                float(short.startswith("_") and not short.startswith("__")),
                float(short.startswith("__")),
                float(len(short) > 3 and short.lower() in words),
                sum(p in parts for p in own) / len(own) if own else 0.0,
                float(bool(f["named"] or f["text"] or f["meaning"])),
            ]
        )
    return np.array(rows, dtype=float).reshape(-1, len(FUNCTION_FEATURES))


def fit(lists: list[tuple[np.ndarray, np.ndarray]], l2: float) -> np.ndarray:
    """Weights of a listwise logistic model: per list, softmax over its candidates against
    the gold's share (features standardised over all candidates, the scale folded back in)."""
    stacked = np.vstack([x for x, _ in lists])
    mean, sd = stacked.mean(axis=0), stacked.std(axis=0) + 1e-9
    scaled = [((x - mean) / sd, y / y.sum()) for x, y in lists]

    def loss(w: np.ndarray, derivatives: bool = True):
        total, grad = float(l2 * (w @ w) / 2), l2 * w
        hessian = l2 * np.eye(len(w))
        for x, target in scaled:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            total -= float(target @ np.log(p + 1e-12))
            if derivatives:
                grad = grad - x.T @ (target - p)
                # x' (diag(p) - p p') x without the n-by-n matrix: long lists stay cheap
                mean = x.T @ p
                hessian = hessian + x.T @ (p[:, None] * x) - np.outer(mean, mean)
        return total, grad, hessian

    # The loss is strictly convex (L2): damped Newton steps reach the one minimum that
    # scipy's L-BFGS-B found before, in numpy alone (scipy left the test install, issue 48).
    w = np.zeros(stacked.shape[1])
    for _ in range(100):
        value, grad, hessian = loss(w)
        if np.abs(grad).max() < 1e-8:
            break
        step = np.linalg.solve(hessian, grad)
        size = 1.0
        while (
            loss(w - size * step, derivatives=False)[0] > value - 1e-4 * size * (grad @ step)
            and size > 1e-10
        ):
            size /= 2
        w = w - size * step
    return w / sd


def file_hits(report: dict, scores: np.ndarray, k: int = 5) -> float:
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], report["files"][i]["path"]))
    top = {report["files"][i]["path"] for i in order[:k]}
    return float(set(report["gold_files"]) <= top)


def function_hits(report: dict, scores: np.ndarray, k: int = 10) -> float:
    functions = report["functions"]
    order = sorted(
        range(len(scores)),
        key=lambda i: (-scores[i], functions[i]["file_rank"], functions[i]["start"]),
    )
    found = {g for i in order[:k] for g in functions[i]["gold"]}
    return float(len(found) == report["gold_functions"])


def shipped_file_scores(report: dict) -> np.ndarray:
    """Locate's own file scores (its hand-set weights)."""
    return np.array([f["score"] for f in report["files"]])


def shipped_function_scores(report: dict) -> np.ndarray:
    """`LocateReport.units()`: the file's score times the function's share of its file's best
    (named + BM25 against the report's best + meaning); functions without evidence last."""
    functions = report["functions"]
    top_text = max((f["text"] for f in functions), default=0) or 1
    own = [f["named"] + f["text"] / top_text + f["meaning"] for f in functions]
    best: dict[str, float] = {}
    for f, u in zip(functions, own, strict=True):
        best[f["path"]] = max(best.get(f["path"], 0.0), u)
    return np.array(
        [
            f["file_score"] * u / (best[f["path"]] or 1) if u else -1.0
            for f, u in zip(functions, own, strict=True)
        ]
    )


def compare(train: list[dict], test: list[dict], l2: float) -> list[str]:
    """The learned orders against locate's, on the test reports (paired)."""
    lines = []
    for what, features, hits, shipped, candidates in (
        ("file Acc@5", file_features, file_hits, shipped_file_scores, "files"),
        ("function Acc@10", function_features, function_hits, shipped_function_scores, "functions"),
    ):
        lists = []
        for r in train:
            y = np.array([_is_gold(r, c, candidates) for c in r[candidates]], dtype=float)
            if r[candidates] and y.sum():
                lists.append((features(r), y))
        w = fit(lists, l2)
        usable = [r for r in test if r[candidates]]
        learned = [hits(r, features(r) @ w) for r in usable]
        base = [hits(r, shipped(r)) for r in usable]
        diff = [a - b for a, b in zip(learned, base, strict=True)]
        mean, lo, hi = interval(diff)
        up, down = sum(d > 0 for d in diff), sum(d < 0 for d in diff)
        names = FILE_FEATURES if candidates == "files" else FUNCTION_FEATURES
        weights = ", ".join(f"{n} {x:+.2f}" for n, x in zip(names, w, strict=True))
        lines.append(
            f"| {what} | {len(lists)} | {np.mean(base):.3f} | {np.mean(learned):.3f} |"
            f" {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] | {up} / {down} | {weights} |"
        )
    return lines


def _is_gold(report: dict, candidate: dict, kind: str) -> bool:
    return candidate["path"] in report["gold_files"] if kind == "files" else bool(candidate["gold"])


def main() -> int:
    import lab.fix_notes as fix_notes
    from benchmarks import embedder as embedders
    from benchmarks.workspace import database, prepare_environment
    from lab.loc import query_embedder
    from lab.loc_gold import load_instances
    from lab.loc_index import database_name
    from lab.machine import summary as machine_summary

    prepare_environment()
    embedder = embedders.make("local")
    embed_query = query_embedder(embedder)
    releases = [i for p in fix_notes.LAYOUTS for i in fix_notes.project_instances(p)[0]]
    print(f"[learned] release notes: {len(releases)} reports", file=sys.stderr, flush=True)
    train = collect(
        database("bench_fixes_local", fresh=False), releases, embed_query, embedder.model_name
    )
    print(f"[learned] SWE-bench: {len(load_instances())} reports", file=sys.stderr, flush=True)
    test = collect(
        database(database_name("local"), fresh=False),
        load_instances(),
        embed_query,
        embedder.model_name,
    )
    lines = [
        "# Locate's weights learned on the release-note set, scored on SWE-bench reports",
        "",
        f"`python -m lab.loc_learned` on {machine_summary()}; trained on {len(train)}"
        f" release-note reports, scored on {len(test)} SWE-bench reports (local model). Δ is"
        " learned − locate as shipped, paired, 95% bootstrap interval.",
        "",
    ]
    for l2 in (1.0, 10.0):
        lines += [
            f"## L2 {l2:g}",
            "",
            "| order | lists trained on | locate | learned | Δ | reports up / down | weights |",
            "|---|---|---|---|---|---|---|",
            *compare(train, test, l2),
            "",
        ]
    text = "\n".join(lines)
    (RESULTS / "loc_learned.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
