"""A push's run launched by the receiver itself, through the Dagster webserver's GraphQL API.

Without it a stored push waits for `webhook_push_sensor`, whose daemon passes over the sensors
on a fixed 5 s loop: 2.5 s on average, up to 5 s, before the run is even created (lab/LOG.md,
"Push to searchable"). With `CODEATLAS_DAGSTER_URL` (the webserver of `codeatlas dev`) the
receiver wakes `DirectLauncher` after it stores a push; the launcher plans pending events exactly
as the sensor does (`plan_pushes`: the newest push per repository, its commit fetched, an
already indexed commit skipped, the events marked queued) and submits each run to the webserver,
which queues it like any other run (the push priority, the run queue's limits).

The sensor stays the path that always works: an event the launcher could not launch (the
webserver down or refusing) goes back to pending, with the reason, for the sensor's next tick,
and events are locked while either of them plans, so a push gets one run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import httpx

from core.config import Settings
from core.database import DictConnection, connection
from orchestration.runtime.run_tags import LAUNCHED_BY_TAG as UI_LAUNCHED_BY_TAG
from orchestration.runtime.run_tags import PARTITION_TAG
from orchestration.webhooks import events

log = logging.getLogger("codeatlas.webhooks")
JOB = "index_snapshot"  # orchestration/jobs.py's index_snapshot_job
PARTITIONS = "snapshots"  # assets/partitions.py's snapshot_partitions
LAUNCHED_BY_TAG = "codeatlas/launched_by"

_REPOSITORIES = """
query { repositoriesOrError { __typename
  ... on RepositoryConnection { nodes { name location { name } pipelines { name } } }
  ... on PythonError { message } } }
"""
_ADD_PARTITION = """
mutation ($selector: RepositorySelector!, $name: String!, $key: String!) {
  addDynamicPartition(repositorySelector: $selector, partitionsDefName: $name, partitionKey: $key)
  { __typename ... on PythonError { message } ... on UnauthorizedError { message } } }
"""
_LAUNCH = """
mutation ($params: ExecutionParams!) { launchRun(executionParams: $params) { __typename
  ... on LaunchRunSuccess { run { runId } }
  ... on PythonError { message } ... on UnauthorizedError { message }
  ... on PipelineNotFoundError { message } ... on RunConflict { message }
  ... on RunConfigValidationInvalid { errors { message } } } }
"""


class LaunchError(Exception):
    """The webserver did not launch a run (unreachable, refused, or an error in its answer)."""


class Webserver:
    """The GraphQL API of a Dagster webserver serving this project's workspace."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(timeout=timeout)
        self._selector: dict[str, str] | None = None

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()

    def query(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The `data` of a GraphQL query or mutation (LaunchError if there is none)."""
        try:
            answer = self._http.post(
                f"{self.url}/graphql", json={"query": query, "variables": variables or {}}
            )
            answer.raise_for_status()
            body = answer.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise LaunchError(f"the Dagster webserver at {self.url} did not answer: {exc}") from exc
        if body.get("errors"):
            raise LaunchError(f"the Dagster webserver refused a request: {body['errors'][0]}")
        return body["data"]

    def selector(self) -> dict[str, str]:
        """The code location and repository that hold the index job (asked once)."""
        if self._selector is None:
            found = self.query(_REPOSITORIES)["repositoriesOrError"]
            for node in found.get("nodes", []):
                if any(job["name"] == JOB for job in node["pipelines"]):
                    self._selector = {
                        "repositoryLocationName": node["location"]["name"],
                        "repositoryName": node["name"],
                    }
                    break
            else:
                detail = found.get("message") or "no loaded code location has it"
                raise LaunchError(f"the webserver at {self.url} has no job {JOB!r}: {detail}")
        return self._selector

    def add_partition(self, key: str) -> None:
        """Add a snapshot partition (one that exists already is fine)."""
        variables = {"selector": self.selector(), "name": PARTITIONS, "key": key}
        result = self.query(_ADD_PARTITION, variables)["addDynamicPartition"]
        if result["__typename"] not in (
            "AddDynamicPartitionSuccess",
            "DuplicateDynamicPartitionError",
        ):
            raise LaunchError(f"adding partition {key}: {result.get('message', result)}")

    def launch(self, partition: str, tags: dict[str, str]) -> str:
        """Submit a run of the index job for `partition`; its run id."""
        all_tags = {**tags, PARTITION_TAG: partition}
        params = {
            "selector": {**self.selector(), "jobName": JOB},
            "runConfigData": {},
            "executionMetadata": {"tags": [{"key": k, "value": v} for k, v in all_tags.items()]},
        }
        result = self.query(_LAUNCH, {"params": params})["launchRun"]
        if result["__typename"] != "LaunchRunSuccess":
            self._selector = None  # a reloaded or renamed code location: ask again next time
            detail = result.get("message") or result.get("errors") or result["__typename"]
            raise LaunchError(f"launching {partition}: {detail}")
        return result["run"]["runId"]


def launch_pushes(conn: DictConnection, settings: Settings, webserver: Webserver) -> list[str]:
    """Plan the pending pushes as the sensor does and launch their runs; the run ids. An event
    whose run was not launched is pending again (with why), for the sensor."""
    from orchestration.sensors import plan_pushes  # Dagster's import, only where this runs

    launched = []
    with conn.transaction():  # the events stay locked until their runs are submitted
        plan = plan_pushes(conn, settings)
        for request in plan.runs:
            tags = {str(k): str(v) for k, v in request.tags.items()}
            event_id = int(tags["codeatlas/webhook_event"])
            assert request.partition_key is not None and request.run_key is not None
            tags.update(
                {
                    "dagster/run_key": request.run_key,
                    LAUNCHED_BY_TAG: "webhook receiver",
                    # the UI's "Launched by" column (else "Manually launched")
                    UI_LAUNCHED_BY_TAG: "codeatlas webhook receiver",
                }
            )
            try:
                webserver.add_partition(request.partition_key)
                launched.append(webserver.launch(request.partition_key, tags))
            except LaunchError as exc:
                events.mark_pending(conn, event_id, f"{exc}; left to the sensor"[:1000])
                log.warning("push %s left to the sensor: %s", request.partition_key, exc)
    for problem in plan.retrying + plan.failed:
        log.warning(problem)
    return launched


class DirectLauncher:
    """A thread that launches stored pushes' runs as soon as the receiver wakes it."""

    def __init__(
        self,
        settings: Settings,
        database_url: str,
        webserver: Webserver,
        on_launch: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.settings = settings
        self.database_url = database_url
        self.webserver = webserver
        self.on_launch = on_launch  # tests and benchmarks: the run ids of each pass
        self._wake = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="push-launcher", daemon=True)

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def wake(self) -> None:
        """A push was stored: plan and launch now."""
        self._wake.set()

    def close(self, timeout: float = 15.0) -> None:
        """Stop after the current pass."""
        self._closed = True
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self.webserver.close()

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            try:
                with connection(self.database_url) as conn:
                    launched = launch_pushes(conn, self.settings, self.webserver)
            except Exception as exc:  # noqa: BLE001 - the sensor launches whatever is left
                log.warning("launching pushes failed (the sensor will launch them): %s", exc)
                continue
            if self.on_launch is not None:
                self.on_launch(launched)
