"""A BERT encoder (the local model, all-MiniLM-L6-v2) in JAX, so it can be fine-tuned on CPU
without torch: the forward pass over the model folder's safetensors weights, mean pooling and
normalisation as the model's sentence-transformers modules do, and the weights written back in
the same layout (`indexing/embedding/bert_to_ct2.py` converts that folder for serving).

Only the fine-tuning script uses it (`lab/ranker/finetune.py`); nothing on the query path
imports JAX.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from safetensors.numpy import load_file, save_file

Params = dict[str, Any]  # weight name -> array, the safetensors names


def load_params(folder: Path) -> Params:
    """The encoder's weights (position ids, a buffer, left out)."""
    weights = load_file(str(folder / "model.safetensors"))
    weights.pop("embeddings.position_ids", None)
    return {name: jnp.asarray(value) for name, value in weights.items()}


def save_model(params: Params, base: Path, target: Path, provenance: dict) -> None:
    """A copy of the `base` model folder with `params` as its weights and `provenance` beside
    them (finetune.json), written to a temporary folder and renamed into place."""
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(base, partial)
    original = load_file(str(base / "model.safetensors"))
    weights = {
        name: np.asarray(params[name], dtype=np.float32) if name in params else value
        for name, value in original.items()
    }
    save_file(weights, str(partial / "model.safetensors"))
    (partial / "finetune.json").write_text(json.dumps(provenance, indent=1) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def _config(folder: Path) -> tuple[int, int, float]:
    config = json.loads((folder / "config.json").read_text())
    return config["num_hidden_layers"], config["num_attention_heads"], config["layer_norm_eps"]


class Encoder:
    """The model folder's architecture; `encode(params, ids, mask)` gives unit vectors."""

    def __init__(self, folder: Path) -> None:
        self.layers, self.heads, self.eps = _config(folder)

    def _norm(self, x: jax.Array, p: Params, name: str) -> jax.Array:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + self.eps) * p[f"{name}.weight"] + p[f"{name}.bias"]

    @staticmethod
    def _dense(x: jax.Array, p: Params, name: str) -> jax.Array:
        return x @ p[f"{name}.weight"].T + p[f"{name}.bias"]

    def encode(self, p: Params, ids: jax.Array, mask: jax.Array) -> jax.Array:
        """Token ids and attention mask [batch, tokens] -> unit vectors [batch, hidden]."""
        batch, tokens = ids.shape
        x = p["embeddings.word_embeddings.weight"][ids]
        x = x + p["embeddings.position_embeddings.weight"][:tokens][None]
        x = x + p["embeddings.token_type_embeddings.weight"][0][None, None]
        x = self._norm(x, p, "embeddings.LayerNorm")
        hidden = x.shape[-1]
        size = hidden // self.heads
        masked = (1.0 - mask[:, None, None, :].astype(x.dtype)) * -1e9

        def split(t: jax.Array) -> jax.Array:
            return t.reshape(batch, tokens, self.heads, size).transpose(0, 2, 1, 3)

        for i in range(self.layers):
            layer = f"encoder.layer.{i}"
            q = split(self._dense(x, p, f"{layer}.attention.self.query"))
            k = split(self._dense(x, p, f"{layer}.attention.self.key"))
            v = split(self._dense(x, p, f"{layer}.attention.self.value"))
            weights = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + masked)
            context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, tokens, hidden)
            attended = self._dense(context, p, f"{layer}.attention.output.dense")
            x = self._norm(x + attended, p, f"{layer}.attention.output.LayerNorm")
            inner = self._dense(x, p, f"{layer}.intermediate.dense")
            inner = self._dense(jax.nn.gelu(inner, approximate=False), p, f"{layer}.output.dense")
            x = self._norm(x + inner, p, f"{layer}.output.LayerNorm")
        weight = mask[..., None].astype(x.dtype)
        pooled = (x * weight).sum(1) / jnp.clip(weight.sum(1), 1e-9)
        return pooled / jnp.clip(jnp.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)


def token_batch(tokenizer: Any, texts: list[str], window: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids and mask of `texts` cut to `window` tokens, padded to half or all of the window (two
    shapes: each new shape compiles the step again)."""
    tokenizer.enable_truncation(window)
    encodings = tokenizer.encode_batch(texts)
    longest = max(len(e.ids) for e in encodings)
    width = window // 2 if longest <= window // 2 else window
    ids = np.zeros((len(texts), width), np.int32)
    mask = np.zeros((len(texts), width), np.int32)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    return ids, mask
