"""The embedders the benchmarks use: exactly what codeatlas's providers build."""

from __future__ import annotations

import hashlib
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.workspace import WORK

BATCH = 64
PROBE = "def probe(value):\n    return value + 1  # codeatlas benchmark vector-cache key"


def split(spec: str) -> tuple[str, str | None]:
    """(provider, model) of an embedder spec: `local`, `fake`, or `local:<model>` for a local
    model other than the default (`local:bge-small-en-v1.5`)."""
    provider, _, model = spec.partition(":")
    return provider, model or None


def model_folder(spec: str) -> Path | None:
    """The folder of a `local:<path>` spec (a model of one's own, e.g. fine-tuned); None for a
    packaged model's name or another provider."""
    model = split(spec)[1]
    return Path(model) if model and "/" in model else None


def environment(spec: str) -> dict[str, str]:
    """The settings' environment variables that make `codeatlas` build the `spec` embedder."""
    provider, model = split(spec)
    return {"CODEATLAS_EMBEDDING_PROVIDER": provider} | (
        {"CODEATLAS_EMBEDDING_MODEL": model} if model else {}
    )


def make(spec: str):
    """codeatlas's embedder for `spec` (local | fake | local:<model>), built by its own
    factory."""
    from core.config import load_settings
    from indexing.embedding.factory import make_embedder

    provider, model = split(spec)
    settings = replace(load_settings(), embedding_provider=provider)
    return make_embedder(replace(settings, embedding_model=model) if model else settings)


def is_real(embedder) -> bool:
    """False for the deterministic fake (or a placeholder that returns it)."""
    return not str(embedder.model_name).startswith("fake")


def embed_all(embedder, texts: list[str], *, cache: bool) -> tuple[np.ndarray, float]:
    """Vectors of `texts` (shortest first in batches, as the pipeline does) and the seconds it
    took; with `cache`, vectors of the same model and texts are reused from `.work/vectors/`."""
    digest = hashlib.sha256(embedder.model_name.encode())
    # the name can stay while the weights change (e.g. a new conversion recipe): fingerprint
    # the model by what it does to a fixed text
    probe = np.asarray(embedder.embed_documents([PROBE])[0], dtype=np.float32)
    digest.update(np.round(probe, 4).tobytes())
    for t in texts:
        digest.update(hashlib.sha256(t.encode()).digest())
    path = WORK / "vectors" / f"{digest.hexdigest()[:24]}.npy"
    if cache and path.is_file():
        return np.load(path), float("nan")
    started = time.perf_counter()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), embedder.dimensions), dtype=np.float32)
    for b in range(0, len(order), BATCH):
        ids = order[b : b + BATCH]
        out[ids] = np.asarray(embedder.embed_documents([texts[i] for i in ids]), dtype=np.float32)
    seconds = time.perf_counter() - started
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.save(path, out)
    return out, seconds
