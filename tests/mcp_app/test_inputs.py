"""The argument types: text PostgreSQL can store, names and paths on one printable line, commits
as hex (lower-cased)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from mcp_app.inputs import Commit, Path, Query, SymbolName


def test_a_commit_is_hex_and_lower_cased():
    commit = TypeAdapter(Commit)
    assert commit.validate_python("ABCDEF12") == "abcdef12"
    assert commit.validate_python(None) is None
    for bad in ("HEAD~1", "abc", "g" * 8):
        with pytest.raises(ValidationError):
            commit.validate_python(bad)


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("a\x00b", "NUL"),
        ("zero\u200bwidth", "control or invisible"),
        ("line\nbreak", "control or invisible"),
        (" padded", "whitespace"),
        ("", "at least 1 item"),
    ],
)
def test_a_name_is_one_printable_line(value, rule):
    with pytest.raises(ValidationError, match=rule):
        TypeAdapter(SymbolName).validate_python(value)


def test_a_path_keeps_its_separators_and_a_query_may_span_lines():
    assert TypeAdapter(Path).validate_python("src/app/[id].tsx") == "src/app/[id].tsx"
    assert TypeAdapter(Query).validate_python("where are\ncents rounded?")
    for bad in ("a\x00", "x\udfff"):
        with pytest.raises(ValidationError):
            TypeAdapter(Query).validate_python(bad)
