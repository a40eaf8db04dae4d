"""The source folders and the layers they form, written once.

Everything else that lists folders is derived from this table or checked against it by
tests/core/test_layers.py: the packages of pyproject.toml, each folder's `ruff.toml`
(the import rules `make lint` enforces; ruff cannot import Python, so a test compares them),
pyright's folders, and the files a warm run worker (orchestration/run_worker.py) and the resident
query process (codeatlas/resident.py) watch for edits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layer:
    """One source folder: what it is, the modules it owns and the folders it may import."""

    folder: str  # from the repository root
    modules: tuple[str, ...]  # the import names it owns
    may_import: tuple[str, ...]  # folders of the other layers it may import
    dagster: bool  # whether it may import Dagster
    shipped: bool  # part of the installed package (else: tests, lab, benchmarks, their data)
    role: str  # one line, the header of its ruff.toml


_SHIPPED = (
    "mcp_app",
    "orchestration",
    "assets",
    "orchestration/runtime",
    "retrieval",
    "indexing",
    "core",
)

# top to bottom (docs/architecture.md, "Layers"): each may import only folders below it
LAYERS: tuple[Layer, ...] = (
    Layer(
        "tests",
        ("tests",),
        ("lab", "codeatlas", *_SHIPPED, "corpora", "benchmarks"),
        dagster=True,
        shipped=False,
        role="the tests import anything.",
    ),
    Layer(
        "lab",
        ("lab",),
        ("codeatlas", *_SHIPPED, "corpora", "benchmarks"),
        dagster=True,
        shipped=False,
        role="the lab (experiments, their corpora and raw results) builds on the benchmarks;"
        " nothing imports it but the tests.",
    ),
    Layer(
        "benchmarks",
        ("benchmarks",),
        ("codeatlas", *_SHIPPED, "corpora"),
        dagster=True,
        shipped=False,
        role="the quality guard and the published tables never import the lab or the tests:"
        " shared corpora live in corpora/.",
    ),
    Layer(
        "corpora",
        ("corpora",),
        ("codeatlas", *_SHIPPED),
        dagster=True,
        shipped=False,
        role="corpora are data for tests and benchmarks, below both.",
    ),
    Layer(
        "codeatlas",
        ("codeatlas",),
        _SHIPPED,
        dagster=True,
        shipped=True,
        role="the CLI imports any shipped layer, never the tests, benchmarks or corpora.",
    ),
    Layer(
        "mcp_app",
        ("mcp_app",),
        ("retrieval", "indexing", "core"),
        dagster=False,
        shipped=True,
        role="the MCP server reads through retrieval/ and writes through indexing/,"
        " never through Dagster.",
    ),
    Layer(
        "orchestration",
        ("orchestration",),
        ("assets", "orchestration/runtime", "indexing", "core"),
        dagster=True,
        shipped=True,
        role="orchestration runs the assets; readers and the CLI sit above it.",
    ),
    Layer(
        "assets",
        ("assets",),
        ("orchestration/runtime", "indexing", "core"),
        dagster=True,
        shipped=True,
        role="assets/ holds the Dagster asset definitions over the indexing library and nothing"
        " else; orchestration, readers and the CLI sit above it.",
    ),
    Layer(
        "orchestration/runtime",
        ("orchestration.runtime",),
        ("core",),
        dagster=True,
        shipped=True,
        role="Dagster's runtime (its private APIs behind one adapter, run liveness, pool slots)"
        " sits below the assets that hold its slots and the orchestration that runs them.",
    ),
    Layer(
        "retrieval",
        ("retrieval",),
        ("indexing", "core"),
        dagster=False,
        shipped=True,
        role="readers never import Dagster or its definitions.",
    ),
    Layer(
        "indexing",
        ("indexing",),
        ("core",),
        dagster=False,
        shipped=True,
        role="the indexing library is pure: no Dagster, nothing that runs or reads it.",
    ),
    Layer(
        "core",
        ("core",),
        (),
        dagster=False,
        shipped=True,
        role="the core is the bottom layer: it imports only the standard library and"
        " third-party packages.",
    ),
)

# shipped folders of data, not code: the SQL (migrations and statement files, read through
# importlib.resources, so `sql` is a package with no modules and no layer of its own)
DATA_FOLDERS = ("sql",)

# what the code reads at run time besides its modules: statements, migrations, tree-sitter
# queries, the MCP tool lock (pyproject.toml's package-data, checked by the test)
RUNTIME_SUFFIXES = (".py", ".sql", ".scm", ".lock", ".json")


def banned_imports(layer: Layer) -> set[str]:
    """The import names `layer` may not use: every other layer's it may not import, and Dagster
    unless allowed (what its ruff.toml must list)."""
    banned = {
        module
        for other in LAYERS
        if other.folder != layer.folder and other.folder not in layer.may_import
        for module in _modules_outside(other, {layer.folder, *layer.may_import})
    }
    # a subpackage of a banned package is banned with it
    banned = {m for m in banned if not any(m.startswith(f"{other}.") for other in banned)}
    return banned | (set() if layer.dagster else {"dagster"})


def _modules_outside(layer: Layer, allowed: set[str]) -> tuple[str, ...]:
    """The import names of `layer` that are not in an allowed folder nested in it: a ban on a
    package bans its subpackages too, so a layer with an allowed sublayer (orchestration/ and
    orchestration/runtime/) is banned module by module, read from its folder."""
    nested = {folder for folder in allowed if folder.startswith(f"{layer.folder}/")}
    if not nested:
        return layer.modules
    root = Path(__file__).resolve().parents[1]
    children = sorted(
        path.stem
        for path in (root / layer.folder).iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()
    )
    package = layer.folder.replace("/", ".")
    return tuple(
        f"{package}.{child}" for child in children if f"{layer.folder}/{child}" not in nested
    )


def package_folders() -> tuple[str, ...]:
    """The top-level folders of the installed package (pyproject.toml's packages)."""
    folders = [layer.folder.split("/")[0] for layer in LAYERS if layer.shipped]
    return tuple(dict.fromkeys([*folders, *DATA_FOLDERS]))


def runtime_files(root: Path) -> Iterator[Path]:
    """Every file under the package folders of `root` that the code loads at run time."""
    for folder in package_folders():
        for path in (root / folder).rglob("*"):
            if path.suffix in RUNTIME_SUFFIXES and "__pycache__" not in path.parts:
                yield path
