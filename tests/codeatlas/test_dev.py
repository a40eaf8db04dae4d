"""`codeatlas dev` as a user runs it: a real `dagster dev` with its webserver, daemon and code
server, stopped by SIGTERM; a taken port refused in one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import warnings

import httpx
import psutil
import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def running(pids: set[int]) -> set[int]:
    """The pids still running (a zombie waiting to be reaped has stopped)."""
    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_a_taken_port_is_refused_in_one_line_before_anything_starts(settings_env):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "codeatlas.cli", "dev", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"codeatlas: error: cannot listen on 127.0.0.1:{port} (")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_sigterm_stops_dagster_dev_and_every_process_it_started(settings_env, tmp_path):
    port = free_port()
    log = (tmp_path / "dev.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeatlas.cli", "dev", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    started: set[int] = set()
    try:
        deadline = time.monotonic() + 240  # two shared cores: Dagster takes its time
        while True:
            assert proc.poll() is None, (tmp_path / "dev.log").read_text()
            assert time.monotonic() < deadline, "the Dagster UI did not answer within 240 s"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/server_info", timeout=2).is_success:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        started = {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}
        names = " ".join(" ".join(psutil.Process(p).cmdline()) for p in started)
        assert "dagster_webserver" in names and "dagster._daemon" in names

        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=90)
        deadline = time.monotonic() + 15
        while running(started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert running(started) == set(), "processes left behind after SIGTERM"
        output = (tmp_path / "dev.log").read_text()
        assert "Traceback" not in output
        assert "Warning" not in output  # e.g. dagster dev's "superseded, use 'dg dev'"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in running(started):
            os.kill(pid, signal.SIGKILL)
        log.close()


def test_the_cli_hides_library_notes_a_user_cannot_act_on():
    from dagster_shared.utils.warnings import BetaWarning, SupersessionWarning

    from codeatlas.cli import quiet_library_warnings

    notes = [
        ("Parameter `owners` of `SensorDefinition` is currently in beta", BetaWarning),
        ("Function `dev_command` is superseded and its usage is discouraged", SupersessionWarning),
        ("XDG_RUNTIME_DIR is not set, falling back to /tmp/runtime-0", UserWarning),
        ("CODEATLAS_SOMETHING is deprecated", UserWarning),
    ]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        quiet_library_warnings()
        for message, category in notes:
            warnings.warn(message, category, stacklevel=1)
    assert [str(w.message) for w in seen] == ["CODEATLAS_SOMETHING is deprecated"]


def start_dev(port: int, log_path) -> tuple[subprocess.Popen, set[int]]:
    """`codeatlas dev` with its UI answering, and every process it started by then."""
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeatlas.cli", "dev", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log.close()
    deadline = time.monotonic() + 240  # two shared cores: Dagster takes its time
    while True:
        assert proc.poll() is None, log_path.read_text()
        assert time.monotonic() < deadline, "the Dagster UI did not answer within 240 s"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/server_info", timeout=2).is_success:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return proc, {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_dagster_dev_and_its_processes_go_when_codeatlas_dev_is_killed_or_hung_up(
    settings_env, tmp_path, sig
):
    """Killed with SIGKILL, `codeatlas dev` runs no clean-up: its guard stops the group that
    `dagster dev` leads in a session of its own (issue 27: it ran on for an hour)."""
    proc, started = start_dev(free_port(), tmp_path / "dev.log")
    try:
        names = " ".join(" ".join(psutil.Process(p).cmdline()) for p in started)
        assert "dagster_webserver" in names and "core.process_guard" in names
        proc.send_signal(sig)
        proc.wait(timeout=90)
        deadline = time.monotonic() + 90  # the guard's grace (10 s) and Dagster's shutdown
        while running(started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert running(started) == set(), "processes left behind after " + sig.name
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in running(started):
            os.kill(pid, signal.SIGKILL)


def test_dagster_output_is_relayed_without_debug_lines_and_without_colour_when_piped():
    import io

    from codeatlas.commands.dev import relay_output

    info = (
        "\x1b[32m2026-12-03 09:24:29 +0000\x1b[0m - dagster.daemon.SensorDaemon -"
        " \x1b[34mINFO\x1b[0m - Sensor webhook_push_sensor skipped\n"
    )
    debug = (
        "\x1b[32m2026-12-03 09:24:31 +0000\x1b[0m - dagster - \x1b[34mDEBUG\x1b[0m -"
        ' index_snapshot - 1c2d - STEP_START - Started execution of step "code_index".\n'
    )
    plain = "a line of its own\n"
    source = (info + debug + plain).encode()

    piped = io.StringIO()
    relay_output(io.BytesIO(source), piped, colour=False)
    assert piped.getvalue() == (
        "2026-12-03 09:24:29 +0000 - dagster.daemon.SensorDaemon - INFO -"
        " Sensor webhook_push_sensor skipped\n" + plain
    )
    terminal = io.StringIO()
    relay_output(io.BytesIO(source), terminal, colour=True)
    assert terminal.getvalue() == info + plain


def test_dev_with_webhooks_receives_a_push_and_launches_its_run_through_its_own_ui(
    settings_env, database_url, tmp_path
):
    """`codeatlas dev --webhooks`: the receiver runs beside the UI and launches a push's run
    through it; with the sensor stopped, only that launch can index the push."""
    from orchestration.webhooks.launch import LAUNCHED_BY_TAG, Webserver
    from tests.orchestration.daemon import stop_sensor
    from tests.orchestration.pushes import headers, lexical_hits, push_payload, pushed_repository

    pushed = pushed_repository(database_url, tmp_path)
    body = push_payload(pushed["origin"], pushed["first"], pushed["second"])
    port, hooks = free_port(), free_port()
    log = (tmp_path / "dev.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeatlas.cli", "dev", "--port", str(port)]
        + ["--webhooks", f"127.0.0.1:{hooks}"],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240  # two shared cores: Dagster takes its time
        ui = Webserver(f"http://127.0.0.1:{port}", timeout=5)
        while True:
            assert proc.poll() is None, (tmp_path / "dev.log").read_text()
            assert time.monotonic() < deadline, "the Dagster UI did not serve the job in 240 s"
            try:
                ui.selector()
                break
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.5)
        stop_sensor(ui, "webhook_push_sensor")
        answer = httpx.post(
            f"http://127.0.0.1:{hooks}/webhooks",
            content=body,
            headers=headers(body, "dev-1"),
            timeout=10,
        )
        assert answer.status_code == 202, answer.text
        while not lexical_hits(database_url, "store credit"):
            assert proc.poll() is None, (tmp_path / "dev.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "dev.log").read_text()
            time.sleep(0.5)
        runs = ui.query(
            "query ($t: [ExecutionTag!]) { runsOrError(filter: {tags: $t}) {"
            " ... on Runs { results { runId status } } } }",
            {"t": [{"key": LAUNCHED_BY_TAG, "value": "webhook receiver"}]},
        )["runsOrError"]["results"]
        # searchable once published; the run may still be embedding
        assert len(runs) == 1 and runs[0]["status"] in ("STARTED", "SUCCESS"), runs
        ui.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    output = (tmp_path / "dev.log").read_text()
    assert f"receiving push webhooks on http://127.0.0.1:{hooks}/webhooks" in output
    assert "Traceback" not in output
