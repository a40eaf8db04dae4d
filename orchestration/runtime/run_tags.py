"""The run tags codeatlas writes and reads, named once: what launched a run, where it queues,
and the tags Dagster itself writes that codeatlas reads or sets.

Dagster's UI fills its "Launched by" column from the `user` tag, a schedule's or a sensor's
name, and says "Manually launched" for anything else: every run codeatlas starts outside a
schedule or sensor (the CLI, a model upgrade's backfill) names its launcher in `user`, and
every run says why it exists in `codeatlas/trigger`. Dagster exports no name for its own tags
(its constants live in private modules), and the webhook receiver sets them without importing
Dagster at all, so they are plain strings here; tests/orchestration/test_dagster_internals.py
checks them against the runs Dagster makes.
"""

from __future__ import annotations

from collections.abc import Mapping

TRIGGER_TAG = "codeatlas/trigger"  # cli, webhook, local-commit, nightly, model-upgrade
LAUNCHED_BY_TAG = "user"  # the UI's "Launched by" column shows its value
PRIORITY_TAG = "dagster/priority"  # the run queue's order, and the order of pool-slot claims
PUSH_PRIORITY = "0"  # runs asked for by a person or a push: the CLI, a webhook, a commit
BACKGROUND_PRIORITY = "-1"  # everything else (backfills, the nightly check) queues behind them
MODEL_TAG = "codeatlas/model"  # a model upgrade's runs: the stored model name they embed for
BACKFILL_TAG = "dagster/backfill"
# the partition of a run: what a launch sets and what runs are found by; a step or a check reads
# its own partition from `context.partition_key`
PARTITION_TAG = "dagster/partition"


def priority_of(tags: Mapping[str, str]) -> int:
    """The run's priority (Dagster's default 0 when untagged or unreadable)."""
    try:
        return int(tags.get(PRIORITY_TAG, "0"))
    except ValueError:
        return 0


def launcher_of(tags: Mapping[str, str]) -> str:
    """Why the run exists, in words: `model upgrade to M (backfill b1)`, `webhook push`..."""
    trigger = tags.get(TRIGGER_TAG)
    if trigger == "model-upgrade":
        what = f"model upgrade to {tags.get(MODEL_TAG, '?')}"
    elif trigger == "webhook":
        what = "webhook push"
    elif trigger == "cli":
        what = "codeatlas CLI"
    elif trigger:
        what = trigger
    else:
        what = tags.get(LAUNCHED_BY_TAG) or "launched from the Dagster UI or API"
    if backfill := tags.get(BACKFILL_TAG):
        what += f", backfill {backfill}"
    return what
