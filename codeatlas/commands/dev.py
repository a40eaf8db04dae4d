"""`codeatlas dev`: the Dagster webserver and daemon on the embedded (or configured) database."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, TextIO

from core.config import parse_listen
from core.errors import ConfigurationError

ROOT = Path(__file__).resolve().parent.parent.parent
CLEAN_UP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# warnings in the processes `dagster dev` starts that a user cannot act on (PYTHONWARNINGS
# matches a message's literal start): `dagster dev` is used on purpose, not `dg dev`; the
# embedded server's lock falls back to /tmp when XDG_RUNTIME_DIR is unset
QUIET_WARNINGS = ",".join(
    [
        "ignore:Function `dev_command` is superseded",
        "ignore:XDG_RUNTIME_DIR is not set",
    ]
)


# Dagster's log lines: `<time> - <logger> - <LEVEL> - <message>`, coloured by coloredlogs even
# when nobody reads them on a terminal
_COLOUR_CODE = re.compile(r"\x1b\[[0-9;]*m")
_DEBUG_LINE = re.compile(r"^\S.* - DEBUG - ")


def relay_output(source: IO[bytes], sink: TextIO, *, colour: bool) -> None:
    """Copy the Dagster processes' output line by line without their DEBUG lines (each run
    event, half of all output), and without colour codes unless `sink` is a terminal."""
    for raw in iter(source.readline, b""):
        line = raw.decode("utf-8", errors="replace")
        plain = _COLOUR_CODE.sub("", line)
        if _DEBUG_LINE.match(plain):
            continue
        sink.write(line if colour else plain)
        sink.flush()


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `dev` command."""
    p = subparsers.add_parser("dev", help="open the Dagster UI (webserver + daemon)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=3000)
    p.add_argument(
        "--webhooks",
        metavar="HOST:PORT",
        help="also receive push webhooks there (as `codeatlas webhooks`), each push's run"
        " launched at once through this UI's webserver",
    )
    p.set_defaults(handler=run)


def refuse_taken_port(host: str, port: int) -> None:
    """ConfigurationError when HOST:PORT cannot be listened on (checked before Dagster starts,
    which would log a bind error and keep its daemon running)."""
    try:
        family, _type, _proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM
        )[0]
    except socket.gaierror as exc:
        raise ConfigurationError(f"--host {host!r} is not an address here: {exc}") from exc
    try:
        with socket.create_server(address, family=family):
            pass
    except OSError as exc:
        raise ConfigurationError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}): is another `codeatlas dev`"
            " or Dagster UI running? Stop it, or pass --port with a free port"
        ) from exc


def stop_group(proc: subprocess.Popen, grace: float | None = None) -> None:
    """Stop `dagster dev` and everything it started (webserver, daemon, code servers, runs):
    SIGINT to all of them as a terminal's Ctrl-C would send, then SIGKILL for whatever is left
    after the grace (core/process_guard.py)."""
    from core import process_guard

    # it leads a session of its own, so its group id is its pid
    process_guard.stop_group(
        proc.pid, process_guard.SHUTDOWN_SECONDS if grace is None else grace, leader=proc
    )
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


@contextlib.contextmanager
def _receiving(settings, url: str, listen: tuple[str, int], ui_host: str, ui_port: int):
    """The webhook receiver in this process, launching runs through the UI's webserver (pushes
    that arrive before it answers are left to the sensor)."""
    import logging

    from orchestration.webhooks.app import build_app
    from orchestration.webhooks.background import serving
    from orchestration.webhooks.launch import DirectLauncher, Webserver
    from orchestration.webhooks.spool import DeliverySpool

    logging.basicConfig(format="%(asctime)s - codeatlas.webhooks - %(levelname)s - %(message)s")
    logging.getLogger("codeatlas.webhooks").setLevel(logging.INFO)
    local = "127.0.0.1" if ui_host in ("0.0.0.0", "::", "") else ui_host
    webserver = Webserver(f"http://{local}:{ui_port}")
    launcher = DirectLauncher(settings, url, webserver)
    app = build_app(
        url,
        secret_key=settings.secret_key,
        launcher=launcher,
        spool=DeliverySpool.in_state_dir(settings.state_dir),
    )
    with serving(app, *listen) as base:
        print(f"receiving push webhooks on {base}/webhooks", file=sys.stderr)
        yield


def run(args: argparse.Namespace) -> int:
    """Start `dagster dev` with this project's workspace; the database stays up while it runs.
    Ctrl-C, SIGTERM, SIGHUP or an error stop it and all of its processes; SIGKILL too, through
    a guard process (core/process_guard.py)."""
    from core.config import load_settings
    from core.database import ensure_index_database
    from core.process_guard import start_guard
    from orchestration.instance import prepare_dagster_home

    refuse_taken_port(args.host, args.port)
    webhooks = parse_listen(args.webhooks, "--webhooks") if args.webhooks else None
    if webhooks is not None:
        refuse_taken_port(*webhooks)
    settings = load_settings()
    url = ensure_index_database(settings)
    home = prepare_dagster_home(settings)
    print(f"Dagster UI on http://{args.host}:{args.port} (DAGSTER_HOME={home})", file=sys.stderr)
    cmd = [
        sys.executable,
        "-m",
        "dagster",
        "dev",
        "-w",
        str(ROOT / "workspace.yaml"),
        "--host",
        args.host,
        "--port",
        str(args.port),
        "--log-level",
        "info",
    ]
    warning_filters = [os.environ.get("PYTHONWARNINGS", ""), QUIET_WARNINGS]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "PYTHONWARNINGS": ",".join(filter(None, warning_filters)),
    }
    # a session of its own: one signal to its group reaches every process Dagster starts, and
    # none is left behind (reparented to init) when this process is told to stop
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    threading.Thread(
        target=relay_output,
        args=(proc.stdout, sys.stderr),
        kwargs={"colour": sys.stderr.isatty()},
        daemon=True,
    ).start()
    # and if this process dies without its clean-up (SIGKILL), a guard stops the group
    start_guard(proc.pid)
    try:
        with contextlib.ExitStack() as receiver:
            if webhooks is not None:
                receiver.enter_context(_receiving(settings, url, webhooks, args.host, args.port))
            return proc.wait()
    finally:
        # a second SIGTERM or a hang-up must not cut the clean-up short
        previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in CLEAN_UP_SIGNALS}
        try:
            stop_group(proc)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
