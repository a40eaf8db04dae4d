"""The nightly freshness check: every repository's current snapshot against its branch head.

At 03:00 UTC `nightly_freshness` fetches remote repositories and requests an `index_snapshot`
run of the branch head wherever the current snapshot is missing, behind the branch, parsed by an
older parser version, or lacks vectors for the active model. Re-running a partition only does
what is missing (blobs not parsed at this version, contents without vectors), so a run for an
up-to-date repository would be cheap, but none is requested. The run key names the day and the
partition: re-evaluating a tick the same day starts nothing new.
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from dagster import (
    DefaultScheduleStatus,
    RunRequest,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from assets.partitions import partition_key, snapshot_partitions
from assets.resources import IndexDatabase
from core.config import Settings
from core.database import DictConnection, connection
from indexing import git_source, repositories
from indexing.embedding_step import coverage
from indexing.parse_version import effective_parser_version
from orchestration.jobs import index_snapshot_job
from orchestration.runtime.run_tags import TRIGGER_TAG


@dataclass(frozen=True)
class Outdated:
    """A repository whose index needs a run, and why."""

    repository: str
    commit_sha: str
    reason: str


def outdated_repositories(
    conn: DictConnection,
    settings: Settings,
    *,
    fetch: bool = True,
    warn=lambda _msg: None,
) -> list[Outdated]:
    """Repositories whose current snapshot is missing, behind, outdated or lacks vectors."""
    parser = effective_parser_version(settings)
    rows = repositories.with_current_snapshot(conn)
    found = []
    for row in rows:
        try:
            checkout = repositories.git_dir(
                settings, row["origin"], fetch=fetch and git_source.is_remote(row["origin"])
            )
        except Exception as exc:  # noqa: BLE001 - one unreachable remote must not stop the rest
            warn(f"{row['name']}: cannot fetch {row['origin']}: {exc}")
            continue
        head = row["current_commit"]
        if row["default_branch"]:
            try:
                head = git_source.resolve_commit(checkout, row["default_branch"])
            except git_source.GitError as exc:
                warn(f"{row['name']}: {exc}")
        if head is None:
            continue
        reasons = _reasons(conn, row, head, parser)
        if reasons:
            found.append(Outdated(row["name"], head, "; ".join(reasons)))
    return found


def _reasons(conn: DictConnection, row: dict, head: str, parser: str) -> list[str]:
    current = row["current_commit"]
    if current is None:
        return ["never indexed"]
    reasons = []
    if current != head:
        reasons.append(f"current {current[:12]} is behind branch head {head[:12]}")
    if row["parser_version"] != parser:
        reasons.append(f"parsed with {row['parser_version']}, parser is now {parser}")
    model = row["active_embedding_model"]
    if model:
        embedded, total = coverage(conn, row["current_snapshot_id"], model)
        if embedded < total:
            reasons.append(f"{total - embedded} of {total} chunk contents lack {model} vectors")
    return reasons


@schedule(
    name="nightly_freshness",
    cron_schedule="0 3 * * *",
    execution_timezone="UTC",
    job=index_snapshot_job,
    default_status=DefaultScheduleStatus.RUNNING,
    description="Re-verify every repository's current snapshot against its branch head,"
    " parser version and vector coverage; index what is missing or outdated.",
)
def nightly_freshness(context: ScheduleEvaluationContext, index_db: IndexDatabase):
    """Request one run per outdated repository (run key: day + partition)."""
    with connection(index_db.database_url) as conn:
        outdated = outdated_repositories(conn, index_db.settings, warn=context.log.warning)
    if not outdated:
        return SkipReason("every repository is current")
    when = context.scheduled_execution_time or datetime.now(UTC)
    day = when.astimezone(UTC).date().isoformat()
    keys = [partition_key(o.repository, o.commit_sha) for o in outdated]
    assert snapshot_partitions.name is not None
    context.instance.add_dynamic_partitions(snapshot_partitions.name, keys)
    for item in outdated:
        context.log.info(f"{item.repository}: {item.reason}")
    return [
        RunRequest(
            run_key=f"nightly:{day}:{key}",
            partition_key=key,
            tags={TRIGGER_TAG: "nightly", "codeatlas/reason": item.reason[:200]},
        )
        for key, item in zip(keys, outdated, strict=True)
    ]
