"""`Settings` is the only reader of the environment: no module but core/config.py reads
a `CODEATLAS_*` variable (a source scan), so a setting has one owner and one documented name.

Writing variables for child processes (`os.environ[...] = ...`, `setdefault`) and handing the
whole environment to a child (`{**os.environ}`, `dict(os.environ)`) stay allowed, as do reads
of other programs' variables by a name written at the read (`PYTHONPATH`, `DAGSTER_HOME`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.layers import LAYERS

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "core/config.py"
# the test and benchmark harness's own variables, never read by codeatlas itself
HARNESS = {
    "CODEATLAS_TEST_CACHE": "corpora/languages.py",
    "CODEATLAS_EVAL_DIR": "benchmarks/scoring.py",
}
WRITES = {"setdefault", "pop", "update", "copy"}  # `copy`: a child's environment


def _is_environ(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "environ" and isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id == "environ"


def _is_getenv(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "getenv" and isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id == "getenv"


def _read_of(key: ast.AST | None, line: int, path: str) -> str | None:
    """Why reading the variable `key` names is not allowed here (None: it is)."""
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return f"{path}:{line} reads a variable whose name is not written at the read"
    name = key.value
    if name.startswith("CODEATLAS_") and HARNESS.get(name) != path:
        return f"{path}:{line} reads {name}: add a field to Settings and pass it down"
    return None


def environment_reads(source: str, path: str) -> list[str]:
    """The reads of the environment in one module's source that only config.py may do."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[str | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_getenv(node.func):
            found.append(_read_of(node.args[0] if node.args else None, node.lineno, path))
        if not _is_environ(node):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "get":
            call = parents.get(parent)
            args = call.args if isinstance(call, ast.Call) else []
            found.append(_read_of(args[0] if args else None, node.lineno, path))
        elif isinstance(parent, ast.Attribute) and parent.attr in WRITES:
            continue
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            if isinstance(parent.ctx, ast.Load):
                found.append(_read_of(parent.slice, node.lineno, path))
        elif (
            # {**os.environ, ...} or dict(os.environ): a child's environment
            (isinstance(parent, ast.Dict) and node in parent.values)
            or (isinstance(parent, ast.Call) and getattr(parent.func, "id", None) == "dict")
            or isinstance(parent, ast.ImportFrom)
        ):
            continue
        else:
            found.append(f"{path}:{node.lineno} uses the environment in a way the scan cannot read")
    return [reason for reason in found if reason]


def _modules() -> list[Path]:
    """The project's modules (not the fetched code under hidden folders like benchmarks/.work)."""
    folders = {layer.folder.split("/")[0] for layer in LAYERS if layer.folder != "tests"}
    return sorted(
        p
        for folder in folders
        for p in (ROOT / folder).rglob("*.py")
        if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    )


def test_no_module_but_config_reads_a_codeatlas_variable():
    reads = [
        reason
        for path in _modules()
        if (name := str(path.relative_to(ROOT))) != CONFIG
        for reason in environment_reads(path.read_text(), name)
    ]
    assert reads == []


def test_config_reads_the_variables_it_owns():
    assert environment_reads((ROOT / CONFIG).read_text(), CONFIG)


@pytest.mark.parametrize(
    "source",
    [
        'import os\nos.environ.get("CODEATLAS_X")',
        'import os\nos.environ["CODEATLAS_X"]',
        'import os\nos.getenv("CODEATLAS_X", "1")',
        'from os import environ\nenviron.get("CODEATLAS_X")',
        'import os\nNAME = "CODEATLAS_X"\nos.environ.get(NAME)',
        'import os\nenv = os.environ\nenv.get("CODEATLAS_X")',
        'import os\n"CODEATLAS_X" in os.environ',
    ],
)
def test_the_scan_sees_each_way_of_reading_a_variable(source: str):
    assert environment_reads(source, "mcp_app/planted.py")


@pytest.mark.parametrize(
    "source",
    [
        'import os\nos.environ["CODEATLAS_X"] = "1"',
        'import os\nos.environ.setdefault("CODEATLAS_X", "1")',
        'import os\nenv = {**os.environ, "CODEATLAS_X": "1"}',
        "import os\nenv = dict(os.environ)",
        'import os\nos.environ.get("PYTHONPATH", "")',
    ],
)
def test_the_scan_allows_writes_for_children_and_other_programs_variables(source: str):
    assert environment_reads(source, "mcp_app/planted.py") == []


# where a process starts: these read the settings once and pass them (or a piece) down
ENTRY_POINTS = {
    "codeatlas/commands/": "each CLI command",
    "codeatlas/resident.py": "the resident query process",
    "orchestration/celery_app.py": "a celery worker",
    "orchestration/instance_storage.py": "a Dagster process opening its instance",
    "assets/resources.py": "a Dagster run or sensor tick, through its resources",
}


def test_only_entry_points_load_the_settings():
    shipped = {layer.folder.split("/")[0] for layer in LAYERS if layer.shipped}
    loaders = sorted(
        name
        for folder in shipped
        for path in (ROOT / folder).rglob("*.py")
        if (name := str(path.relative_to(ROOT))) != CONFIG and "load_settings()" in path.read_text()
    )
    assert loaders, "no caller of load_settings() found: the pattern is out of date"
    assert [n for n in loaders if not n.startswith(tuple(ENTRY_POINTS))] == []
