"""Holding a Dagster concurrency-pool slot from inside a step, with a wait that ends, handed
over between batches to claims that come first.

Dagster 1.13's in-process executor waits for a `pool=` slot in a loop that spins at full CPU,
has no time limit and never sees Ctrl-C (interrupts are only raised inside steps). So the
embedding step claims its slot itself, through the same storage: the pool, its limit and its
holders still show in the UI, and other runs and ops of the pool wait on the same slots. While
waiting it frees slots whose run has no live process, says whom it waits for, and gives up
after `timeout` seconds.

A step that works in batches holds the slot per batch (`PoolTurns.turn`): after each batch it
keeps the slot unless a claim of at least its own priority waits, and then hands it over. A
model upgrade's backfill runs at background priority, so a push's embedding waits one batch of
it, not the whole run (issue 48: 435 s); two pushes take turns batch by batch. Dagster gives
a freed slot to the waiting claim of highest priority, the oldest first among equals.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from dagster import DagsterInstance

from core.config import Settings
from core.errors import CodeatlasError
from orchestration.runtime.dagster_internals import (
    claim_pool_slot,
    free_pool_slot,
    pool_claims_waiting,
    pool_is_limited,
    pool_slot_steps,
)
from orchestration.runtime.run_liveness import describe, mark_run_process, reap_dead_runs
from orchestration.runtime.run_tags import launcher_of, priority_of

EMBEDDING_POOL = "embedding_provider"  # one embedding step at a time (dagster.yaml's limit)
# publishing rewrites a repository's lexical statistics and switches its current snapshot: with
# many workers, these short write transactions queue here instead of contending in PostgreSQL
DATABASE_WRITES_POOL = "index_database_writes"
POLL_SECONDS = 1.0
SAY_EVERY_SECONDS = 30.0


class SlotWaitTimeoutError(CodeatlasError):
    """A pool slot stayed held by live runs for longer than allowed."""


def _run_text(instance: DagsterInstance, run_id: str, step: str) -> str:
    run = instance.get_run_by_id(run_id)
    if run is None:
        return f"run {run_id[:8]} (step {step}, a run no longer stored)"
    return f"{describe(run)}: step {step}, launched by {launcher_of(run.tags)}"


def holders_text(instance: DagsterInstance, pool: str, run_id: str, priority: int = 0) -> str:
    """Whom a claim of `run_id` waits for: each run holding a slot of `pool` (the step, the
    asset, it holds it for, and what launched it), else the claims in line before it."""
    held = [
        _run_text(instance, holder, step)
        for holder, step in sorted(pool_slot_steps(instance, pool))
        if holder != run_id
    ]
    if held:
        return "; ".join(held)
    ahead = [
        _run_text(instance, other, step)
        for other, step, other_priority in pool_claims_waiting(instance, pool)
        if other != run_id and other_priority >= priority
    ]
    return "the claim before it in line, " + "; ".join(ahead) if ahead else ""


class PoolTurns:
    """A step's turns at a slot of `pool`: `turn()` around each batch (see the module doc);
    `release()` when the step is done or fails."""

    def __init__(self, context, pool: str, settings: Settings, poll: float = POLL_SECONDS):
        self._context = context
        self._instance: DagsterInstance = context.instance
        self._run = context.run
        self._pool = pool
        self._settings = settings
        self._poll = poll
        self.priority = priority_of(self._run.tags)
        mark_run_process(self._instance, self._run)
        self.limited = pool_is_limited(self._instance, pool)
        self._step_key = context.get_step_execution_context().step.key if self.limited else ""
        self.held = False
        self.handovers = 0  # how often this step gave the slot to a waiting claim

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Hold the slot while the block (one batch) runs; afterwards keep it unless a claim of
        at least this step's priority waits."""
        if not self.limited:
            yield
            return
        if not self.held:
            self._wait_for_slot()
        yield
        if self._claim_waits_that_goes_first():
            self.release()
            self.handovers += 1

    def release(self) -> None:
        """Free the slot (or the queued claim) of this step."""
        if self.limited:
            free_pool_slot(self._instance, self._run.run_id, self._step_key)
        self.held = False

    def _claim_waits_that_goes_first(self) -> bool:
        return any(
            run_id != self._run.run_id and priority >= self.priority
            for run_id, _step, priority in pool_claims_waiting(self._instance, self._pool)
        )

    def _wait_for_slot(self) -> None:
        instance, run_id, pool = self._instance, self._run.run_id, self._pool
        timeout = self._settings.run_wait_seconds
        started = time.monotonic()
        said = -SAY_EVERY_SECONDS
        while not claim_pool_slot(instance, pool, run_id, self._step_key, self.priority):
            reap_dead_runs(instance, self._settings, log=self._context.log.warning)
            waited = time.monotonic() - started
            holders = (
                holders_text(instance, pool, run_id, self.priority) or "a run that just finished"
            )
            if waited >= timeout:
                raise SlotWaitTimeoutError(
                    f"waited {waited:.0f}s for the {pool!r} concurrency slot, held by {holders}."
                    " It is alive; wait for it to finish (`codeatlas dev` shows it) and run the"
                    " same command again, or raise CODEATLAS_RUN_WAIT_SECONDS."
                )
            if waited - said >= SAY_EVERY_SECONDS:
                self._context.log.info(
                    f"step {self._step_key} is waiting for the {pool!r} concurrency slot"
                    f" (one holder at a time), held by {holders}. Holders hand the slot over"
                    f" between batches to a waiting claim of at least their priority; this"
                    f" run's is {self.priority} ({waited:.0f}s so far, giving up after"
                    f" {timeout:.0f}s)"
                )
                said = waited
            # plain sleep: Ctrl-C inside a step raises here, and release() frees the claim
            time.sleep(self._poll)
        self.held = True


@contextlib.contextmanager
def pool_turns(context, pool: str, settings: Settings, poll: float = POLL_SECONDS):
    """The step's `PoolTurns` on `pool`; whatever it holds or queued is freed on leaving."""
    turns = PoolTurns(context, pool, settings, poll)
    try:
        yield turns
    finally:
        turns.release()


@contextlib.contextmanager
def pool_slot(context, pool: str, settings: Settings, poll: float = POLL_SECONDS) -> Iterator[None]:
    """Hold a slot of `pool` for this step while the block runs; wait at most
    `settings.run_wait_seconds` for runs that are alive to free one."""
    with pool_turns(context, pool, settings, poll) as turns, turns.turn():
        yield
