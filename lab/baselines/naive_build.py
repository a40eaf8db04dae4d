"""Naive RAG's indexing, as a process of its own so its time and peak memory compare with
`codeatlas index`: load the model, split the corpus into 512-token windows, embed them all.

    python -m lab.baselines.naive_build CORPUS_DIR   # prints one JSON object
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def build(corpus: Path, provider: str = "local") -> dict:
    """Split and embed in this process; seconds per phase."""
    from benchmarks import embedder as embedders
    from lab.baselines.windows import corpus_files, token_windows

    started = time.perf_counter()
    embedder = embedders.make(provider)
    loaded = time.perf_counter()
    passages = token_windows(corpus, embedder.count_tokens, 512)
    split = time.perf_counter()
    _vectors, _ = embedders.embed_all(embedder, [p.text for p in passages], cache=False)
    done = time.perf_counter()
    return {
        "files": sum(1 for _ in corpus_files(corpus)),
        "chunks": len(passages),
        "model_load_seconds": round(loaded - started, 2),
        "split_seconds": round(split - loaded, 2),
        "embed_seconds": round(done - split, 2),
    }


def run_in_child(corpus: Path, provider: str = "local") -> dict:
    """`build` in a child process: wall time (with interpreter start) and its peak RSS."""
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "lab.baselines.naive_build", str(corpus), provider],
            stdout=out,
            stderr=subprocess.DEVNULL,
            env=os.environ.copy(),
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        out.seek(0)
        text = out.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("naive RAG build failed")
    result = json.loads(text.strip().splitlines()[-1])
    return {
        **result,
        "wall_seconds": round(wall, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "files_per_s": round(result["files"] / wall, 2),
        "chunks_per_s": round(result["chunks"] / wall, 2),
    }


if __name__ == "__main__":
    print(json.dumps(build(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "local")))
