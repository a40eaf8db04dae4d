"""One test per behaviour of Dagster's private APIs that codeatlas relies on
(orchestration/runtime/dagster_internals.py): after a Dagster upgrade, this file fails first and
says which."""

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dagster import (
    DagsterEventType,
    DagsterInstance,
    DagsterRunStatus,
    DynamicPartitionsDefinition,
    InitLoggerContext,
    OpExecutionContext,
    asset,
    in_process_executor,
    job,
    logger,
    op,
    reconstructable,
)

from orchestration.runtime.dagster_internals import (
    CheckRunHealthResult,
    ConfiguredRunLauncher,
    WorkerStatus,
    backfills_tagged,
    capture_interrupts,
    claim_pool_slot,
    cold_run_command,
    engine_event_pid,
    execute_launched_run,
    free_pool_slot,
    free_pool_slots_of_run,
    launch_asset_backfill,
    launch_job_backfill,
    pool_claims_waiting,
    pool_is_limited,
    pool_slot_holders,
    pool_slot_steps,
    pool_slot_users,
    run_log_metadata,
)

# what the recording logger saw (module level: loggers are built by Dagster from config)
RECORDS: list[logging.LogRecord] = []


@op
def say_two_lines(context: OpExecutionContext) -> None:
    """A step that logs one message of two lines."""
    context.log.info("first line\nsecond line")


@job(executor_def=in_process_executor)
def talking_job() -> None:
    say_two_lines()


@op
def fail_loudly() -> None:
    """A step that fails."""
    raise ValueError("this step fails")


@job(executor_def=in_process_executor)
def failing_job() -> None:
    fail_loudly()


@op
def stop_me(context: OpExecutionContext) -> None:
    """A step that asks for its run to be canceled and interrupts its process, as the warm
    launcher's `terminate` does from the UI, then waits to be interrupted."""
    context.instance.report_run_canceling(context.run)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(60)


@job(executor_def=in_process_executor)
def stopped_job() -> None:
    stop_me()


@logger
def recording_logger(_init_context: InitLoggerContext) -> logging.Logger:
    """A logger keeping every record it receives in RECORDS."""

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            RECORDS.append(record)

    log = logging.Logger("recording", level=logging.DEBUG)
    log.addHandler(Keep())
    return log


@job(logger_defs={"recording": recording_logger})
def logged_job() -> None:
    say_two_lines()


class NoticingLauncher(ConfiguredRunLauncher):
    """The least a run launcher that an instance loads from its configuration implements, on
    the adapter's `ConfiguredRunLauncher` (the configurable part), as the warm launcher is."""

    def launch_run(self, context) -> None:
        """Not reached by these tests."""

    def terminate(self, run_id: str) -> bool:
        return False

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run) -> CheckRunHealthResult:
        return CheckRunHealthResult(WorkerStatus.FAILED, "the run's process is gone")


def _launched_run(instance: DagsterInstance, job_def) -> str:
    """A run of `job_def` as a launcher receives it: not started, with a code origin."""
    origin = reconstructable(job_def).get_python_origin()
    run = instance.create_run_for_job(job_def, job_code_origin=origin)
    return run.run_id


