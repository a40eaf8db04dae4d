"""`codeatlas dev`: the Dagster webserver and daemon on the embedded (or configured) database."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `dev` command."""
    p = subparsers.add_parser("dev", help="open the Dagster UI (webserver + daemon)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", default="3000")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Start `dagster dev` with this project's workspace; the database stays up while it runs."""
    from codeatlas.config import load_settings
    from codeatlas.database import ensure_index_database
    from orchestration.instance import prepare_dagster_home

    settings = load_settings()
    ensure_index_database(settings)
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
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        return proc.wait(timeout=30)
