"""Local embedders side by side: plain sentence-transformers vs the int8 CTranslate2 fast path.

Every system embeds the same chunks: the ones codeatlas's parser makes of the eval corpus (what
the pipeline embeds), and separately those of them that fill the 256-token window. Each system
runs in a child process of its own (two runtimes' thread pools in one process slow each other
down: plain sentence-transformers measured ~35% slower next to another runtime), the systems
take turns, twice, and each keeps its faster round. Reports chunks/s (wall and CPU time) and
vector-only retrieval quality on the eval queries with the eval set's scoring rules.

    python -m lab.embedding_bench [--limit N] [--rounds R] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.scoring import Result, load_queries, score_run
from benchmarks.workspace import REPO_ROOT, eval_corpus, prepare_environment
from lab import machine

RESULTS = Path(__file__).resolve().parent / "results" / "embedding.md"
NOTES = Path(__file__).with_name("embedding_notes.md")  # what was tried, kept in the results
METRICS = ("recall@1", "recall@5", "recall@10", "tight@5", "mrr@10", "ndcg@10")
BATCH = 64  # texts per embed_documents call, as the pipeline's embedding step sends them
LONG_TOKENS = 256  # "chunks of 256 tokens": those that fill the plain model's window
LONG_LIMIT = 200
SYSTEMS = {  # name: what it is; ct2 names are local.FAST_NAME suffixes
    "sentence-transformers": "plain sentence-transformers (torch, float32), 256-token window",
    "ct2-int8-raw256": "int8 CTranslate2 on the same text and window: the runtime alone",
    "ct2-int8-lean256": "the default fast path: int8 CTranslate2 reading lean text, 256 tokens",
    "ct2-int8-lean128": "lean text cut to the 128 tokens the model was fine-tuned on",
}
REFERENCE = "sentence-transformers"


def pipeline_chunks(corpus: Path) -> list[dict]:
    """The chunks codeatlas's parser makes of every indexable file of `corpus`."""
    from indexing.parsing.file_rules import skip_reason
    from indexing.parsing.parser import parse_file

    chunks: list[dict] = []
    for file in sorted(corpus.rglob("*")):
        if not file.is_file() or ".git" in file.parts:
            continue
        path = file.relative_to(corpus).as_posix()
        content = file.read_bytes()
        if skip_reason(path, len(content), content):
            continue
        for c in parse_file(path, content).chunks:
            chunks.append(
                {"path": path, "start": c.start_line, "end": c.end_line, "text": c.content}
            )
    return chunks


def _build(name: str):
    """The embedder `codeatlas` itself would build for model `all-MiniLM-L6-v2[:name]`."""
    from dataclasses import replace

    from core.config import load_settings
    from indexing.embedding.factory import make_local_embedder
    from indexing.embedding.local import PACKAGED_MODEL

    model = PACKAGED_MODEL if name == REFERENCE else f"{PACKAGED_MODEL}:{name}"
    return make_local_embedder(
        replace(load_settings(), embedding_provider="local", embedding_model=model)
    )


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(name: str, job: Path, out: Path) -> None:
    """In a fresh process: build `name`, embed every set of `job` and the queries, save."""
    prepare_environment()
    spec = json.loads(job.read_text())
    started = time.perf_counter()
    embedder = _build(name)
    load = time.perf_counter() - started
    embedder.embed_documents(spec["warmup"])  # first-call allocations are not throughput
    saved: dict = {"load_seconds": np.float64(load), "model_name": np.str_(embedder.model_name)}
    for set_name, texts in spec["sets"].items():
        vectors: list[list[float]] = []
        wall, cpu = time.perf_counter(), _cpu_seconds()
        for start in range(0, len(texts), BATCH):
            vectors.extend(embedder.embed_documents(texts[start : start + BATCH]))
        saved[f"{set_name}_wall"] = np.float64(time.perf_counter() - wall)
        saved[f"{set_name}_cpu"] = np.float64(_cpu_seconds() - cpu)
        saved[f"{set_name}_vectors"] = np.asarray(vectors, dtype=np.float32)
    saved["queries"] = np.asarray([embedder.embed_query(q) for q in spec["queries"]])
    np.savez(out, **saved)


def _run_child(name: str, job: Path, folder: Path, round_: int) -> dict:
    out = folder / f"{name}-{round_}.npz"
    print(f"[embedding_bench] round {round_ + 1}: {name}", file=sys.stderr, flush=True)
    subprocess.run(
        [sys.executable, "-m", "lab.embedding_bench", "--child", name, str(job), str(out)],
        check=True,
        cwd=REPO_ROOT,
    )
    with np.load(out) as data:
        return {key: data[key] for key in data.files}


def _rank(vectors: np.ndarray, query: np.ndarray, chunks: list[dict]) -> list[Result]:
    top = np.argsort(-(vectors @ query), kind="stable")[:10]
    return [Result(chunks[i]["path"], chunks[i]["start"], chunks[i]["end"]) for i in top]


