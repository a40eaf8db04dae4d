"""The real local model: the int8 CTranslate2 fast path against plain sentence-transformers'
vectors, stored once in reference_vectors.json (scripts/reference_vectors.py, which needs torch,
re-makes them), so the suite needs no torch."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.config import Settings
from core.errors import ConfigurationError
from indexing.embedding.base import document_text
from indexing.embedding.factory import make_local_embedder
from indexing.embedding.local import FastEmbedder, lean_text, packaged_model

# the plain model's vectors of SNIPPETS: code in four languages and an empty text
REFERENCE = json.loads((Path(__file__).parent / "reference_vectors.json").read_text())
SNIPPETS: list[str] = REFERENCE["texts"]
PLAIN_VECTORS = np.array(REFERENCE["vectors"])


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One conversion per test run (about 5 s), shared by the tests below."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def fast(model_cache: Path) -> FastEmbedder:
    return FastEmbedder(packaged_model(), model_cache, window=128)


def test_lean_text_drops_brackets_quotes_commas_and_semicolons_only() -> None:
    source = 'if (user.is_admin(x, y)) { items["a"] = f`b`; }  // note: a.b -> c'
    assert lean_text(source).split() == [
        "if", "user.is_admin", "x", "y", "items", "a", "=", "f", "b",
        "//", "note:", "a.b", "->", "c",
    ]  # fmt: skip
    assert lean_text("") == ""
    assert lean_text("naïve_café = 1") == "naïve_café = 1"


@pytest.mark.slow
def test_int8_runtime_matches_sentence_transformers_on_the_same_input(model_cache: Path) -> None:
    model = packaged_model()
    # Same text, same 256-token window: what is left is the int8 runtime's own error.
    same_input = FastEmbedder(model, model_cache, window=256, text="raw")
    assert (same_input.model_name, REFERENCE["model"]) == (
        "all-MiniLM-L6-v2:ct2-int8-raw256",
        model.name,
    )
    assert same_input.dimensions == PLAIN_VECTORS.shape[1] == 384
    ours = np.array(same_input.embed_documents(SNIPPETS))
    reference = PLAIN_VECTORS
    assert np.allclose(np.linalg.norm(reference, axis=1), 1.0, atol=1e-5)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-4)
    cosines = (ours * reference).sum(axis=1)
    # On the eval corpus' chunks: mean 0.996 (lab/results/embedding.md). An empty text
    # (only [CLS] and [SEP]) moves most under int8, to about 0.97.
    assert cosines[:-1].min() > 0.99, cosines
    assert cosines[-1] > 0.95, cosines
    # The conversion is cached: a second embedder reuses the same folder.
    assert FastEmbedder(model, model_cache).model_path == same_input.model_path


@pytest.mark.slow
def test_fast_path_reads_lean_text(model_cache: Path) -> None:
    default = FastEmbedder(packaged_model(), model_cache, text="lean")
    assert (default.model_name, default.max_tokens) == ("all-MiniLM-L6-v2:ct2-int8-lean256", 256)
    assert not default.reads_context
    ours = np.array(default.embed_documents(SNIPPETS[:4]))
    reference = PLAIN_VECTORS[:4]
    # Another input makes another vector, but one that still means the same code.
    assert ((ours * reference).sum(axis=1) > 0.9).all()
    assert np.allclose(ours[0], default.embed_documents([lean_text(SNIPPETS[0])])[0], atol=1e-6)


@pytest.mark.slow
def test_related_text_ranks_above_unrelated_text(fast: FastEmbedder) -> None:
    chunks = np.array(fast.embed_documents(SNIPPETS[:4]))
    for query, expected in [
        ("can this order still be refunded", 0),
        ("least recently used cache lookup", 1),
        ("download JSON over HTTP asynchronously", 2),
        ("http request handler of the server", 3),
    ]:
        scores = chunks @ np.array(fast.embed_query(query))
        assert int(scores.argmax()) == expected, (query, scores)


@pytest.mark.slow
def test_long_inputs_are_truncated_to_the_window_and_counted_in_full(fast: FastEmbedder) -> None:
    assert (fast.model_name, fast.max_tokens) == ("all-MiniLM-L6-v2:ct2-int8-ctx128", 128)
    long_text = "def f():\n" + "    total = total + value\n" * 200
    assert fast.count_tokens(long_text) > 1000
    head = long_text[: len(long_text) // 2]
    one, two = fast.embed_documents([long_text, head])
    assert float(np.dot(one, two)) > 0.999  # both saw the same first 128 tokens
    # Batches of every size come back in input order.
    texts = [f"def handler_{i}(request):\n    return {i}" + " + x" * i for i in range(40)]
    together = np.array(fast.embed_documents(texts))
    alone = np.array([fast.embed_documents([t])[0] for t in texts[::7]])
    assert np.allclose(together[::7], alone, atol=1e-3)


@pytest.mark.slow
def test_settings_pick_the_runtime_and_refuse_unknown_models(
    model_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.config import load_settings

    base: Settings = replace(load_settings(), state_dir=tmp_path, embedding_provider="local")
    default = make_local_embedder(replace(base, embedding_model=None))
    assert default.model_name == "all-MiniLM-L6-v2:ct2-int8-ctx256"
    assert default.reads_context
    for name in ("all-MiniLM-L6-v2:ct2-int8-lean256", "all-MiniLM-L6-v2:ct2-int8-raw128"):
        named = make_local_embedder(replace(base, embedding_model=name))
        assert (named.model_name, named.reads_context) == (name, False)
    with pytest.raises(ConfigurationError, match="window must be 8..256"):
        make_local_embedder(replace(base, embedding_model="all-MiniLM-L6-v2:ct2-int8-lean512"))
    # the plain model (the [torch] extra): tests/indexing/embedding/test_factory.py
    with pytest.raises(ConfigurationError, match="unknown local embedding model"):
        make_local_embedder(replace(base, embedding_model="all-MiniLM-L6-v2:onnx-int8"))
    monkeypatch.setenv("CODEATLAS_LOCAL_RUNTIME", "gpu")
    with pytest.raises(ConfigurationError, match="CODEATLAS_LOCAL_RUNTIME must be ct2 or torch"):
        load_settings()


@pytest.mark.slow
def test_the_default_reads_a_chunk_after_its_path_and_qualified_name(model_cache: Path) -> None:
    ctx = FastEmbedder(packaged_model(), model_cache)
    lean = FastEmbedder(packaged_model(), model_cache, text="lean")
    content = "def get(self, key):\n    return self._items[key]"
    text = document_text(ctx, content, "cache/lru.py", "LRUCache.get")
    assert text == f"cache/lru.py LRUCache.get\n{content}"
    assert document_text(lean, content, "cache/lru.py", "LRUCache.get") == content
    assert document_text(ctx, "import os", "cache/lru.py", None) == "cache/lru.py\nimport os"
    # the same model under another name: with the header it is another vector, and one that is
    # nearer a question naming the class than the bare method is
    with_context, bare = np.array(ctx.embed_documents([text, content]))
    assert np.allclose(bare, lean.embed_documents([content])[0], atol=1e-6)
    question = np.array(ctx.embed_query("how does the LRU cache look up a key"))
    assert float(with_context @ question) > float(bare @ question)


@pytest.mark.slow
def test_vectors_of_the_previous_default_stay_queryable_after_the_default_changed(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.config import load_settings
    from core.database import connect
    from indexing import embedding_registry

    monkeypatch.setenv("CODEATLAS_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("CODEATLAS_EMBEDDING_PROVIDER", "local")
    settings = load_settings()
    previous = "all-MiniLM-L6-v2:ct2-int8-lean256"  # the default before the ctx text
    conn = connect(database_url)
    try:
        # what an index run under the previous default recorded: provider local, no model named
        embedding_registry.record_model(
            conn,
            make_local_embedder(replace(settings, embedding_model=previous)),
            embedding_registry.ModelSpec("local"),
        )
        conn.commit()
        embedder = embedding_registry.embedder_for_model(previous, conn, settings)
        current = embedding_registry.embedder_for_model(
            "all-MiniLM-L6-v2:ct2-int8-ctx256", conn, settings
        )
    finally:
        conn.close()
    assert (embedder.model_name, embedder.reads_context) == (previous, False)
    assert current.reads_context
    # the two recipes read chunks differently but questions the same way
    assert np.allclose(embedder.embed_query("refund"), current.embed_query("refund"), atol=1e-6)


def test_the_stored_vectors_are_the_scripts_texts() -> None:
    import importlib.util

    script = Path(__file__).parents[3] / "scripts" / "reference_vectors.py"
    spec = importlib.util.spec_from_file_location("reference_vectors", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.TEXTS == SNIPPETS
    assert PLAIN_VECTORS.shape == (len(SNIPPETS), 384)


@pytest.mark.slow
def test_the_stored_vectors_are_what_the_plain_model_gives() -> None:
    """Runs where the [torch] extra is installed (a developer re-making the reference)."""
    pytest.importorskip("sentence_transformers", reason="the plain model needs the [torch] extra")
    from indexing.embedding.local import SentenceTransformerEmbedder

    plain = np.array(SentenceTransformerEmbedder(packaged_model()).embed_documents(SNIPPETS))
    assert np.allclose(plain, PLAIN_VECTORS, atol=1e-5)
