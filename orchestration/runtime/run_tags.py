"""The run tags Dagster itself writes that codeatlas reads or sets, named once.

Dagster exports no name for them (its own constants live in private modules), and the webhook
receiver sets them without importing Dagster at all, so they are plain strings here;
tests/orchestration/test_dagster_internals.py checks them against the runs Dagster makes.
"""

from __future__ import annotations

# the partition of a run: what a launch sets and what runs are found by; a step or a check reads
# its own partition from `context.partition_key`
PARTITION_TAG = "dagster/partition"
