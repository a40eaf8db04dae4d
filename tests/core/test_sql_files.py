"""Statements kept in `sql/`: every one the code names exists and every file is shipped."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from core.layers import package_folders
from core.sql_files import statement, statement_template

ROOT = Path(__file__).resolve().parents[2]
CALL = re.compile(r"\b(statement|statement_template)\(\s*\"(\w+)\",\s*\"(\w+)\"\s*\)")


def _named_in_code() -> set[tuple[str, str, str]]:
    """(loader, folder, name) of every statement the code loads."""
    found: set[tuple[str, str, str]] = set()
    for folder in package_folders():
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(CALL.findall(path.read_text()))
    return found


def _comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.lstrip().startswith("--"))


def test_every_statement_the_code_names_exists_and_has_no_format_fields():
    named = _named_in_code()
    assert {loader for loader, _, _ in named} == {"statement", "statement_template"}
    for loader, folder, name in named:
        text = (statement if loader == "statement" else statement_template)(folder, name)
        assert text.strip(), f"sql/{folder}/{name}.sql is empty"
        # a placeholder in a comment is still a parameter to psycopg, a field still a field
        assert not re.search(r"[{}%]", _comments(text)), f"sql/{folder}/{name}.sql: a comment"
        if loader == "statement":
            # values are bound by the driver (`%(name)s`), never formatted into the text
            assert "{" not in text, f"sql/{folder}/{name}.sql has a format field"


def test_every_statement_file_is_loaded_by_the_code():
    named = {f"{folder}/{name}.sql" for _, folder, name in _named_in_code()}
    files = {
        path.relative_to(ROOT / "sql").as_posix()
        for path in (ROOT / "sql").rglob("*.sql")
        if path.parent.name != "migrations"
    }
    assert files == named


def test_every_statement_file_is_package_data_of_sql():
    # tests/test_packaging.py checks the built wheel; this is the quick check of the globs
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = data["package-data"]["sql"]
    for path in (ROOT / "sql").rglob("*.sql"):
        inside = path.relative_to(ROOT / "sql")
        assert any(inside.match(glob) for glob in globs), f"sql/{inside} is not package data"
