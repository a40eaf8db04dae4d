"""A query-side linear adapter for the local model, measured (issue 26, item 4): a matrix W
applied to the query vector only, trained on mined (docstring summary, function) pairs so that
a question lands nearer the code that answers it. The stored chunk vectors do not change, so
nothing would be re-embedded.

    python -m lab.ranker.adapter --train mined-train --eval mined-test,py,php,ts

Training: InfoNCE over the training pairs (each query against every training answer, cosine
similarity / temperature), Adam, W starting at the identity with an L2 pull back to it, and a
tenth of the pairs held out for early stopping. Measured: semantic search alone (exact cosine
over every chunk vector of the set's snapshot), MRR@10 and R@5 of the first chunk on a gold
answer, with and without W, with 95% bootstrap intervals of the paired difference.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks import embedder as embedders
from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.workspace import prepare_environment
from lab.mined.sets import select
from lab.quality import ensure_index

SEED = 20261203
TEMPERATURE = 0.05
L2_TO_IDENTITY = 1e-3
LEARNING_RATE = 1e-3
BATCH = 256
EPOCHS = 30


def unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1."""
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def snapshot_rows(url: str, repository: str, model: str) -> list[dict]:
    """Every chunk of the repository's current snapshot that has a vector of `model`: its path,
    lines, content, qualified name and vector (`v`, pgvector's text), in file order."""
    from core.database import connection

    with connection(url) as conn:
        return conn.execute(
            "SELECT sf.path, c.start_line, c.end_line,"
            " codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content, c.qualified_name,"
            " e.embedding::vector::text AS v"
            " FROM repositories r JOIN snapshot_files sf ON sf.snapshot_id = r.current_snapshot_id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
            " JOIN chunk_embeddings e ON e.content_hash = c.content_hash"
            "  AND e.embedding_model = %s"
            " WHERE r.name = %s ORDER BY sf.path, c.start_line",
            (model, repository),
        ).fetchall()


def top_ranks(queries: np.ndarray, chunks: np.ndarray, gold: list[set[int]]) -> list[int | None]:
    """The rank of each query's first gold chunk among the 10 most similar (None: not there);
    both sides unit vectors."""
    top = np.argsort(-(queries @ chunks.T), axis=1)[:, :10]
    return [
        next((r for r, i in enumerate(row, 1) if i in wanted), None)
        for row, wanted in zip(top, gold, strict=True)
    ]


class SetVectors:
    """A set's queries embedded, its chunks and their vectors, and which chunks answer each
    query."""

    def __init__(self, name: str, provider: str, *, keep_migrated: bool = False) -> None:
        eval_set = select(name)[0]
        embedder = embedders.make(provider)
        index = ensure_index(eval_set, provider, embedder, fresh=False, keep_migrated=keep_migrated)
        self.name = name
        self.rows = snapshot_rows(index["url"], index["repository"], embedder.model_name)
        self.chunks = unit(
            np.asarray([np.fromstring(r["v"][1:-1], sep=",") for r in self.rows], np.float32)
        )
        queries = eval_set.queries()
        self.questions = [q["query"] for q in queries]
        self.queries = unit(
            np.asarray([embedder.embed_query(q) for q in self.questions], dtype=np.float32)
        )
        self.gold = [
            {
                i
                for i, r in enumerate(self.rows)
                if any(
                    g["path"] == r["path"]
                    and r["start_line"] <= g["end_line"]
                    and r["end_line"] >= g["start_line"]
                    for g in q["gold"]
                )
            }
            for q in queries
        ]

    def first_ranks(self, w: np.ndarray | None) -> list[int | None]:
        """The rank of each query's first gold chunk in the top 10 (None: not there)."""
        q = self.queries if w is None else unit(self.queries @ w.T)
        return top_ranks(q, self.chunks, self.gold)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(query, answer) vectors: each query with its first gold chunk (the function's head)."""
        keep = [i for i, g in enumerate(self.gold) if g]
        answers = np.stack([self.chunks[min(self.gold[i])] for i in keep])
        return self.queries[keep], answers


def fit(queries: np.ndarray, answers: np.ndarray) -> tuple[np.ndarray, dict]:
    """W minimising InfoNCE of each query against all training answers (early-stopped)."""
    rng = np.random.default_rng(SEED)
    n, d = queries.shape
    order = rng.permutation(n)
    held, train = order[: max(1, n // 10)], order[max(1, n // 10) :]
    w = np.eye(d, dtype=np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    step = 0
    best = (np.inf, w.copy(), 0)

    def loss_and_grad(idx: np.ndarray, targets: np.ndarray, pool: np.ndarray):
        q = queries[idx].astype(np.float64)
        z = q @ w.T
        norm = np.linalg.norm(z, axis=1, keepdims=True)
        u = z / norm
        logits = (u @ pool.T) / TEMPERATURE
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        loss = -np.log(p[np.arange(len(idx)), targets] + 1e-12).mean()
        g_logits = p.copy()
        g_logits[np.arange(len(idx)), targets] -= 1.0
        g_logits /= len(idx) * TEMPERATURE
        g_u = g_logits @ pool
        # through the normalisation u = z / |z|
        g_z = (g_u - u * (g_u * u).sum(axis=1, keepdims=True)) / norm
        grad = g_z.T @ q + 2 * L2_TO_IDENTITY * (w - np.eye(d))
        return loss, grad

    # each training query against every training answer; a held-out query against all answers
    train_ids = np.sort(train)
    position = {int(qid): j for j, qid in enumerate(train_ids)}
    pool = answers[train_ids].astype(np.float64)
    everything = answers.astype(np.float64)
    for epoch in range(EPOCHS):
        rng.shuffle(train)
        for start in range(0, len(train), BATCH):
            idx = train[start : start + BATCH]
            targets = np.asarray([position[int(i)] for i in idx])
            _, grad = loss_and_grad(idx, targets, pool)
            step += 1
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad**2
            w -= LEARNING_RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        held_loss, _ = loss_and_grad(held, held, everything)
        print(f"[adapter] epoch {epoch + 1}: held-out loss {held_loss:.4f}", file=sys.stderr)
        if held_loss < best[0]:
            best = (held_loss, w.copy(), epoch + 1)
    return best[1].astype(np.float32), {"epochs": best[2], "held_out_loss": round(best[0], 4)}


def main(argv: list[str] | None = None) -> int:
    """Fit W on the training sets, measure semantic search with and without it."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--train", default="mined-train")
    p.add_argument("--eval", default="mined-test,py,php,ts")
    p.add_argument("--embedder", default="local")
    args = p.parse_args(argv)
    prepare_environment()
    train_sets = [
        SetVectors(s.name, args.embedder) for g in args.train.split(",") for s in select(g)
    ]
    q, a = zip(*(s.pairs() for s in train_sets), strict=True)
    w, stats = fit(np.concatenate(q), np.concatenate(a))
    print(f"[adapter] trained on {sum(len(x) for x in q)} pairs: {stats}", file=sys.stderr)
    print("| set | n | MRR@10 plain | MRR@10 adapted | Δ | R@5 plain | R@5 adapted | Δ |")
    print("|---|---|---|---|---|---|---|---|")
    for name in (s.name for g in args.eval.split(",") for s in select(g)):
        s = SetVectors(name, args.embedder)
        plain, adapted = s.first_ranks(None), s.first_ranks(w)
        cells = [name, str(len(plain))]
        for term in (reciprocal_rank, found_within(5)):
            a_, b_ = [term(r) for r in plain], [term(r) for r in adapted]
            cells += [fmt(*interval(a_)), fmt(*interval(b_)), fmt_delta(*paired(b_, a_))]
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
