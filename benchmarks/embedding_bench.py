"""Local embedders side by side: plain sentence-transformers vs the int8 ONNX fast path.

Both embed the same function-sized chunks of the eval corpus (functions and methods whole, class
headers up to their first method, extracted with `ast`), interleaved slice by slice so a busy
machine slows both alike. Reports chunks/s (wall and CPU time) and vector-only retrieval quality
on the eval queries with the eval set's scoring rules.

    python -m benchmarks.embedding_bench [--limit N] [--no-write]
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import machine
from benchmarks.scoring import Result, load_queries, score_run
from benchmarks.workspace import REPO_ROOT, WORK, eval_corpus, prepare_environment

RESULTS = REPO_ROOT / "benchmarks" / "results" / "embedding.md"
SLICE = 128  # chunks per call; the two systems alternate after every slice
NOTES = Path(__file__).with_name("embedding_notes.md")  # what was tried, kept in the results
METRICS = ("recall@1", "recall@5", "recall@10", "tight@5", "mrr@10", "ndcg@10")


@dataclass(frozen=True)
class Chunk:
    """One symbol-sized piece of the corpus."""

    path: str
    symbol: str
    start_line: int
    end_line: int
    text: str


def function_chunks(corpus: Path) -> list[Chunk]:
    """Every function and method whole, and each class from its header to its first method."""
    chunks: list[Chunk] = []
    for file in sorted(corpus.rglob("*.py")):
        if ".git" in file.parts:
            continue
        source = file.read_text(encoding="utf-8")
        lines = source.splitlines()
        path = file.relative_to(corpus).as_posix()

        def visit(node: ast.AST, prefix: str, path: str = path, lines: list[str] = lines) -> None:
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                end = child.end_lineno or child.lineno
                name = prefix + child.name
                if isinstance(child, ast.ClassDef):
                    inner = [
                        b
                        for b in child.body
                        if isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    ]
                    if inner:
                        end = min([inner[0].lineno] + [d.lineno for d in inner[0].decorator_list])
                        end -= 1
                    visit(child, name + ".")
                text = "\n".join(lines[start - 1 : end])
                chunks.append(Chunk(path, name, start, end, text))

        visit(ast.parse(source), "")
    return chunks


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _embedders() -> dict[str, object]:
    from assets.embedding.local import OnnxEmbedder, SentenceTransformerEmbedder, packaged_model

    model = packaged_model()
    started = time.perf_counter()
    plain = SentenceTransformerEmbedder(model)
    plain_load = time.perf_counter() - started
    started = time.perf_counter()
    fast = OnnxEmbedder(model, WORK / "state" / "models" / model.name)
    fast_load = time.perf_counter() - started
    return {
        "sentence-transformers": (plain, plain_load),
        "onnx-int8": (fast, fast_load),
    }


def _interleaved(systems: dict, texts: list[str]) -> dict[str, dict]:
    """Embed `texts` with every system, alternating slices; vectors plus wall and CPU time."""
    out = {name: {"vectors": [], "wall": 0.0, "cpu": 0.0} for name in systems}
    for start in range(0, len(texts), SLICE):
        piece = texts[start : start + SLICE]
        for name, (embedder, _) in systems.items():
            wall, cpu = time.perf_counter(), _cpu_seconds()
            out[name]["vectors"].extend(embedder.embed_documents(piece))
            out[name]["wall"] += time.perf_counter() - wall
            out[name]["cpu"] += _cpu_seconds() - cpu
    for record in out.values():
        record["vectors"] = np.asarray(record["vectors"], dtype=np.float32)
    return out


def _rank(chunk_vectors: np.ndarray, query_vector: np.ndarray, chunks: list[Chunk]) -> list[Result]:
    top = np.argsort(-(chunk_vectors @ query_vector), kind="stable")[:10]
    return [Result(chunks[i].path, chunks[i].start_line, chunks[i].end_line) for i in top]


def run(limit: int | None = None) -> dict:
    """Measure both local runtimes on the eval corpus; return every number as a dict."""
    prepare_environment()
    corpus = eval_corpus()
    chunks = function_chunks(corpus)
    order = list(range(len(chunks)))
    random.Random(7).shuffle(order)  # slices of mixed sizes, the same for both systems
    if limit:
        order = order[:limit]
    texts = [chunks[i].text for i in order]
    systems = _embedders()
    for embedder, _ in systems.values():
        embedder.embed_documents(texts[:8])  # warm-up: first-call allocations are not throughput
    counter = systems["onnx-int8"][0]
    tokens = [counter.count_tokens(text) for text in texts]
    long_texts = [t for t, n in zip(texts, tokens, strict=True) if n >= 256][:64]
    timed = _interleaved(systems, texts)
    timed_long = _interleaved(systems, long_texts)
    queries = load_queries()
    subset = [chunks[i] for i in order]
    report: dict = {
        "machine": machine.describe(),
        "corpus": {
            "chunks": len(texts),
            "all_chunks": len(chunks),
            "subset": bool(limit),
            "mean_tokens": round(float(np.mean(tokens)), 1),
            "share_over_256_tokens": round(float(np.mean(np.array(tokens) > 256)), 3),
            "long_chunks_timed": len(long_texts),
        },
        "systems": {},
    }
    for name, (embedder, load_seconds) in systems.items():
        vectors = timed[name]["vectors"]
        query_vectors = np.asarray([embedder.embed_query(q["query"]) for q in queries])
        ranked = {
            q["id"]: _rank(vectors, v, subset) for q, v in zip(queries, query_vectors, strict=True)
        }
        scores = score_run(queries, ranked, lambda r: 1)
        report["systems"][name] = {
            "model_name": embedder.model_name,
            "max_tokens": embedder.max_tokens,
            "load_seconds": round(load_seconds, 1),
            "chunks_per_s": round(len(texts) / timed[name]["wall"], 1),
            "cpu_ms_per_chunk": round(1000 * timed[name]["cpu"] / len(texts), 1),
            "long_chunks_per_s": round(len(long_texts) / timed_long[name]["wall"], 1),
            "long_cpu_ms_per_chunk": round(1000 * timed_long[name]["cpu"] / len(long_texts), 1),
            **{metric: scores[metric] for metric in METRICS},
        }
    plain, fast = (report["systems"][n] for n in ("sentence-transformers", "onnx-int8"))
    a, b = timed["sentence-transformers"]["vectors"], timed["onnx-int8"]["vectors"]
    cosines = (a * b).sum(axis=1)
    report["comparison"] = {
        "speedup_wall": round(fast["chunks_per_s"] / plain["chunks_per_s"], 2),
        "speedup_cpu": round(plain["cpu_ms_per_chunk"] / fast["cpu_ms_per_chunk"], 2),
        "speedup_long_wall": round(fast["long_chunks_per_s"] / plain["long_chunks_per_s"], 2),
        "cosine_mean": round(float(cosines.mean()), 4),
        "cosine_min": round(float(cosines.min()), 4),
    }
    return report


def markdown(report: dict) -> str:
    """The report as the results page."""
    m, c, cmp = report["machine"], report["corpus"], report["comparison"]
    rows = [
        "| | " + " | ".join(report["systems"]) + " |",
        "|---|" + "---|" * len(report["systems"]),
    ]
    keys = [
        "model_name", "max_tokens", "load_seconds", "chunks_per_s", "cpu_ms_per_chunk",
        "long_chunks_per_s", "long_cpu_ms_per_chunk", *METRICS,
    ]  # fmt: skip
    for key in keys:
        rows.append(
            f"| {key} | " + " | ".join(str(s[key]) for s in report["systems"].values()) + " |"
        )
    subset = f" (subset of {c['all_chunks']})" if c["subset"] else ""
    return "\n".join(
        [
            "# Local embedding: plain sentence-transformers vs int8 ONNX",
            "",
            f"Measured {m['date']} on {m['nproc']} cores ({m['cpu_model']}, {m['ram_gib']} GiB),"
            f" load average {m['load_average']}, git {m['git_commit']}"
            f"{' (dirty)' if m['git_dirty'] else ''}, Python {m['python']}.",
            f"Chunks: {c['chunks']}{subset} function/method/class-header chunks of the eval corpus,"
            f" mean {c['mean_tokens']} model tokens, {c['share_over_256_tokens']:.0%} over the"
            f" 256-token window (truncated). `long_*`: {c['long_chunks_timed']} chunks of at least"
            " 256 tokens. Both systems embed the same slices in turn, so load hits both alike.",
            "",
            *rows,
            "",
            f"Speed-up: {cmp['speedup_wall']}x wall, {cmp['speedup_cpu']}x CPU time on the real"
            f" mix; {cmp['speedup_long_wall']}x wall on 256-token chunks. Cosine between the two"
            f" systems' vectors: mean {cmp['cosine_mean']}, min {cmp['cosine_min']}.",
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
    """Run, print, and write benchmarks/results/embedding.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="embed only N chunks")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    report = run(args.limit)
    print(json.dumps(report, indent=1))
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(markdown(report))
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
