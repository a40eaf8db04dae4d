"""Every private Dagster API codeatlas relies on, and only here.

Dagster's public namespace (`import dagster`) has no base class for a run launcher, no way to
execute a launched run in the current process (what `dagster api execute_run` does), no hold
on Ctrl-C between a run's steps, no accessor for the metadata it puts on log records, no way
to launch or list an asset backfill outside the UI's GraphQL (which needs a webserver), and no
documented API for concurrency-pool slots or the pid in a run's engine events. The warm run
launcher (orchestration/run_launcher.py, run_worker.py), the console logger
(orchestration/console_log.py), model upgrades (orchestration/model_upgrade.py), the step's own
pool slot (runtime/pool_slots.py) and run reaping (runtime/run_liveness.py) need them, so they
come from `dagster._…` modules or undocumented storage methods, used in this module alone: ruff's
TID253 bans them at module level everywhere else, and tests/test_dagster_boundary.py finds any
other import. tests/orchestration/test_dagster_internals.py holds one test per behaviour relied
on: after a Dagster upgrade it fails first and says which.

It sits in `orchestration/runtime/`, the lowest layer that imports Dagster (below the assets),
so every layer above can use it.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from dagster import AssetsDefinition, DagsterEventType, DagsterInstance, DagsterRun
from dagster._cli.api import _execute_run_command_body
from dagster._core.definitions.assets.graph.asset_graph import AssetGraph
from dagster._core.definitions.repository_definition.valid_definitions import (
    SINGLETON_REPOSITORY_NAME,
)
from dagster._core.execution.backfill import BulkActionStatus, PartitionBackfill
from dagster._core.instance.ref import InstanceRef
from dagster._core.launcher import (
    CheckRunHealthResult,
    LaunchRunContext,
    RunLauncher,
    WorkerStatus,
)
from dagster._core.log_manager import LOG_RECORD_METADATA_ATTR
from dagster._core.remote_origin import RemotePartitionSetOrigin, RemoteRepositoryOrigin
from dagster._core.remote_representation.external_data import (
    job_name_for_partition_set_snap_name,
    partition_set_snap_name_for_job_name,
)
from dagster._core.workspace.load import location_origins_from_yaml_paths
from dagster._grpc.types import ExecuteRunArgs
from dagster._serdes import ConfigurableClass, ConfigurableClassData
from dagster._utils.interrupts import capture_interrupts

__all__ = [
    "Backfill",
    "CheckRunHealthResult",
    "ConfigurableClassData",
    "ConfiguredRunLauncher",
    "InstanceRef",
    "LaunchRunContext",
    "RunLauncher",
    "WorkerStatus",
    "capture_interrupts",
    "claim_pool_slot",
    "engine_event_pid",
    "free_pool_slot",
    "free_pool_slots_of_run",
    "pool_claims_waiting",
    "pool_is_limited",
    "pool_slot_holders",
    "pool_slot_steps",
    "pool_slot_users",
    "cold_run_command",
    "execute_launched_run",
    "launch_asset_backfill",
    "launch_job_backfill",
    "backfills_tagged",
    "run_log_metadata",
]


class ConfiguredRunLauncher(RunLauncher, ConfigurableClass):
    """A run launcher an instance loads from its configuration (`run_launcher: module, class`)
    and that takes no settings: what Dagster's private `ConfigurableClass` asks of one (its
    `inst_data`, an empty config type, a constructor from the configuration), written once."""

    def __init__(self, inst_data: ConfigurableClassData | None = None):
        self._inst_data = inst_data
        super().__init__()

    @property
    def inst_data(self) -> ConfigurableClassData | None:
        return self._inst_data

    @classmethod
    def config_type(cls) -> dict:
        return {}

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData, config_value: Mapping[str, Any]
    ) -> Self:
        return cls(inst_data=inst_data)


def execute_launched_run(run_id: str, instance: DagsterInstance) -> None:
    """Execute the launched run `run_id` in this process, as `dagster api execute_run` does:
    its job loaded from the run's code origin, its events and pid recorded, a failure recorded
    on the run rather than raised, cancellation honoured."""
    _execute_run_command_body(
        run_id,
        instance,
        write_stream_fn=lambda _event: None,
        set_exit_code_on_failure=False,
    )


def cold_run_command(run: DagsterRun, instance_ref: InstanceRef) -> list[str]:
    """The command line of Dagster's own (cold) process for `run`: `dagster api execute_run`
    with the run's serialized arguments."""
    if run.job_code_origin is None:
        raise ValueError(f"run {run.run_id} has no code origin to load its job from")
    return list(
        ExecuteRunArgs(
            job_origin=run.job_code_origin,
            run_id=run.run_id,
            instance_ref=instance_ref,
            set_exit_code_on_failure=True,
        ).get_command_args()
    )


