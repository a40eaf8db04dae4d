"""The console logger of index runs: one short line per message, for a person at a terminal.

Dagster's default console logger prints every failure with its whole stack trace (hundreds of
lines when PostgreSQL stops under a run). Runs keep their full events in the event log (the UI
shows them); the terminal gets the message's first line, and the command's own one-line error.
"""

from __future__ import annotations

import logging
import sys

from dagster import Field, InitLoggerContext, logger
from dagster._core.log_manager import LOG_RECORD_METADATA_ATTR
from dagster._utils.log import coerce_valid_log_level


class _FirstLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        meta = getattr(record, LOG_RECORD_METADATA_ATTR, None) or {}
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
    log = logging.Logger(config["name"], level=coerce_valid_log_level(config["log_level"]))
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_FirstLine())
    log.addHandler(handler)
    return log
