"""The int8 conversion: numpy-only for BERT, and as good as ctranslate2's own converter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import indexing
from indexing.embedding import ct2_export
from indexing.embedding.local import FastEmbedder, packaged_model
from indexing.parsing.parser import parse_file

# Run in a fresh interpreter where importing torch, transformers or sentence-transformers fails,
# as on a default install without the [torch] extra, then report what got imported.
TORCH_FREE_CONVERSION = """
import json, sys
for name in ("torch", "transformers", "sentence_transformers"):
    sys.modules[name] = None  # `import name` now raises ImportError
from pathlib import Path
from indexing.embedding.local import FastEmbedder, packaged_model
embedder = FastEmbedder(packaged_model(), Path(sys.argv[1]), window=128)
vector = embedder.embed_documents(["def add(a, b):\\n    return a + b"])[0]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers")
                and sys.modules[m] is not None)
print(json.dumps({"path": str(embedder.model_path), "dims": len(vector), "loaded": loaded}))
"""


def real_chunks(count: int) -> list[str]:
    """Chunks of codeatlas' own sources, as the indexer cuts them."""
    chunks: list[str] = []
    for path in sorted(Path(indexing.__file__).parent.rglob("*.py")):
        parsed = parse_file(path.name, path.read_bytes())
        chunks += [c.content for c in parsed.chunks if c.content.strip()]
        if len(chunks) >= count:
            break
    return chunks[:count]


@pytest.mark.slow
def test_conversion_and_embedding_need_neither_torch_nor_transformers(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", TORCH_FREE_CONVERSION, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(indexing.__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["loaded"] == []
    assert report["dims"] == 384
    model = Path(report["path"])
    assert model.name.startswith(ct2_export.RECIPE)
    assert {p.name for p in model.iterdir()} >= {"model.bin", "config.json", "vocabulary.json"}
    assert json.loads((model / "manifest.json").read_text())["recipe"] == ct2_export.RECIPE


@pytest.mark.slow
def test_numpy_conversion_embeds_like_ctranslate2s_own_converter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("transformers", reason="the reference conversion needs the [torch] extra")
    model = packaged_model()
    ours = FastEmbedder(model, tmp_path / "numpy", text="raw")
    with monkeypatch.context() as patched:
        patched.setattr(ct2_export, "_convert", ct2_export._convert_with_transformers)
        reference = FastEmbedder(model, tmp_path / "transformers", text="raw")
    chunks = real_chunks(300)
    assert len(chunks) == 300
    a = np.array(ours.embed_documents(chunks))
    b = np.array(reference.embed_documents(chunks))
    cosines = (a * b).sum(axis=1)
    assert cosines.min() > 0.999, np.sort(cosines)[:5]
