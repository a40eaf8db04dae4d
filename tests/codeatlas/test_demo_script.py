"""`make demo`'s script answers by words, symbols and callers as soon as the commit is published,
before its vectors exist, then by hybrid search (issue 48: the first demo showed nothing for
10 minutes). Run on a small repository with the fake model."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import GitRepo

ROOT = Path(__file__).resolve().parents[2]
FLASK = '''class Flask:
    def make_response(self, rv):
        """Convert the return value from a view function to a response."""
        return rv

    def finalize_request(self, rv):
        response = self.make_response(rv)
        return response


def make_response(*args):
    """Sometimes it is necessary to set additional headers in a view."""
    return current_app.make_response(args)
'''
RETRY = '''class Retry:
    def increment(self, error=None):
        """Return a new Retry object with incremented retry counters after a failed connection."""
        return self
'''


def test_the_demo_prints_lexical_results_before_the_vectors_then_hybrid_ones(
    database_url, tmp_path
):
    repo = GitRepo(tmp_path / "demo-src")
    repo.write("flask/app.py", FLASK)
    repo.write("urllib3/util/retry.py", RETRY)
    repo.commit("demo sources")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEATLAS_", "DAGSTER_"))}
    env |= {
        "CODEATLAS_DATABASE_URL": database_url,
        "CODEATLAS_STATE_DIR": str(tmp_path / "state"),
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
        "DEMO_SRC": str(repo.path),
        "DEMO_LOG": str(tmp_path / "index.log"),
    }
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout + done.stderr
    published = out.index(" published demo@")
    lexical = out.index("== searchable after")
    progress = out.index("== embedding the vectors")
    hybrid = out.index("== hybrid search")
    assert published < lexical < progress < hybrid
    # by words and callers while the vectors are still to come
    assert "flask/app.py:2-4  Flask.make_response  [lexical]" in out[lexical:progress]
    assert "Flask.finalize_request" in out[lexical:progress]
    # the embedding's progress with its ETA, then answers by meaning and words
    assert "chunk_embeddings: embedded" in out[progress:hybrid] and "ETA" in out[progress:hybrid]
    assert "semantic" in out[hybrid:]
