"""The console logger of index runs: one short line per message, for a person at a terminal.

Dagster's default console logger prints every failure with its whole stack trace (hundreds of
lines when PostgreSQL stops under a run). Runs keep their full events in the event log (the UI
shows them); the terminal gets the message's first line, and the command's own one-line error.
"""

from __future__ import annotations

import logging
import sys

from dagster import Field, InitLoggerContext, logger

from orchestration.runtime.dagster_internals import run_log_metadata


class _FirstLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        meta = run_log_metadata(record)
        text = str(meta.get("orig_message") or record.getMessage()).strip()
        first = text.splitlines()[0] if text else ""
        step = meta.get("step_key")
        stamp = self.formatTime(record, "%H:%M:%S")
        return f"{stamp} {step}: {first}" if step else f"{stamp} {first}"


@logger(
    config_schema={
        "log_level": Field(str, is_required=False, default_value="INFO"),
        "name": Field(str, is_required=False, default_value="codeatlas"),
    },
    description="One line per message on stderr (full events stay in the run's event log).",
)
def console_lines(init_context: InitLoggerContext) -> logging.Logger:
    """A logger writing each message's first line to stderr."""
    config = init_context.logger_config
    # the standard library's level names ("INFO", "critical" upper-cased), as Dagster's own
    log = logging.Logger(config["name"], level=config["log_level"].upper())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_FirstLine())
    log.addHandler(handler)
    return log
