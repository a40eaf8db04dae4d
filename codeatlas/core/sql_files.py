"""SQL statements kept in `.sql` files beside the code that runs them (`<package>/sql/*.sql`).

Statements keep their parameters as placeholders (`%s`, `%(name)s`): values are always bound
by the driver, never formatted into the text.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import LiteralString, cast


@cache
def statement(package: str, name: str) -> LiteralString:
    """The text of `sql/<name>.sql` in `package` (shipped as package data)."""
    text = resources.files(package).joinpath("sql", f"{name}.sql").read_text("utf-8")
    return cast(LiteralString, text)
