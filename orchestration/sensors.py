"""Sensors: pushes stored by the webhook receiver become index runs; local commits too.

`webhook_push_sensor` (running by default) reads pending `webhook_events`. Per repository only
the newest pending push gets a run: a commit holds the repository's whole state, so indexing the
newest one loses nothing of the earlier pushes of a burst, which are marked `superseded`. The run
key is the delivery, so a redelivered push never starts a second run. A failed fetch leaves the
event pending for the next tick (its attempts and error are in the event row) until
MAX_ATTEMPTS, then marks it `failed`. The database rows are the truth; the cursor records the
highest event id handled, for the UI.

`local_commit_sensor` (stopped by default) polls the tracked branch of local-path repositories.
"""

import json
from dataclasses import dataclass, field

from dagster import (
    AddDynamicPartitionsRequest,
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from assets.partitions import partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from core.config import Settings
from core.database import DictConnection, connection
from indexing import git_source, repositories
from indexing.parse_version import effective_parser_version
from orchestration.jobs import PRIORITY_TAG, PUSH_PRIORITY, index_snapshot_job
from orchestration.runtime.run_tags import TRIGGER_TAG
from orchestration.webhooks import events

MAX_ATTEMPTS = 5
EVENTS_PER_TICK = 500
# Run requests carry no run config: index_snapshot_job declares its executor itself, so a request
# can never name one the job does not accept. Pushes run ahead of backfills (PUSH_PRIORITY).


@dataclass
class PushPlan:
    """What one tick decided: runs to request and how each event was handled."""

    runs: list[RunRequest] = field(default_factory=list)
    partitions: list[str] = field(default_factory=list)
    last_event_id: int = 0
    queued: int = 0
    superseded: int = 0
    indexed: int = 0
    retrying: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def commit_is_indexed(conn: DictConnection, repo_id: int, sha: str, parser: str) -> bool:
    """Whether the commit is the repository's current snapshot at this parser version."""
    return repositories.commit_is_current(conn, repo_id, sha, parser)


def fetch_commit(settings: Settings, origin: str, sha: str) -> None:
    """Make `sha` available locally: fetch a remote's mirror, then check the commit is there."""
    checkout = repositories.git_dir(settings, origin, fetch=git_source.is_remote(origin))
    git_source.git(checkout, "cat-file", "-e", f"{sha}^{{commit}}")


def plan_pushes(conn: DictConnection, settings: Settings, after_id: int = 0) -> PushPlan:
    """Turn pending events into run requests and mark every event handled (one transaction)."""
    plan = PushPlan(last_event_id=after_id)
    parser = effective_parser_version(settings)
    with conn.transaction():
        rows = events.lock_pending(conn, EVENTS_PER_TICK)
        newest: dict[int, dict] = {}
        for row in rows:
            newest[row["repository_id"]] = row  # ordered by id: the last one wins
            plan.last_event_id = max(plan.last_event_id, row["id"])
        for row in rows:
            keep = newest[row["repository_id"]]
            if row["id"] != keep["id"]:
                events.mark(
                    conn,
                    row["id"],
                    "superseded",
                    f"superseded by event {keep['id']} ({keep['after_sha'][:12]})",
                )
                plan.superseded += 1
        for event in newest.values():
            _plan_one(conn, settings, parser, event, plan)
    return plan


def _plan_one(conn, settings: Settings, parser: str, event: dict, plan: PushPlan) -> None:
    name, sha = event["repo_name"], event["after_sha"]
    try:
        fetch_commit(settings, event["origin"], sha)
    except Exception as exc:  # noqa: BLE001 - any fetch failure is retried, then reported
        attempts = event["attempts"] + 1
        detail = f"fetch attempt {attempts}/{MAX_ATTEMPTS} failed: {exc}"[:1000]
        status = "failed" if attempts >= MAX_ATTEMPTS else "pending"
        events.mark_fetch_failed(conn, event["id"], attempts, detail, status)
        (plan.failed if status == "failed" else plan.retrying).append(f"{name}: {detail}")
        return
    if commit_is_indexed(conn, event["repository_id"], sha, parser):
        events.mark(conn, event["id"], "indexed", "the commit is already the current snapshot")
        plan.indexed += 1
        return
    key = partition_key(name, sha)
    run_key = f"webhook:{event['provider']}:{event['delivery_id']}"
    plan.partitions.append(key)
    plan.runs.append(
        RunRequest(
            run_key=run_key,
            partition_key=key,
            tags={
                TRIGGER_TAG: "webhook",
                "codeatlas/webhook_event": str(event["id"]),
                PRIORITY_TAG: PUSH_PRIORITY,
            },
        )
    )
    events.mark_queued(conn, event["id"], run_key)
    plan.queued += 1


def _cursor(context: SensorEvaluationContext) -> dict:
    try:
        return json.loads(context.cursor) if context.cursor else {}
    except ValueError:
        return {}


@sensor(
    name="webhook_push_sensor",
    job=index_snapshot_job,
    # every pass of the sensor daemon (one each 5 s, Dagster's fixed loop): with 5 here a tick
    # that began a moment early was skipped, and a push waited up to 10 s
    minimum_interval_seconds=1,
    default_status=DefaultSensorStatus.RUNNING,
    description="Index the newest pushed commit of each repository (events from"
    " `codeatlas webhooks`); run key = delivery id.",
)
def webhook_push_sensor(context: SensorEvaluationContext, index_db: IndexDatabase):
    """One tick: pending push events → partitions + run requests; events marked."""
    cursor = _cursor(context)
    with connection(index_db.database_url) as conn:
        plan = plan_pushes(conn, index_db.settings, int(cursor.get("last_event_id", 0)))
    for problem in plan.retrying + plan.failed:
        context.log.warning(problem)
    new_cursor = json.dumps({"last_event_id": plan.last_event_id})
    if not plan.runs:
        summary = (
            f"no new pushes to index ({plan.superseded} superseded, {plan.indexed}"
            f" already indexed, {len(plan.retrying)} retrying, {len(plan.failed)} failed)"
        )
        return SensorResult(skip_reason=SkipReason(summary), cursor=new_cursor)
    assert snapshot_partitions.name is not None
    return SensorResult(
        run_requests=plan.runs,
        dynamic_partitions_requests=[
            AddDynamicPartitionsRequest(snapshot_partitions.name, sorted(set(plan.partitions)))
        ],
        cursor=new_cursor,
    )


def new_local_commits(
    conn: DictConnection, settings: Settings, seen: dict[str, str]
) -> list[tuple[str, str]]:
    """(repository, head sha) of local-path repositories whose tracked branch moved."""
    rows = repositories.tracked_heads(conn)
    moved = []
    for row in rows:
        if git_source.is_remote(row["origin"]):
            continue
        try:
            head = git_source.resolve_commit(
                repositories.git_dir(settings, row["origin"]), row["default_branch"]
            )
        except Exception:  # noqa: BLE001 - a moved or deleted checkout is skipped, not fatal
            continue
        if head != row["current"] and head != seen.get(row["name"]):
            moved.append((row["name"], head))
    return moved


@sensor(
    name="local_commit_sensor",
    job=index_snapshot_job,
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.STOPPED,
    description="For local-path repositories without webhooks: index a new commit on the"
    " tracked branch.",
)
def local_commit_sensor(context: SensorEvaluationContext, index_db: IndexDatabase):
    """One tick: compare each local repository's branch head with its current snapshot."""
    seen: dict[str, str] = _cursor(context)
    with connection(index_db.database_url) as conn:
        moved = new_local_commits(conn, index_db.settings, seen)
    if not moved:
        return SensorResult(skip_reason="no local repository moved", cursor=json.dumps(seen))
    keys = [partition_key(name, sha) for name, sha in moved]
    seen.update(dict(moved))
    assert snapshot_partitions.name is not None
    return SensorResult(
        run_requests=[
            RunRequest(
                run_key=f"local:{key}",
                partition_key=key,
                tags={TRIGGER_TAG: "local-commit", PRIORITY_TAG: PUSH_PRIORITY},
            )
            for key in keys
        ],
        dynamic_partitions_requests=[AddDynamicPartitionsRequest(snapshot_partitions.name, keys)],
        cursor=json.dumps(seen, sort_keys=True),
    )