def run_log_metadata(record: logging.LogRecord) -> Mapping[str, Any]:
    """What Dagster attached to a log record of a run (`step_key`, `orig_message`, `run_id`...);
    empty for records that did not come through a run's log manager."""
    return getattr(record, LOG_RECORD_METADATA_ATTR, None) or {}


@dataclass(frozen=True)
class Backfill:
    """What codeatlas reads of one backfill: its id, status, tags, target assets and partitions."""

    backfill_id: str
    status: str  # Dagster's BulkActionStatus name: REQUESTED, COMPLETED_SUCCESS, ...
    tags: Mapping[str, str]
    assets: tuple[str, ...]  # an asset backfill's asset keys as the UI writes them
    partitions: tuple[str, ...]
    job: str | None = None  # a job backfill's job (its runs carry this name)

    @property
    def in_progress(self) -> bool:
        """Whether the backfill daemon may still launch runs of it."""
        return self.status in ("REQUESTED", "CANCELING", "FAILING")


def launch_asset_backfill(
    instance: DagsterInstance,
    asset: AssetsDefinition,
    partition_keys: list[str],
    tags: Mapping[str, str],
    title: str,
) -> str:
    """Register a backfill of `asset` over `partition_keys` (the UI's "Materialize selected"
    backfill): the daemon's backfill loop launches one run per partition, each with `tags`.
    Returns the backfill's id."""
    graph = AssetGraph.from_assets([asset])  # its resources are the code location's business
    backfill_id = uuid.uuid4().hex[:8]  # the UI's form of a backfill id
    instance.add_backfill(
        PartitionBackfill.from_asset_partitions(
            backfill_id=backfill_id,
            asset_graph=graph,
            partition_names=partition_keys,
            asset_selection=[asset.key],
            backfill_timestamp=time.time(),
            tags=dict(tags),
            dynamic_partitions_store=instance,
            all_partitions=False,
            title=title,
            description=None,
            run_config=None,
        )
    )
    return backfill_id


def launch_job_backfill(
    instance: DagsterInstance,
    workspace_yaml: str,
    job_name: str,
    partition_keys: list[str],
    tags: Mapping[str, str],
    title: str,
) -> str:
    """Register a backfill of the partitioned job `job_name` of the one code location of
    `workspace_yaml` over `partition_keys` (what `dagster job backfill` does): the daemon's
    backfill loop launches one run of that job per partition, each with `tags`, so the UI names
    the runs after the job (an asset backfill's runs are all `__ASSET_JOB`). Returns its id."""
    [location] = location_origins_from_yaml_paths([workspace_yaml])
    origin = RemotePartitionSetOrigin(
        repository_origin=RemoteRepositoryOrigin(
            code_location_origin=location, repository_name=SINGLETON_REPOSITORY_NAME
        ),
        partition_set_name=partition_set_snap_name_for_job_name(job_name),
    )
    backfill_id = uuid.uuid4().hex[:8]
    instance.add_backfill(
        PartitionBackfill(
            backfill_id=backfill_id,
            partition_set_origin=origin,
            status=BulkActionStatus.REQUESTED,
            partition_names=list(partition_keys),
            from_failure=False,
            reexecution_steps=None,
            tags=dict(tags),
            backfill_timestamp=time.time(),
            title=title,
        )
    )
    return backfill_id


def backfills_tagged(instance: DagsterInstance, key: str, value: str) -> list[Backfill]:
    """The backfills whose tag `key` is `value`, newest first."""
    found = []
    for backfill in instance.get_backfills():
        if backfill.tags.get(key) != value:
            continue
        partitions: tuple[str, ...] = tuple(sorted(backfill.partition_names or ()))
        assets: tuple[str, ...] = ()
        job = None
        if backfill.partition_set_origin is not None:
            job = job_name_for_partition_set_snap_name(
                backfill.partition_set_origin.partition_set_name
            )
        if backfill.is_asset_backfill and backfill.asset_backfill_data is not None:
            target = backfill.asset_backfill_data.target_subset
            assets = tuple(sorted(k.to_user_string() for k in target.asset_keys))
            partitions = tuple(
                sorted(
                    key
                    for subset in target.partitions_subsets_by_asset_key.values()
                    for key in subset.get_partition_keys()
                )
            )
        found.append(
            Backfill(
                backfill.backfill_id,
                BulkActionStatus(backfill.status).value,
                dict(backfill.tags),
                assets,
                partitions,
                job,
            )
        )
    return found


