"""`codeatlas server start|stop|status`: the embedded PostgreSQL, which stays up between commands
for CODEATLAS_SERVER_IDLE_SECONDS (core/embedded_server.py), and the resident query
process that answers searches meanwhile (codeatlas/resident.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.config import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `server` command."""
    p = subparsers.add_parser("server", help="start, stop or show the embedded PostgreSQL")
    actions = p.add_subparsers(dest="server_command", required=True, metavar="ACTION")
    a = actions.add_parser("start", help="start it now and warm its caches")
    a.set_defaults(handler=start)
    a = actions.add_parser("stop", help="stop it now instead of after the idle period")
    a.add_argument("--force", action="store_true", help="stop it even while other processes use it")
    a.set_defaults(handler=stop)
    a = actions.add_parser("status", help="whether it runs, who uses it, when it stops")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=status)


def _pgdata(settings: Settings) -> Path:
    if settings.database_url:
        from core.errors import ConfigurationError

        raise ConfigurationError(
            "CODEATLAS_DATABASE_URL is set: codeatlas uses that server and does not start or"
            " stop one; unset it to use the embedded server"
        )
    return settings.state_dir / "postgres"


def describe(settings: Settings) -> dict[str, Any]:
    """The embedded server's state, for `status` and `server status`."""
    from core import embedded_server, query_socket

    info = embedded_server.describe(_pgdata(settings))
    info["idle_seconds"] = settings.server_idle_seconds
    info["query_process"] = query_socket.resident_pid(settings.state_dir)
    return info


def summary(info: dict[str, Any]) -> str:
    """One line: running or not, its users, when it stops."""
    idle = info["idle_seconds"]
    period = f"{idle // 60} min" if idle % 60 == 0 and idle else f"{idle} s"
    if not info["running"]:
        return "embedded PostgreSQL stopped (the next command starts it)"
    users = len(info["users"])
    when = f"{period} after the last one exits" if idle else "when the last one exits"
    resident = info.get("query_process")
    answered = f"; searches answered by the resident query process (pid {resident})"
    return (
        f"embedded PostgreSQL running (pid {info['pid']}, {users} process"
        f"{'' if users == 1 else 'es'} using it); stops {when}"
        " (CODEATLAS_SERVER_IDLE_SECONDS), or now with `codeatlas server stop`"
        + (answered if resident else "")
    )


def start(args: argparse.Namespace) -> int:
    """Start the server (if needed), read the index's search structures into its cache, and
    start the resident query process (it loads what a query needs)."""
    import time

    from codeatlas import resident
    from core.config import load_settings
    from core.database import ensure_index_database
    from core.warming import warm

    settings = load_settings()
    _pgdata(settings)
    began = time.monotonic()
    url = ensure_index_database(settings)
    pages = warm(url)
    resident.start(settings)
    print(
        f"{summary(describe(settings))}; {pages} pages of the index warmed in"
        f" {time.monotonic() - began:.1f} s",
        file=sys.stderr,
    )
    return 0


def stop(args: argparse.Namespace) -> int:
    """Stop the server and the resident query process now; refuse while other processes use the
    server unless --force."""
    import os

    from core import embedded_server, query_socket
    from core.config import load_settings
    from core.errors import ConfigurationError

    settings = load_settings()
    pgdata = _pgdata(settings)
    others = [pid for pid in embedded_server.users(pgdata) if pid != os.getpid()]
    if others and not args.force:
        raise ConfigurationError(
            f"{len(others)} running process(es) use the embedded server (pids"
            f" {', '.join(map(str, others))}): stop them first, or pass --force"
        )
    if query_socket.stop(settings.state_dir):
        print("stopped the resident query process", file=sys.stderr)
    if embedded_server.stop(pgdata):
        print(f"stopped the embedded PostgreSQL in {pgdata}", file=sys.stderr)
    else:
        print("the embedded PostgreSQL was not running", file=sys.stderr)
    return 0


def status(args: argparse.Namespace) -> int:
    """Print the server's state without starting it."""
    from core.config import load_settings

    info = describe(load_settings())
    if args.json:
        print(json.dumps(info))
    else:
        print(summary(info))
    return 0
