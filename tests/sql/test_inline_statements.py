"""Long statements live in `sql/`: what stays inline in Python is a few lines at most."""

from __future__ import annotations

from pathlib import Path

from tests.sql.source_sql import inline_sql

MAX_INLINE_LINES = 8  # longer statements go to sql/<owner>/<name>.sql (docs/architecture.md)


def test_no_inline_statement_is_longer_than_eight_lines():
    found = list(inline_sql())
    assert len(found) > 50, "the SQL finder found almost nothing: its pattern is out of date"
    long = [f"{s.where()} ({s.lines} lines)" for s in found if s.lines > MAX_INLINE_LINES]
    assert not long, f"move these statements to sql/: {long}"


def test_the_finder_sees_joined_and_formatted_statements_but_not_docstrings(tmp_path: Path):
    module = tmp_path / "planted.py"
    module.write_text(
        '"""A docstring that says SELECT name FROM somewhere."""\n'
        "QUERY = (\n"
        '    "SELECT a"\n'
        '    + f" FROM {TABLE}"\n'
        '    " WHERE b = %s"\n'
        ")\n"
        'OTHER = "not sql at all"\n'
        'WRITE = conn.execute("UPDATE repositories r SET name = %s", (name,))\n'
    )
    found = [(s.line, s.lines, s.text) for s in inline_sql([module])]
    assert found == [
        (3, 3, "SELECT a FROM {} WHERE b = %s"),
        (8, 1, "UPDATE repositories r SET name = %s"),
    ]