def pool_is_limited(instance: DagsterInstance, pool: str) -> bool:
    """Whether `pool` has a slot limit in the instance's storage (the instance's default limit
    applies to a pool never configured: its row is created here, as Dagster's executor does)."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return False
    default = storage.get_pool_config().default_pool_limit
    info = {p.name: p for p in storage.get_pool_limits()}.get(pool)
    if (info is None and default is not None) or (
        info is not None and info.from_default and info.limit != default
    ):
        # two first runs may both set it: the loser's error leaves the winner's row
        with contextlib.suppress(Exception):
            storage.initialize_concurrency_limit_to_default(pool)
        info = {p.name: p for p in storage.get_pool_limits()}.get(pool)
    return info is not None


def claim_pool_slot(
    instance: DagsterInstance, pool: str, run_id: str, step_key: str, priority: int = 0
) -> bool:
    """Try once to claim a slot of `pool` for a step; whether it is held now (a refused claim
    stays queued as the step's pending claim until freed; a freed slot goes to the queued claim
    of highest `priority`, the oldest first among equals)."""
    storage = instance.event_log_storage
    status = storage.claim_concurrency_slot(pool, run_id, step_key, priority)
    # has_unassigned_slots: on the SQL storages only, not on their base class (tested)
    if (
        status.is_claimed or status.is_assigned or not storage.has_unassigned_slots(pool)  # pyright: ignore[reportAttributeAccessIssue]
    ):
        return status.is_claimed
    # A slot is free and no queued claim is assigned to it, yet this one waits: it joined the
    # queue while the last holder was freeing its slot (Dagster decides whether a new claim is
    # assigned before inserting it, and a holder assigns the queue only as it frees), so nothing
    # would ever assign it. Queued again, it is assigned the free slot.
    storage.free_concurrency_slot_for_step(run_id, step_key)
    return storage.claim_concurrency_slot(pool, run_id, step_key, priority).is_claimed


def free_pool_slot(instance: DagsterInstance, run_id: str, step_key: str) -> None:
    """Free the step's slot, or its pending claim."""
    instance.event_log_storage.free_concurrency_slot_for_step(run_id, step_key)


def pool_slot_holders(instance: DagsterInstance, pool: str) -> set[str]:
    """Ids of the runs holding a slot of `pool`."""
    return {s.run_id for s in instance.event_log_storage.get_concurrency_info(pool).claimed_slots}


def pool_slot_steps(instance: DagsterInstance, pool: str) -> list[tuple[str, str]]:
    """(run id, step key) of each step holding a slot of `pool`."""
    info = instance.event_log_storage.get_concurrency_info(pool)
    return [(s.run_id, s.step_key) for s in info.claimed_slots]


def pool_claims_waiting(instance: DagsterInstance, pool: str) -> list[tuple[str, str, int]]:
    """(run id, step key, priority) of each queued claim on `pool` that holds no slot yet (a
    held slot keeps its claim in the queue until freed: those are left out)."""
    info = instance.event_log_storage.get_concurrency_info(pool)
    holding = {(s.run_id, s.step_key) for s in info.claimed_slots}
    return [
        (p.run_id, p.step_key, p.priority or 0)
        for p in info.pending_steps
        if (p.run_id, p.step_key) not in holding
    ]


def pool_slot_users(instance: DagsterInstance) -> set[str]:
    """Ids of the runs holding or waiting for a slot of any pool."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return set()
    users: set[str] = set()
    for pool in storage.get_concurrency_keys():
        info = storage.get_concurrency_info(pool)
        users.update(slot.run_id for slot in info.claimed_slots)
        users.update(step.run_id for step in info.pending_steps)
    return users


def free_pool_slots_of_run(instance: DagsterInstance, run_id: str) -> None:
    """Free every slot and pending claim of a run."""
    instance.event_log_storage.free_concurrency_slots_for_run(run_id)


def engine_event_pid(instance: DagsterInstance, run_id: str) -> int | None:
    """The pid Dagster's executor logged for the run ("Executing steps in process (pid: N)")."""
    for entry in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT):
        event = entry.dagster_event
        data = getattr(event, "event_specific_data", None) if event else None
        pid = getattr(data, "metadata", {}).get("pid") if data else None
        if pid is not None:
            with contextlib.suppress(TypeError, ValueError):
                return int(getattr(pid, "value", pid))
    return None


def sensor_tick_started(instance: DagsterInstance, sensor: str, run_id: str) -> float | None:
    """When the tick of sensor `sensor` that requested run `run_id` began (None: not among its
    last 20 ticks): the sensor states and their ticks have no public reader."""
    from dagster._core.scheduler.instigation import InstigatorType

    for state in instance.all_instigator_state(instigator_type=InstigatorType.SENSOR):
        if state.instigator_name != sensor:
            continue
        for tick in instance.get_ticks(state.instigator_origin_id, state.selector_id, limit=20):
            if run_id in tick.run_ids:
                return tick.timestamp
    return None
