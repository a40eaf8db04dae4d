"""Statements kept in `sql/`: every one the code names exists and every file is shipped."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from codeatlas.core.sql_files import statement

ROOT = Path(__file__).resolve().parents[3]
CALL = re.compile(r"statement\(\s*\"([\w.]+)\",\s*\"(\w+)\"\s*\)")


def _named_in_code() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for folder in ("codeatlas", "indexing", "assets", "orchestration", "retrieval", "mcp_app"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(CALL.findall(path.read_text()))
    return found


def test_every_statement_the_code_names_exists_and_has_no_format_fields():
    named = _named_in_code()
    assert named, "no statement(...) calls found: the pattern is out of date"
    for folder, name in named:
        text = statement(folder, name)
        assert text.strip(), f"sql/{folder}/{name}.sql is empty"
        # values are bound by the driver (`%(name)s`), never formatted into the text
        assert "{" not in text, f"sql/{folder}/{name}.sql has a format field"


def test_every_statement_file_is_package_data_of_sql():
    # tests/test_packaging.py checks the built wheel; this is the quick check of the globs
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = data["package-data"]["sql"]
    for path in (ROOT / "sql").rglob("*.sql"):
        inside = path.relative_to(ROOT / "sql")
        assert any(inside.match(glob) for glob in globs), f"sql/{inside} is not package data"
