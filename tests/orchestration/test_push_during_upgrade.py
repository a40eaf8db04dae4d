"""A push's run gets its vectors while a model upgrade's backfill is still embedding (issue 48:
it waited 435 s for the backfill's whole run). The real commands on a real Dagster instance:
`codeatlas models upgrade --wait` embeds through an endpoint the test holds batch by batch;
`codeatlas index` of another repository waits one batch of it, not the rest."""

from __future__ import annotations

import re
import subprocess
import threading
import time

from lab.embedding_endpoint import EmbeddingEndpoint
from tests.conftest import GitRepo
from tests.orchestration.test_faults import CODEATLAS, finish, index, repo, state  # noqa: F401

MARKER = "freshpushmarker"  # in the pushed repository's code: its requests are never held
HOLD_AT_MOST = 45.0  # below the client's 60 s timeout: a held request is never sent twice


class GatedEmbeddings(EmbeddingEndpoint):
    """An OpenAI-compatible endpoint that holds the backfill's requests until `release()`
    lets the ones received so far through (or `open()` all); a push's are answered at once."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()
        self.received = 0  # held kind of request, in order of arrival
        self.released = 0  # requests numbered below this go through
        self.pushed = 0  # requests of the pushed repository answered

    def answering(self, texts: list[str]) -> None:
        if any(MARKER in text for text in texts):
            with self.changed:
                self.pushed += 1
        elif len(texts) > 1:  # a single text is a probe or a query: never held
            with self.changed:
                number = self.received
                self.received += 1
                self.changed.notify_all()
                self.changed.wait_for(lambda: number < self.released, HOLD_AT_MOST)

    def wait_for_requests(self, count: int, seconds: float) -> bool:
        """Whether `count` held requests arrived within `seconds`."""
        with self.changed:
            return self.changed.wait_for(lambda: self.received >= count, seconds)

    def release(self) -> None:
        """Let the requests received so far through."""
        with self.changed:
            self.released = self.received
            self.changed.notify_all()

    def open(self) -> None:
        """Let every request through, now and later."""
        with self.changed:
            self.released = 10**9
            self.changed.notify_all()

    def close(self) -> None:
        self.open()
        super().close()


class Lines:
    """A process's output lines, read in a thread; `wait_for` a line containing some text."""

    def __init__(self, proc) -> None:
        self.proc, self.lines, self.changed = proc, [], threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.lines.append(None)  # the end
            self.changed.notify_all()

    def wait_for(self, text: str, seconds: float) -> str | None:
        deadline = time.monotonic() + seconds
        with self.changed:
            while True:
                for line in self.lines:
                    if line is not None and text in line:
                        return line
                if None in self.lines or time.monotonic() > deadline:
                    return None
                self.changed.wait(1)

    def text(self) -> str:
        with self.changed:
            return "".join(line for line in self.lines if line is not None)


def test_a_push_during_a_model_upgrade_gets_its_vectors_before_the_backfill_ends(
    state,  # noqa: F811 (the fixtures imported above)
    repo,  # noqa: F811 (~900 chunks: seven or more batches of the backfill)
    tmp_path,
):
    code, out = finish(index(state, repo))
    assert code == 0, out
    fresh = GitRepo(tmp_path / "fresh")
    fresh.write("fresh.py", f"def {MARKER}(order):\n    return order.total\n")
    fresh.commit("one file")

    with GatedEmbeddings() as gate:
        upgrade = subprocess.Popen(
            [CODEATLAS, "models", "upgrade", "--provider", "openai", "--model", "gated-embedder"]
            + ["--dimensions", "8", "--base-url", gate.base_url, "--wait"],
            env=state,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        upgrading = Lines(upgrade)
        try:
            assert gate.wait_for_requests(1, 180), upgrading.text()
            # the backfill is inside its first batch, holding the embedding slot: a push now
            push = index(state, fresh, name="fresh")
            pushed = Lines(push)
            waiting = pushed.wait_for("waiting for the 'embedding_provider' concurrency slot", 180)
            assert waiting, pushed.text()
            # the message names the run, the step and what launched it
            assert "step chunk_embeddings" in waiting
            assert "launched by model upgrade to gated-embedder:8" in waiting

            gate.wait_for_requests(2, 10)  # the batch's second request, if it has one
            gate.release()  # the backfill's first batch ends; its next ones stay held
            assert push.wait(timeout=180) == 0, pushed.text()
            # the push is done and searchable with vectors while the backfill still embeds
            assert upgrade.poll() is None, upgrading.text()
            assert gate.pushed >= 1
            assert re.search(r"embedded (\d+)/\1 chunks", pushed.text()), pushed.text()
            # the backfill's next batch waited for the push's, saying for whom (unless the
            # push, polling each second, was done before the backfill asked again)
            handed = upgrading.wait_for("waiting for the 'embedding_provider' concurrency", 5)
            assert handed is None or "launched by codeatlas CLI" in handed, handed
        finally:
            gate.open()
        assert upgrade.wait(timeout=180) == 0, upgrading.text()
    assert upgrading.wait_for("shop: embedded", 30), upgrading.text()
