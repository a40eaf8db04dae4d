"""The embedding step's ETA is right within 25% once it has run a minute (issue 48: "ETA 1452s"
for a step that ended 437 s later). A fake model that costs time per chunk and per token read
(capped at its window) advances an injected clock: minutes of embedding, no sleeping."""

from __future__ import annotations

import random
import re

import pytest

import indexing.embedding_step as embedding_step
from indexing.embedding.fake import FakeEmbedder
from indexing.embedding_eta import WINDOW_SECONDS
from indexing.embedding_step import embed_snapshot
from tests.assets.pipeline_helpers import register, run_index

_TOKEN = re.compile(r"\w+|[^\w\s]")
_PROGRESS = re.compile(r"embedded (\d+)/(\d+) chunks \([\d.]+/s, ETA (\d+)s\)")


class FakeClock:
    """Seconds that pass only when the fake model works."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowEmbedder(FakeEmbedder):
    """The fake model, costing `per_chunk` seconds a chunk plus `per_token` a token it reads
    (words and punctuation, at most its window): the shape measured for the local model.
    From `slower_at` on, every cost is `slowdown` times higher (a machine getting loaded)."""

    def __init__(self, clock: FakeClock, slower_at: float = float("inf"), slowdown: float = 1.0):
        super().__init__()
        self.model_name = "fake-slow-384"
        self.clock, self.slower_at, self.slowdown = clock, slower_at, slowdown
        self.per_chunk, self.per_token = 0.15, 0.008

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        for text in texts:
            tokens = min(len(_TOKEN.findall(text)) + 2, self.max_tokens)
            cost = self.per_chunk + self.per_token * tokens
            self.clock.now += cost * (self.slowdown if self.clock.now >= self.slower_at else 1)
        return super().embed_documents(texts)


def _function(i: int, lines: int) -> str:
    body = "".join(
        f"    total_{k} = compute_part(order_{i}, {k}) + total_{max(k - 1, 0)}\n"
        for k in range(lines)
    )
    return (
        f'def handle_order_{i}(order_{i}):\n    """Handle order {i}."""\n{body}'
        f"    return total_{max(lines - 1, 0)}\n\n\n"
    )


@pytest.fixture
def many_chunks(settings_env, database_url, git_repo):
    """A repository of ~300 functions, most short, a long tail past the model's window."""
    rng = random.Random(48)
    for f in range(12):
        sizes = [rng.choice([0, 1, 1, 2, 3, 5, 8, 12, 20, 40]) for _ in range(25)]
        git_repo.write(
            f"orders/part_{f}.py", "".join(_function(f * 25 + i, n) for i, n in enumerate(sizes))
        )
    sha = git_repo.commit("orders")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    return sha


def _lines_with_truth(messages: list[str], times: list[float], end: float):
    """(seconds since the start, ETA said, seconds it really took) per progress line."""
    out = []
    for message, at in zip(messages, times, strict=True):
        match = _PROGRESS.match(message)
        assert match, message
        out.append((at, int(match.group(3)), end - at))
    return out


def _embed(database_url: str, sha: str, embedder: SlowEmbedder, monkeypatch) -> list:
    # small groups and turns: many progress lines from a few hundred chunks
    monkeypatch.setattr(embedding_step, "COMMIT_EVERY", 24)
    monkeypatch.setattr(embedding_step, "TURN_CHUNKS", 8)
    messages: list[str] = []
    times: list[float] = []

    def progress(message: str) -> None:
        messages.append(message)
        times.append(embedder.clock.now)

    result = embed_snapshot(
        database_url, "shop", sha, embedder, progress=progress, clock=embedder.clock
    )
    assert result["embedded"] > 200 and result["seconds"] == pytest.approx(embedder.clock.now)
    return _lines_with_truth(messages, times, embedder.clock.now)


def test_the_eta_after_the_first_minute_is_within_a_quarter_of_the_time_it_really_took(
    many_chunks, database_url, monkeypatch
):
    lines = _embed(database_url, many_chunks, SlowEmbedder(FakeClock()), monkeypatch)
    judged = [(at, said, real) for at, said, real in lines if at >= 60 and real > 0]
    assert len(judged) >= 5  # minutes of fake embedding, many lines to judge
    for at, said, real in judged:
        assert abs(said - real) <= 0.25 * real, f"at {at:.0f}s: ETA {said}s, took {real:.0f}s"
    assert lines[-1][1] == 0  # done: nothing left


def test_after_the_machine_slows_down_the_eta_follows_within_a_window(
    many_chunks, database_url, monkeypatch
):
    clock = FakeClock()
    lines = _embed(
        database_url, many_chunks, SlowEmbedder(clock, slower_at=150, slowdown=2), monkeypatch
    )
    batch = max(b[0] - a[0] for a, b in zip(lines, lines[1:], strict=False))
    judged = [(at, s, r) for at, s, r in lines if at >= 150 + WINDOW_SECONDS + batch and r > 0]
    assert judged
    for at, said, real in judged:
        assert abs(said - real) <= 0.25 * real, f"at {at:.0f}s: ETA {said}s, took {real:.0f}s"