def run(limit: int | None = None, rounds: int = 2) -> dict:
    """Measure the local runtimes on the eval corpus' chunks; return every number as a dict."""
    prepare_environment()
    from indexing.embedding.local import _load_tokenizer, packaged_model

    chunks = pipeline_chunks(eval_corpus())
    random.Random(7).shuffle(chunks)
    if limit:
        chunks = chunks[:limit]
    # the order the pipeline embeds in: shortest first (it sorts what is missing by length)
    chunks.sort(key=lambda c: len(c["text"]))
    texts = [c["text"] for c in chunks]
    tokenizer = _load_tokenizer(packaged_model().path)
    tokens = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    long_texts = [t for t, n in zip(texts, tokens, strict=True) if n >= LONG_TOKENS][:LONG_LIMIT]
    queries = load_queries()
    timings: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    vectors: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="embedding-bench-") as tmp:
        folder = Path(tmp)
        job = folder / "job.json"
        job.write_text(
            json.dumps(
                {
                    "warmup": texts[-16:],
                    "sets": {"all": texts, "long": long_texts},
                    "queries": [q["query"] for q in queries],
                }
            )
        )
        for round_ in range(rounds):  # take turns, so a busy spell hits every system alike
            for name in SYSTEMS:
                result = _run_child(name, job, folder, round_)
                timings[name].append(
                    {k: float(v) for k, v in result.items() if v.ndim == 0 and k != "model_name"}
                )
                vectors[name] = result | {"model_name": str(result["model_name"])}
    report: dict = {
        "machine": machine.describe(),
        "corpus": {
            "chunks": len(texts),
            "subset": bool(limit),
            "mean_tokens": round(float(np.mean(tokens)), 1),
            "share_over_256_tokens": round(float(np.mean(np.array(tokens) > 256)), 3),
            "long_chunks": len(long_texts),
            "rounds": rounds,
        },
        "systems": {},
    }
    for name, description in SYSTEMS.items():
        best = {
            key: min(t[key] for t in timings[name])
            for key in ("all_wall", "all_cpu", "long_wall", "long_cpu", "load_seconds")
        }
        v = vectors[name]
        ranked = {
            q["id"]: _rank(v["all_vectors"], qv, chunks)
            for q, qv in zip(queries, v["queries"], strict=True)
        }
        scores = score_run(queries, ranked, lambda r: 1)
        report["systems"][name] = {
            "what": description,
            "model_name": v["model_name"],
            "load_seconds": round(best["load_seconds"], 1),
            "chunks_per_s": round(len(texts) / best["all_wall"], 1),
            "cpu_ms_per_chunk": round(1000 * best["all_cpu"] / len(texts), 1),
            "long_chunks_per_s": round(len(long_texts) / best["long_wall"], 1),
            "long_cpu_ms_per_chunk": round(1000 * best["long_cpu"] / len(long_texts), 1),
            "rounds_chunks_per_s": [round(len(texts) / t["all_wall"], 1) for t in timings[name]],
            **{metric: scores[metric] for metric in METRICS},
        }
    plain = report["systems"][REFERENCE]
    reference = vectors[REFERENCE]["all_vectors"]
    report["comparison"] = {}
    for name in SYSTEMS:
        if name == REFERENCE:
            continue
        s = report["systems"][name]
        cosines = (vectors[name]["all_vectors"] * reference).sum(axis=1)
        report["comparison"][name] = {
            "speedup_wall": round(s["chunks_per_s"] / plain["chunks_per_s"], 2),
            "speedup_cpu": round(plain["cpu_ms_per_chunk"] / s["cpu_ms_per_chunk"], 2),
            "speedup_long_wall": round(s["long_chunks_per_s"] / plain["long_chunks_per_s"], 2),
            "cosine_to_plain_mean": round(float(cosines.mean()), 4),
            "cosine_to_plain_min": round(float(cosines.min()), 4),
        }
    return report


def markdown(report: dict) -> str:
    """The report as the results page."""
    m, c = report["machine"], report["corpus"]
    names = list(report["systems"])
    rows = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    keys = [
        "model_name", "load_seconds", "chunks_per_s", "cpu_ms_per_chunk", "long_chunks_per_s",
        "long_cpu_ms_per_chunk", "rounds_chunks_per_s", *METRICS,
    ]  # fmt: skip
    for key in keys:
        rows.append(
            f"| {key} | " + " | ".join(str(report["systems"][n][key]) for n in names) + " |"
        )
    speed = [
        f"- **{name}**: {cmp['speedup_wall']}x wall and {cmp['speedup_cpu']}x CPU time on all"
        f" chunks, {cmp['speedup_long_wall']}x wall on 256-token chunks; cosine to the plain"
        f" model's vectors mean {cmp['cosine_to_plain_mean']}, min {cmp['cosine_to_plain_min']}."
        for name, cmp in report["comparison"].items()
    ]
    subset = " (a subset)" if c["subset"] else ""
    return "\n".join(
        [
            "# Local embedding: plain sentence-transformers vs int8 CTranslate2",
            "",
            f"Measured {m['date']} on {m['nproc']} cores ({m['cpu_model']}, {m['ram_gib']} GiB),"
            f" load average {m['load_average']}, git {m['git_commit']}"
            f"{' (dirty)' if m['git_dirty'] else ''}, Python {m['python']}.",
            f"Chunks: the {c['chunks']} chunks{subset} codeatlas's parser makes of the eval corpus"
            f" (what the pipeline embeds), mean {c['mean_tokens']} model tokens,"
            f" {c['share_over_256_tokens']:.0%} over 256. `long_*`: the first {c['long_chunks']}"
            " of them with at least 256 tokens. Each system runs in its own process, in turn,"
            f" {c['rounds']} rounds; the faster round counts (each round: `rounds_chunks_per_s`).",
            "",
            *(f"- `{name}`: {s['what']}" for name, s in report["systems"].items()),
            "",
            *rows,
            "",
            *speed,
            "",
            "Quality: vector-only search over all chunks, queries from /work/shared/eval/"
            "queries.jsonl, scored by benchmarks/scoring.py (hit = same path, overlapping lines).",
            "",
            NOTES.read_text(),
            "```json",
            json.dumps(report, indent=1),
            "```",
            "",
        ]
    )


def main() -> None:
    """Run, print, and write lab/results/embedding.md."""
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="embed only N chunks")
    parser.add_argument("--rounds", type=int, default=2, help="turns per system (best counts)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    report = run(args.limit, args.rounds)
    print(json.dumps(report, indent=1))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(markdown(report))
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
