"""The `codeatlas` command line. Each command lives in `codeatlas/commands/<name>.py`."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import warnings

from core.errors import CodeatlasError

# modules that define commands; each has `register(subparsers)`
COMMAND_MODULES = (
    "index",
    "search",
    "locate",
    "status",
    "server",
    "dev",
    "mcp",
    "webhooks",
    "maintenance",
)


def _not_storage_retries(record: logging.LogRecord) -> bool:
    """dagster-postgres warns once a second while PostgreSQL is away; the command says it once."""
    return "dagster_postgres" not in record.pathname


def quiet_library_warnings() -> None:
    """Hide warnings about libraries' own APIs that no setting of ours changes: Dagster's beta,
    preview and supersession notes, platformdirs' XDG_RUNTIME_DIR fallback."""
    for message in (r".*is currently in (beta|preview)", r".*is superseded", r"XDG_RUNTIME_DIR"):
        warnings.filterwarnings("ignore", message=message)


class _Version(argparse.Action):
    """`--version`: the package metadata is read only when asked (reading it costs every other
    command ~40 ms at start-up)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        from core.version import package_version

        print(f"codeatlas {package_version()}")
        parser.exit()


def error_message(exc: CodeatlasError) -> str:
    """The one line a user error prints (the resident query process prints the same)."""
    return f"codeatlas: error: {exc}"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="codeatlas",
        description="Index git repositories for AI agents and search them.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"codeatlas.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"codeatlas.commands.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a command; user errors print one line and exit 1."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    quiet_library_warnings()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_not_storage_retries)
    # SIGTERM and a hang-up (the terminal closed) run the same clean shutdown as Ctrl-C
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CodeatlasError as exc:
        print(error_message(exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("codeatlas: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
