"""The parser version stored with parses changes whenever the same blob would chunk otherwise."""

from __future__ import annotations

from dataclasses import replace

from core.config import load_settings
from indexing.parse_version import effective_parser_version
from indexing.parsing.parser import PARSER_VERSION


def test_the_token_window_is_part_of_the_version(settings_env):
    settings = load_settings()
    narrow = effective_parser_version(replace(settings, chunk_max_tokens=128))
    wide = effective_parser_version(replace(settings, chunk_max_tokens=512))
    assert narrow != wide
    assert narrow.startswith(PARSER_VERSION) and wide.startswith(PARSER_VERSION)
