"""Statements kept in `.sql` files: every one the code names exists and is shipped."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from codeatlas.core.layers import package_folders
from codeatlas.core.sql_files import statement

ROOT = Path(__file__).resolve().parents[3]
CALL = re.compile(r"statement\(\s*\"([\w.]+)\",\s*\"(\w+)\"\s*\)")


def _named_in_code() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for folder in package_folders():
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(CALL.findall(path.read_text()))
    return found


def test_every_statement_the_code_names_exists_and_has_no_format_fields():
    named = _named_in_code()
    assert named, "no statement(...) calls found: the pattern is out of date"
    for package, name in named:
        text = statement(package, name)
        assert text.strip(), f"{package}/sql/{name}.sql is empty"
        # values are bound by the driver (`%(name)s`), never formatted into the text
        assert "{" not in text, f"{package}/sql/{name}.sql has a format field"


def test_every_package_with_statements_ships_them_as_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = data["package-data"]
    for package in {package for package, _ in _named_in_code()}:
        assert "sql/*.sql" in shipped.get(package, []), f"{package}'s sql/ is not package data"
