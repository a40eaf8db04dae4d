"""The SQL written in the Python sources, found by reading them (for the tests of `sql/`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.layers import DATA_FOLDERS, package_folders

ROOT = Path(__file__).resolve().parents[2]
# the shipped packages whose statements these rules cover: every one (core/layers.py)
SOURCE_FOLDERS = tuple(folder for folder in package_folders() if folder not in DATA_FOLDERS)
_STATEMENT = re.compile(
    r"\b(SELECT\b.*\bFROM|INSERT\s+INTO|UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM|COPY\s+\w+"
    r"|TRUNCATE)\b",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class InlineSql:
    """One string expression of a module that holds SQL (adjacent and `+`-joined parts as one)."""

    path: Path
    line: int
    lines: int
    text: str

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _text(node: ast.expr) -> str | None:
    """The literal text of a string expression, with `{}` for what is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "{}") + (right if right is not None else "{}")
    return None


def _outermost_strings(tree: ast.AST) -> Iterator[ast.expr]:
    """String expressions not inside a larger one."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Expr) and _text(node.value) is not None:
            continue  # a docstring
        if isinstance(node, ast.expr) and _text(node) is not None:
            yield node
        else:
            yield from _outermost_strings(node)


def source_files() -> list[Path]:
    """The Python modules of the source folders."""
    return [path for folder in SOURCE_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))]


def inline_sql(paths: list[Path] | None = None) -> Iterator[InlineSql]:
    """Every string expression of the modules (default: the source folders') holding SQL."""
    for path in source_files() if paths is None else paths:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in _outermost_strings(tree):
            text = _text(node)
            if text and _STATEMENT.search(text):
                end = node.end_lineno or node.lineno
                yield InlineSql(path, node.lineno, end - node.lineno + 1, text)
