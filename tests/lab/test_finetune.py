"""The fine-tuning script of the local model (lab/ranker/finetune.py): its JAX encoder is
the served model, a few steps on real pairs learn, and the folder it writes is served by
codeatlas's own int8 path."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

# The fine-tuning stack (JAX, optax, scipy: ~0.5 GB) is its own extra, not in [dev] (issue 48).
FINETUNE_EXTRA = (
    "the fine-tuning stack is not installed: it is the [finetune] extra, not part of [dev];"
    " `.venv/bin/pip install -e '.[finetune]'` (or `make finetune-model`) runs this test"
)
pytest.importorskip("jax", reason=FINETUNE_EXTRA)
pytest.importorskip("optax", reason=FINETUNE_EXTRA)

from indexing.embedding.local import (  # noqa: E402
    FastEmbedder,
    _load_tokenizer,
    packaged_model,
    read_model,
)
from lab.ranker.bert_jax import Encoder, load_params, token_batch  # noqa: E402
from lab.ranker.finetune import Pair, digest, train  # noqa: E402

pytestmark = pytest.mark.slow

TEXTS = [
    "how does refund eligibility work?",
    "src/billing/refunds.py Refunds.eligible\ndef eligible self order:\n"
    "    return order.paid and order.age_days <= 30",
    "check whether a password hash needs to be recomputed",
]

# (question, function, code): each pair's document is what the served model reads of a chunk
FUNCTIONS = [
    ("add two numbers", "add", "def add a b:\n    return a + b"),
    ("read a file as text", "read_text", "def read_text path:\n    return open path .read"),
    ("the largest of the values", "largest", "def largest values:\n    return max values"),
    ("join words with spaces", "join_words", "def join_words words:\n    return ' '.join words"),
    ("reverse a list", "reverse", "def reverse items:\n    return items ::-1"),
    ("count the lines of a text", "count_lines", "def count_lines t:\n    return len t.lines"),
    ("parse a date from a string", "parse_date", "def parse_date s:\n    return strptime s"),
    ("send an email message", "send", "def send message:\n    smtp.send_message message"),
    ("hash a password with a salt", "hash_password", "def hash_password p s:\n    return sha p+s"),
]
PAIRS = [Pair(question, f"lib.py {name}\n{code}") for question, name, code in FUNCTIONS]


def _jax_vectors(folder, texts):
    encoder = Encoder(folder)
    ids, mask = token_batch(_load_tokenizer(folder), texts, 256)
    return np.asarray(encoder.encode(load_params(folder), ids, mask))


def test_the_jax_encoder_is_the_served_model(tmp_path):
    model = packaged_model()
    served = np.asarray(FastEmbedder(model, tmp_path)._embed(TEXTS))
    mine = _jax_vectors(model.path, TEXTS)
    # float weights against the int8 model codeatlas serves: the same vectors up to quantisation
    assert np.all((served * mine).sum(axis=1) > 0.99)


def test_a_few_steps_learn_and_the_tuned_folder_is_served(tmp_path):
    model = packaged_model()
    out = tmp_path / "tuned"
    provenance = train(PAIRS * 8, model.path, out, epochs=1, learning_rate=1e-4, batch=8, seed=1)
    # 65 training pairs (7 of the 72 held out) in batches of 8: eight whole batches, and a ninth
    # from the next epoch's order
    assert provenance["steps"] == 9
    assert provenance["pairs_sha256"] == digest(PAIRS * 8)
    assert provenance["last_loss"] < provenance["first_loss"]
    assert json.loads((out / "finetune.json").read_text()) == provenance
    assert not (tmp_path / "tuned.partial").exists()
    # codeatlas serves the folder (converted to int8 like any model folder), and what it serves
    # is the tuned weights, not the packaged ones
    served = np.asarray(FastEmbedder(read_model(out, out.name), tmp_path / "cache")._embed(TEXTS))
    tuned = _jax_vectors(out, TEXTS)
    packaged = _jax_vectors(model.path, TEXTS)
    assert np.all((served * tuned).sum(axis=1) > 0.99)
    assert not np.allclose(tuned, packaged, atol=1e-3)


def test_interpolation_moves_the_packaged_weights_part_of_the_way_to_the_tuned(tmp_path):
    from safetensors.numpy import load_file, save_file

    from lab.ranker.finetune import interpolate

    model = packaged_model()
    base = load_file(str(model.path / "model.safetensors"))
    tuned = tmp_path / "tuned"
    shutil.copytree(model.path, tuned)
    moved = {k: v * 3 if v.dtype.kind == "f" else v for k, v in base.items()}
    save_file(moved, str(tuned / "model.safetensors"))
    (tuned / "finetune.json").write_text(json.dumps({"seed": 26}))

    provenance = interpolate(tuned, model.path, tmp_path / "half", 0.25, "packaged")

    assert provenance == {
        "seed": 26,
        "interpolated": {"alpha": 0.25, "tuned": "tuned", "base": "packaged"},
    }
    assert json.loads((tmp_path / "half" / "finetune.json").read_text()) == provenance
    half = load_file(str(tmp_path / "half" / "model.safetensors"))
    for name, value in base.items():
        # float weights a quarter of the way (x -> 1.5x), integer buffers as they were
        expected = value * 1.5 if value.dtype.kind == "f" else value
        np.testing.assert_allclose(half[name], expected, rtol=1e-6)
    served = np.asarray(
        FastEmbedder(read_model(tmp_path / "half", "half"), tmp_path / "c")._embed(TEXTS)
    )
    assert served.shape == (len(TEXTS), 384)

    # a folder of another model is refused, and nothing is written
    other = tmp_path / "other"
    shutil.copytree(model.path, other)
    save_file({"w": np.zeros(3, dtype=np.float32)}, str(other / "model.safetensors"))
    (other / "finetune.json").write_text("{}")
    with pytest.raises(SystemExit, match="not tuned from"):
        interpolate(other, model.path, tmp_path / "refused", 0.5)
    assert not (tmp_path / "refused").exists()
    with pytest.raises(SystemExit, match="between 0"):
        interpolate(tuned, model.path, tmp_path / "refused", 1.5)
    (tuned / "finetune.json").unlink()  # not a folder `train` wrote
    with pytest.raises(SystemExit, match="no finetune.json"):
        interpolate(tuned, model.path, tmp_path / "refused", 0.5)
    assert not (tmp_path / "refused").exists()