def test_a_launched_run_executes_in_this_process_and_records_its_step_events(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        run_id = _launched_run(instance, talking_job)
        execute_launched_run(run_id, instance)
        run = instance.get_run_by_id(run_id)
        assert run is not None and run.status == DagsterRunStatus.SUCCESS
        steps = instance.all_logs(run_id, of_type=DagsterEventType.STEP_SUCCESS)
        assert [e.step_key for e in steps] == ["say_two_lines"]


def test_a_failing_launched_run_is_recorded_failed_not_raised(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        run_id = _launched_run(instance, failing_job)
        execute_launched_run(run_id, instance)  # returns: the failure is the run's
        run = instance.get_run_by_id(run_id)
        assert run is not None and run.status == DagsterRunStatus.FAILURE


def test_an_interrupt_held_by_capture_interrupts_stops_the_run_before_its_first_step(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        run_id = _launched_run(instance, talking_job)
        with capture_interrupts():
            os.kill(os.getpid(), signal.SIGINT)  # held: no KeyboardInterrupt during set-up
            signal.sigtimedwait([], 0)  # a point where Python runs the pending handler
            execute_launched_run(run_id, instance)
        run = instance.get_run_by_id(run_id)
        assert run is not None and run.status == DagsterRunStatus.FAILURE
        assert not instance.all_logs(run_id, of_type=DagsterEventType.STEP_SUCCESS)


def test_a_terminated_run_is_interrupted_inside_its_step_and_ends_canceled(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        run_id = _launched_run(instance, stopped_job)
        with capture_interrupts():
            execute_launched_run(run_id, instance)
        run = instance.get_run_by_id(run_id)
        assert run is not None and run.status == DagsterRunStatus.CANCELED
        assert not instance.all_logs(run_id, of_type=DagsterEventType.STEP_SUCCESS)


def test_without_capture_interrupts_a_sigint_is_a_keyboard_interrupt():
    # the contrast that makes the test above mean something, with Python's own handler: a
    # process started in the background by a shell without job control inherits SIGINT ignored
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            signal.sigtimedwait([], 0)  # a point where Python runs the pending handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_cold_run_command_executes_the_run_in_a_new_process(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        run_id = _launched_run(instance, talking_job)
        run = instance.get_run_by_id(run_id)
        assert run is not None
        command = cold_run_command(run, instance.get_ref())
        assert command[-3:-1] == ["api", "execute_run"]
        # the origin's entry point (`dagster`, or `python -m dagster`) as the launcher runs it
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300, env={**os.environ, "PATH": path}
        )
        assert done.returncode == 0, done.stderr[-2000:]
        after = instance.get_run_by_id(run_id)
        assert after is not None and after.status == DagsterRunStatus.SUCCESS


def test_a_run_without_a_code_origin_has_no_cold_command(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        run = instance.create_run_for_job(talking_job)
        with pytest.raises(ValueError, match="no code origin"):
            cold_run_command(run, instance.get_ref())


def test_log_records_of_a_run_carry_the_step_and_the_whole_message():
    RECORDS.clear()
    logged_job.execute_in_process(run_config={"loggers": {"recording": {}}})
    mine = [r for r in RECORDS if "first line" in r.getMessage()]
    assert mine, [r.getMessage() for r in RECORDS]
    meta = run_log_metadata(mine[0])
    assert meta["step_key"] == "say_two_lines"
    assert meta["orig_message"] == "first line\nsecond line"
    assert run_log_metadata(logging.LogRecord("x", logging.INFO, "f", 1, "plain", (), None)) == {}


def test_an_instance_loads_a_configured_launcher_and_its_health_result_says_why(tmp_path):
    overrides = {"run_launcher": {"module": __name__, "class": "NoticingLauncher"}}
    with DagsterInstance.local_temp(str(tmp_path), overrides=overrides) as instance:
        launcher = instance.run_launcher
        assert isinstance(launcher, NoticingLauncher)
        assert launcher.inst_data is not None
        assert launcher.inst_data.class_name == "NoticingLauncher"
        run = instance.create_run_for_job(talking_job)
        health = launcher.check_run_worker_health(run)
    assert health.status == WorkerStatus.FAILED
    assert health.msg == "the run's process is gone"
    assert {s.name for s in WorkerStatus} >= {"RUNNING", "FAILED", "NOT_FOUND", "UNKNOWN"}


snapshots = DynamicPartitionsDefinition(name="snapshots")


@asset(partitions_def=snapshots)
def vectors() -> None:
    """A partitioned asset to backfill."""


def test_an_asset_backfill_is_registered_with_its_partitions_and_tags_and_found_by_tag(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        instance.add_dynamic_partitions("snapshots", ["a@1", "a@2", "b@1"])
        backfill_id = launch_asset_backfill(
            instance, vectors, ["a@1", "a@2"], {"codeatlas/model": "m2"}, title="upgrade to m2"
        )
        [found] = backfills_tagged(instance, "codeatlas/model", "m2")
        assert backfills_tagged(instance, "codeatlas/model", "m3") == []
        stored = instance.get_backfill(backfill_id)
    assert found.backfill_id == backfill_id
    assert (found.assets, found.partitions) == (("vectors",), ("a@1", "a@2"))
    assert found.status == "REQUESTED" and found.in_progress
    assert found.tags == {"codeatlas/model": "m2"}
    assert stored is not None and stored.is_asset_backfill and stored.title == "upgrade to m2"


def test_a_job_backfill_names_the_job_and_location_of_the_workspace_and_is_found_by_tag(
    tmp_path,
):
    workspace = Path(__file__).resolve().parents[2] / "workspace.yaml"
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        backfill_id = launch_job_backfill(
            instance, str(workspace), "embed_for_model", ["a@2", "a@1"], {"k": "v"}, "upgrade"
        )
        [found] = backfills_tagged(instance, "k", "v")
        stored = instance.get_backfill(backfill_id)
    assert (found.backfill_id, found.job, found.partitions) == (
        backfill_id,
        "embed_for_model",
        ("a@1", "a@2"),
    )
    assert found.in_progress and found.assets == ()
    assert stored is not None and not stored.is_asset_backfill and stored.title == "upgrade"
    origin = stored.partition_set_origin
    assert origin is not None and origin.partition_set_name == "embed_for_model_partition_set"
    # the name the daemon's workspace gives the code location, and Definitions' one repository
    assert origin.repository_origin.code_location_origin.location_name == (
        "orchestration.definitions:defs"
    )
    assert origin.repository_origin.repository_name == "__repository__"


def test_a_freed_slot_goes_to_the_waiting_claim_of_highest_priority_then_the_oldest(tmp_path):
    limited = {"concurrency": {"pools": {"default_limit": 1}}}
    with DagsterInstance.local_temp(str(tmp_path), overrides=limited) as instance:
        assert pool_is_limited(instance, "embedding")
        assert claim_pool_slot(instance, "embedding", "backfill-a", "embed", priority=-1)
        assert not claim_pool_slot(instance, "embedding", "backfill-b", "embed", priority=-1)
        assert not claim_pool_slot(instance, "embedding", "push", "embed", priority=0)
        assert pool_slot_steps(instance, "embedding") == [("backfill-a", "embed")]
        assert sorted(pool_claims_waiting(instance, "embedding")) == [
            ("backfill-b", "embed", -1),
            ("push", "embed", 0),
        ]
        free_pool_slot(instance, "backfill-a", "embed")
        # the push came last but goes first; the older backfill claim still waits
        assert not claim_pool_slot(instance, "embedding", "backfill-b", "embed", priority=-1)
        assert claim_pool_slot(instance, "embedding", "push", "embed", priority=0)
        free_pool_slot(instance, "push", "embed")
        assert claim_pool_slot(instance, "embedding", "backfill-b", "embed", priority=-1)


def test_a_pool_slot_is_held_by_one_run_until_its_step_frees_it(tmp_path):
    limited = {"concurrency": {"pools": {"default_limit": 1}}}
    with DagsterInstance.local_temp(str(tmp_path), overrides=limited) as instance:
        assert pool_is_limited(instance, "embedding")  # the default limit, row created here
        assert claim_pool_slot(instance, "embedding", "run-a", "embed")
        assert not claim_pool_slot(instance, "embedding", "run-b", "embed")
        assert pool_slot_holders(instance, "embedding") == {"run-a"}
        assert pool_slot_users(instance) == {"run-a", "run-b"}  # b's refused claim is queued

        free_pool_slot(instance, "run-a", "embed")
        assert claim_pool_slot(instance, "embedding", "run-b", "embed")
        assert pool_slot_holders(instance, "embedding") == {"run-b"}

        free_pool_slots_of_run(instance, "run-b")
        assert pool_slot_holders(instance, "embedding") == set()
        assert pool_slot_users(instance) == set()


def test_a_claim_queued_unassigned_beside_a_free_slot_gets_the_slot(tmp_path):
    """Dagster's race: a claim decides it cannot be assigned while the holder is freeing its
    slot, and joins the queue after the holder assigned it. Nothing would assign it again; the
    next try queues it anew (a flaky two-runs test waited 180 s on exactly this)."""
    limited = {"concurrency": {"pools": {"default_limit": 1}}}
    with DagsterInstance.local_temp(str(tmp_path), overrides=limited) as instance:
        assert pool_is_limited(instance, "embedding")
        storage = instance.event_log_storage
        # the state the race leaves: no slot held, the claim queued but not assigned
        storage.add_pending_step(
            concurrency_key="embedding", run_id="run-b", step_key="embed", should_assign=False
        )
        assert pool_slot_holders(instance, "embedding") == set()
        assert claim_pool_slot(instance, "embedding", "run-b", "embed")
        assert pool_slot_holders(instance, "embedding") == {"run-b"}
        # an ordinary refused claim, behind a live holder, stays queued and is not re-queued
        assert not claim_pool_slot(instance, "embedding", "run-c", "embed")
        assert not claim_pool_slot(instance, "embedding", "run-c", "embed")
        free_pool_slot(instance, "run-b", "embed")
        assert claim_pool_slot(instance, "embedding", "run-c", "embed")


def test_a_pool_without_a_limit_is_not_limited(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        assert not pool_is_limited(instance, "anything")


def test_the_in_process_executor_logs_the_pid_of_the_run_process(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        result = talking_job.execute_in_process(instance=instance)
        assert engine_event_pid(instance, result.run_id) == os.getpid()
        assert engine_event_pid(instance, "no-such-run") is None
