"""Holding a Dagster concurrency-pool slot from inside a step, with a wait that ends.

Dagster 1.13's in-process executor waits for a `pool=` slot in a loop that spins at full CPU,
has no time limit and never sees Ctrl-C (interrupts are only raised inside steps). So the
embedding step claims its slot itself, through the same storage: the pool, its limit and its
holders still show in the UI, and other runs and ops of the pool wait on the same slots. While
waiting it frees slots whose run has no live process, says whom it waits for, and gives up
after `timeout` seconds.
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
    pool_is_limited,
    pool_slot_holders,
)
from orchestration.runtime.run_liveness import describe, mark_run_process, reap_dead_runs

EMBEDDING_POOL = "embedding_provider"  # one embedding step at a time (dagster.yaml's limit)
# publishing rewrites a repository's lexical statistics and switches its current snapshot: with
# many workers, these short write transactions queue here instead of contending in PostgreSQL
DATABASE_WRITES_POOL = "index_database_writes"
POLL_SECONDS = 1.0
SAY_EVERY_SECONDS = 30.0


class SlotWaitTimeoutError(CodeatlasError):
    """A pool slot stayed held by live runs for longer than allowed."""


def _holders(instance: DagsterInstance, pool: str, run_id: str) -> str:
    others = sorted(pool_slot_holders(instance, pool) - {run_id})
    runs = [instance.get_run_by_id(r) for r in others]
    return ", ".join(
        describe(r) if r else f"run {i[:8]}" for i, r in zip(others, runs, strict=True)
    )


@contextlib.contextmanager
def pool_slot(context, pool: str, settings: Settings, poll: float = POLL_SECONDS) -> Iterator[None]:
    """Hold a slot of `pool` for this step while the block runs; wait at most
    `settings.run_wait_seconds` for runs that are alive to free one."""
    timeout = settings.run_wait_seconds
    instance: DagsterInstance = context.instance
    run = context.run
    mark_run_process(instance, run)
    if not pool_is_limited(instance, pool):
        yield
        return
    step_key = context.get_step_execution_context().step.key
    started = time.monotonic()
    said = -SAY_EVERY_SECONDS
    try:
        while not claim_pool_slot(instance, pool, run.run_id, step_key):
            reap_dead_runs(instance, settings, log=context.log.warning)
            waited = time.monotonic() - started
            holders = _holders(instance, pool, run.run_id) or "a run that just finished"
            if waited >= timeout:
                raise SlotWaitTimeoutError(
                    f"waited {waited:.0f}s for the {pool!r} concurrency slot, held by {holders}."
                    " It is alive; wait for it to finish (`codeatlas dev` shows it) and run the"
                    " same command again, or raise CODEATLAS_RUN_WAIT_SECONDS."
                )
            if waited - said >= SAY_EVERY_SECONDS:
                context.log.info(
                    f"waiting for the {pool!r} concurrency slot, held by {holders}"
                    f" ({waited:.0f}s so far, giving up after {timeout:.0f}s)"
                )
                said = waited
            # plain sleep: Ctrl-C inside a step raises here, and the finally frees the claim
            time.sleep(poll)
        yield
    finally:
        free_pool_slot(instance, run.run_id, step_key)
