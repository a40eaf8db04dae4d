"""Push → searchable → vectors while a model upgrade's backfill embeds (issue 48: a push waited
435 s behind the backfill for the embedding slot).

The real commands on their own embedded PostgreSQL (benchmarks/.work/push_upgrade): a
repository of ~1,800 chunks (`big`) and a small one (`app`) are indexed with the fake model;
`codeatlas models upgrade --wait` then embeds both for a new model served by a fake slow
OpenAI-compatible endpoint here (one request at a time, `--ms-per-chunk` each chunk: 12.5
chunks/s by default, the local model on long chunks on a loaded 2-core machine). While it
runs, each round commits a new function to `app` and runs `codeatlas index` on it, timing from
the command's start to its publishing line (searchable by words, symbols and callers) and to
its last embedding line (vectors stored). The push runs at push priority; the backfill hands
the embedding slot over between batches of 128 chunks (orchestration/runtime/pool_slots.py).
What the push
would have waited before, holding the slot per run, is bounded by the backfill's time left at
the push, also recorded.

    python -m lab.push_during_upgrade [--pushes 3] [--ms-per-chunk 80]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.workspace import WORK, git
from lab import machine
from lab.embedding_endpoint import EmbeddingEndpoint

RESULTS = Path(__file__).resolve().parent / "results" / "push_during_upgrade.json"
CODEATLAS = str(Path(sys.executable).parent / "codeatlas")
HERE = WORK / "push_upgrade"


class SlowEmbeddings(EmbeddingEndpoint):
    """An OpenAI-compatible embeddings endpoint that answers one request at a time, taking
    `seconds_per_chunk` per input: a slow model server."""

    def __init__(self, seconds_per_chunk: float) -> None:
        super().__init__()
        self.seconds_per_chunk = seconds_per_chunk
        self.lock = threading.Lock()
        self.chunks = 0

    def answering(self, texts: list[str]) -> None:
        with self.lock:
            time.sleep(self.seconds_per_chunk * len(texts))
            self.chunks += len(texts)


class Timed:
    """A command's output lines with the monotonic time each arrived."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: list[tuple[float, str]] = []
        self.ended: float | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line.rstrip()))
        self.proc.wait()
        self.ended = time.monotonic()

    def wait(self, timeout: float) -> int:
        self._reader.join(timeout)
        if self.ended is None:
            self.proc.kill()
            raise RuntimeError("timed out:\n" + self.text()[-3000:])
        return self.proc.returncode

    def first(self, text: str) -> float | None:
        """Seconds from the start to the first line containing `text`."""
        return next((t - self.started for t, line in self.lines if text in line), None)

    def last(self, text: str) -> float | None:
        """Seconds from the start to the last line containing `text`."""
        times = [t - self.started for t, line in self.lines if text in line]
        return times[-1] if times else None

    def text(self) -> str:
        return "\n".join(line for _t, line in self.lines)


def _repository(path: Path, files: int, functions: int) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for i in range(files):
        (path / f"module_{i}.py").write_text(
            "".join(
                f"def refund_{i}_{j}(order, amount):\n"
                f'    """Refund part {j} of an order of module {i}."""\n'
                f"    return order.total - amount * {j}\n\n"
                for j in range(functions)
            )
        )
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "start")
    return path


def _run(args: list[str], env: dict[str, str], timeout: float = 900) -> str:
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pushes", type=int, default=3)
    parser.add_argument("--ms-per-chunk", type=float, default=80.0)
    parser.add_argument("--big-files", type=int, default=300)
    args = parser.parse_args()

    if HERE.exists():
        shutil.rmtree(HERE)
    state = HERE / "state"
    # the commands' environment: this one without its codeatlas or Dagster settings
    env = dict(os.environ)
    for key in [k for k in env if k.startswith(("CODEATLAS_", "DAGSTER_"))]:
        del env[key]
    env |= {"CODEATLAS_STATE_DIR": str(state), "CODEATLAS_EMBEDDING_PROVIDER": "fake"}
    big = _repository(HERE / "big", args.big_files, 6)
    app = _repository(HERE / "app", 5, 3)
    _run([CODEATLAS, "index", str(big), "--name", "big"], env)
    _run([CODEATLAS, "index", str(app), "--name", "app"], env)
    load_before = os.getloadavg()

    endpoint = SlowEmbeddings(args.ms_per_chunk / 1000).start()
    upgrade = Timed(
        [CODEATLAS, "models", "upgrade", "--provider", "openai", "--model", "slow-embedder"]
        + ["--dimensions", "8", "--base-url", endpoint.base_url, "--wait"],
        env,
    )
    while endpoint.chunks < 300 and upgrade.ended is None:  # the backfill is embedding
        time.sleep(0.2)
    rounds = []
    for n in range(args.pushes):
        (app / "module_0.py").write_text(
            (app / "module_0.py").read_text()
            + f"\n\ndef pushed_{n}(order):\n    return order.total + {n}\n"
        )
        git(app, "commit", "-q", "-am", f"push {n}")
        at = time.monotonic() - upgrade.started
        push = Timed([CODEATLAS, "index", str(app), "--name", "app"], env)
        code = push.wait(900)
        if code != 0:
            raise RuntimeError(push.text())
        searchable = push.first(" published app@")
        assert push.ended is not None and searchable is not None
        waited = push.first("waiting for the 'embedding_provider' concurrency slot")
        stored = push.last("chunk_embeddings: embedded ")
        assert stored is not None, push.text()
        rounds.append(
            {
                "push_at_seconds_into_upgrade": round(at, 1),
                "upgrade_still_running_at_push_end": upgrade.ended is None,
                "to_searchable_seconds": round(searchable, 1),
                "to_vectors_seconds": round(stored, 1),
                "command_seconds": round(push.ended - push.started, 1),
                "waited_for_slot": waited is not None,
                # from the waiting line to its vectors stored: one backfill batch and its own
                "slot_wait_and_embedding_seconds": (
                    round(stored - waited, 1) if waited is not None else None
                ),
                "waiting_line": next(
                    (line for _t, line in push.lines if "waiting for the" in line), None
                ),
            }
        )
        print(json.dumps(rounds[-1]), file=sys.stderr)
    if upgrade.wait(1800) != 0:
        raise RuntimeError(upgrade.text())
    upgrade_seconds = upgrade.ended - upgrade.started
    for r in rounds:
        # what a push holding out for the backfill's run would have waited at most
        r["upgrade_left_at_push_seconds"] = round(
            upgrade_seconds - r["push_at_seconds_into_upgrade"], 1
        )
    result = {
        "machine": machine.describe(),
        "load_before_upgrade": [round(x, 2) for x in load_before],
        "ms_per_chunk": args.ms_per_chunk,
        "upgrade_chunks_embedded": endpoint.chunks,
        "upgrade_seconds": round(upgrade_seconds, 1),
        "pushes": rounds,
        "median_to_searchable_seconds": statistics.median(
            r["to_searchable_seconds"] for r in rounds
        ),
        "median_to_vectors_seconds": statistics.median(r["to_vectors_seconds"] for r in rounds),
        "median_upgrade_left_at_push_seconds": statistics.median(
            r["upgrade_left_at_push_seconds"] for r in rounds
        ),
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
