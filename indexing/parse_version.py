"""The parser version stored with parses: the parser's own plus settings that change chunks."""

from __future__ import annotations

from core.config import Settings
from indexing.parsing.parser import PARSER_VERSION


def effective_parser_version(settings: Settings) -> str:
    """Bumps whenever the chunks of the same blob would differ (parser or token window)."""
    return f"{PARSER_VERSION}-w{settings.chunk_max_tokens}"
