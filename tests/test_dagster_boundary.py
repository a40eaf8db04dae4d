"""Dagster's private modules are imported by orchestration/runtime/dagster_internals.py alone
(docs/architecture.md): ruff's list of them is complete, and no import slips past it (inside a
function either, which ruff's rule does not see)."""

import ast
import pkgutil
import tomllib
from pathlib import Path

import dagster

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())
# the one file ruff lets import them, named once: pyproject.toml's per-file-ignores
(ADAPTER,) = [
    ROOT / path
    for path, rules in CONFIG["tool"]["ruff"]["lint"]["per-file-ignores"].items()
    if "TID253" in rules
]
SKIPPED = {".venv", ".state", ".git", "node_modules", ".work"}  # .work: benchmark corpora


def _python_files() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*.py")
        if not SKIPPED & set(path.relative_to(ROOT).parts) and path != ADAPTER
    ]


def _private_dagster_imports(source: str) -> list[str]:
    """`line module` of every import of a `dagster._…` module in the source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name.startswith("dagster._"):
                found.append(f"{node.lineno} {name}")
                break
    return found


def test_ruffs_ban_names_every_private_module_of_the_installed_dagster():
    banned = set(
        CONFIG["tool"]["ruff"]["lint"]["flake8-tidy-imports"]["banned-module-level-imports"]
    )
    private = {
        f"dagster.{m.name}"
        for m in pkgutil.iter_modules(dagster.__path__)
        if m.name.startswith("_") and not m.name.startswith("__")
    }
    assert private - banned == set(), "add them to pyproject.toml's banned-module-level-imports"


def test_only_the_adapter_imports_dagsters_private_modules():
    offenders = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in _python_files()
        for hit in _private_dagster_imports(path.read_text())
    ]
    assert offenders == [], f"import these through {ADAPTER.relative_to(ROOT)}"


def test_the_adapter_is_there():
    assert ADAPTER.is_file(), ADAPTER


def test_the_scan_sees_imports_inside_functions_and_not_strings():
    planted = (
        "import dagster\n"
        "def f():\n"
        "    from dagster._core.errors import DagsterError\n"
        "    import dagster._utils.log\n"
        "    from dagster import _check\n"
        "    return 'python -m dagster._daemon run'\n"
    )
    assert _private_dagster_imports(planted) == [
        "3 dagster._core.errors",
        "4 dagster._utils.log",
        "5 dagster._check",
    ]
