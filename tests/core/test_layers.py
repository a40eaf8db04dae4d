"""The folder list is written once (core/layers.py): packaging, isort's first-party
names and every folder's ruff.toml (the import rules `make lint` enforces) agree with it.

`python -m tests.core.test_layers` rewrites the ruff.toml files from the table.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from core.layers import (
    DATA_FOLDERS,
    LAYERS,
    RUNTIME_SUFFIXES,
    Layer,
    banned_imports,
    package_folders,
)

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
RULED = [layer for layer in LAYERS if banned_imports(layer)]


def ruff_toml(layer: Layer) -> str:
    """The ruff.toml of one layer, as the table says it must be."""
    depth = "../" * (layer.folder.count("/") + 1)
    lines = [
        f"# The layer rule of {layer.folder}/ (docs/architecture.md): {layer.role}",
        f'extend = "{depth}pyproject.toml"',
        "",
        "[lint.flake8-tidy-imports.banned-api]",
    ]
    order = ["dagster", *(other.folder.replace("/", ".") for other in LAYERS)]

    def place(module: str) -> tuple[int, str]:
        # a layer's modules in the table's order; a layer banned module by module, in turn
        owner = max((o for o in order if module == o or module.startswith(f"{o}.")), key=len)
        return order.index(owner), module

    for module in sorted(banned_imports(layer), key=place):
        why = "is free of Dagster" if module == "dagster" else f"sits below {module}"
        lines.append(f'"{module}".msg = "{layer.folder}/ {why} (the layers: docs/architecture.md)"')
    return "\n".join(lines) + "\n"


def test_every_top_level_package_is_a_layer():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert packages == {layer.folder.split("/")[0] for layer in LAYERS} | set(DATA_FOLDERS)


def test_every_layer_names_real_folders_and_modules():
    folders = {layer.folder for layer in LAYERS}
    for layer in LAYERS:
        assert (ROOT / layer.folder / "__init__.py").is_file(), layer.folder
        assert set(layer.may_import) <= folders - {layer.folder}, layer.folder
        for module in layer.modules:
            path = ROOT / module.replace(".", "/")
            assert path.with_suffix(".py").is_file() or path.is_dir(), module


def test_the_layers_import_downwards_only():
    order = [layer.folder for layer in LAYERS]
    for layer in LAYERS:
        assert all(order.index(lower) > order.index(layer.folder) for lower in layer.may_import)


@pytest.mark.parametrize("layer", RULED, ids=[layer.folder for layer in RULED])
def test_each_ruff_toml_bans_what_its_layer_may_not_import(layer: Layer):
    path = ROOT / layer.folder / "ruff.toml"
    assert path.is_file(), f"{path} is missing: python -m tests.core.test_layers"
    assert path.read_text() == ruff_toml(layer), (
        f"{path} differs from core/layers.py: python -m tests.core.test_layers"
    )


@pytest.mark.parametrize("layer", RULED, ids=[layer.folder for layer in RULED])
def test_ruff_catches_every_import_a_layer_may_not_use(layer: Layer):
    planted = "".join(f"import {module}\n" for module in sorted(banned_imports(layer)))
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ruff"),
            "check",
            "--select",
            "TID251",
            "--output-format",
            "concise",
            "--stdin-filename",
            f"{layer.folder}/planted.py",
            "-",
        ],
        input=planted,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    caught = [line for line in proc.stdout.splitlines() if "TID251" in line]
    assert len(caught) == len(banned_imports(layer)), proc.stdout + proc.stderr


def test_no_ruff_toml_outside_the_layers():
    found = {
        str(p.parent.relative_to(ROOT))
        for p in ROOT.rglob("ruff.toml")
        if not {".venv", ".state", "build"} & set(p.relative_to(ROOT).parts)
    }
    assert found == {layer.folder for layer in RULED}


def test_the_wheel_holds_the_shipped_folders_and_only_them():
    found = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(found) == sorted(f"{folder}*" for folder in package_folders())


def test_every_package_data_file_is_watched_by_the_run_worker():
    # a kind of file the code loads that the run worker does not watch would be served stale
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        assert package.split(".")[0] in package_folders(), package
        for pattern in patterns:
            assert Path(pattern).suffix in RUNTIME_SUFFIXES, f"{package}: {pattern}"


def _folder_lists(source: str) -> list[tuple[int, list[str]]]:
    """(line, names) of every literal tuple, list or set of two or more folder names."""
    folders = {layer.folder for layer in LAYERS} | {f.split("/")[0] for f in package_folders()}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) >= 2:
            names = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            if all(name in folders for name in names):
                found.append((node.lineno, names))
    return found


def test_no_folder_list_is_written_by_hand_outside_the_table():
    # a hand-written list goes stale when a folder is added (the resident process once
    # watched three folders and answered with stale core/ and sql/ code): derive it instead
    # (the lab indexes some of the project's folders as a corpus: data, not a watch list)
    skipped = {".venv", ".state", ".git", ".work", "node_modules", "lab"}
    offenders = [
        f"{path.relative_to(ROOT)}:{line} {names}"
        for path in ROOT.rglob("*.py")
        if not skipped & set(path.relative_to(ROOT).parts) and path != ROOT / "core" / "layers.py"
        for line, names in _folder_lists(path.read_text())
    ]
    assert offenders == [], "derive these from core/layers.py (package_folders, LAYERS)"


def test_the_folder_list_scan_sees_tuples_lists_and_sets_only_of_folder_names():
    planted = (
        'WATCHED = ("codeatlas", "retrieval", "indexing")\n'
        'also = ["core", "sql"]\n'
        'fine = ("tests", "testing", "spec")\n'
        'one = ("core",)\n'
    )
    # the names joined: a literal list of them in this file would be one of the offenders
    assert [(line, " ".join(names)) for line, names in _folder_lists(planted)] == [
        (1, "codeatlas retrieval indexing"),
        (2, "core sql"),
    ]


def test_pyright_checks_every_shipped_folder_of_code():
    # `make lint` runs pyright on these: a folder left out would drift untyped
    included = PYPROJECT["tool"]["pyright"]["include"]
    assert sorted(included) == sorted(set(package_folders()) - set(DATA_FOLDERS))


def test_isort_knows_every_layer_as_first_party():
    known = PYPROJECT["tool"]["ruff"]["lint"]["isort"]["known-first-party"]
    assert sorted(known) == sorted({layer.folder.split("/")[0] for layer in LAYERS})


if __name__ == "__main__":
    for layer in RULED:
        (ROOT / layer.folder / "ruff.toml").write_text(ruff_toml(layer))
        print(f"wrote {layer.folder}/ruff.toml")
