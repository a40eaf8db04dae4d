"""SQL statements kept in `.sql` files under the top-level `sql/` package, one folder per owner.

`sql/migrations/` holds the numbered schema migrations; every other folder is named after the
table whose owner runs its statements (`sql/<table>/<name>.sql`, docs/architecture.md), or after
the retriever whose read spans several tables. The files are package data of `sql`, read through
`importlib.resources`, so an installed wheel finds them as an editable checkout does.
Statements keep their parameters as placeholders (`%s`, `%(name)s`): values are always bound
by the driver, never formatted into the text. A few are templates (`statement_template`): their
`{field}`s take constant SQL fragments or literals that the planner must see as text (a partial
index's model name), composed with `psycopg.sql`, never user input formatted into them.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import LiteralString, cast

from psycopg import sql

SQL_PACKAGE = "sql"


def sql_folder(folder: str) -> Traversable:
    """The folder `sql/<folder>/` of the installed `sql` package."""
    return resources.files(SQL_PACKAGE).joinpath(folder)


@cache
def statement(folder: str, name: str) -> LiteralString:
    """The text of `sql/<folder>/<name>.sql` (shipped as package data)."""
    text = sql_folder(folder).joinpath(f"{name}.sql").read_text("utf-8")
    return cast(LiteralString, text)


def statement_template(folder: str, name: str) -> LiteralString:
    """The text of `sql/<folder>/<name>.sql`, a template whose `{field}`s the caller composes."""
    return statement(folder, name)


def composed(template: LiteralString, **fragments: LiteralString) -> sql.Composed:
    """A template with each `{field}` replaced by a fragment of SQL text (another statement
    file's, shared by several statements): constant text, never values."""
    return sql.SQL(template).format(**{k: sql.SQL(v) for k, v in fragments.items()})
