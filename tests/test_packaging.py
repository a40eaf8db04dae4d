"""A non-editable install ships everything `codeatlas index` and search need (migrations,
queries, the learned ranker)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import psycopg
import pytest

from core.database import with_database
from tests.conftest import GitRepo

ROOT = Path(__file__).resolve().parent.parent
NOT_SOURCES = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".work")


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command; its stdout and stderr, or a failure that shows them."""
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def build_wheel(tmp_path: Path) -> Path:
    """The wheel built from a copy of the sources (no earlier build/ output) into tmp_path."""
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCES))
    # without build isolation when this venv's setuptools builds wheels itself (the dev extra's
    # pin; bdist_wheel is part of setuptools since 70.1); an older one (a venv made before that
    # pin) cannot, so pip builds in an isolated environment from the package index instead
    import setuptools

    own = tuple(int(part) for part in setuptools.__version__.split(".")[:2]) >= (70, 1)
    run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", *(["--no-build-isolation"] * own),
        "-w", tmp_path / "dist", source, cwd=tmp_path,
    )  # fmt: skip
    [wheel] = (tmp_path / "dist").glob("codeatlas-*.whl")
    return wheel


MIGRATE_FROM_INSTALLED = """
import json, sys
import core.migrations as migrations, sql
from core.database import connect_plain
conn = connect_plain(sys.argv[1])
applied = migrations.migrate(conn)
tables = [r["tablename"] for r in conn.execute(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()]
print(json.dumps({"applied": applied, "tables": tables,
                  "modules": [migrations.__file__, sql.__file__]}))
"""


def test_the_wheel_ships_every_sql_file_and_its_installed_layout_migrates_a_blank_database(
    pg_server: str, tmp_path: Path
):
    wheel = build_wheel(tmp_path)
    in_sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "sql").rglob("*.sql")}
    in_wheel = {n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".sql")}
    assert in_sources and in_wheel == in_sources
    names = zipfile.ZipFile(wheel).namelist()
    assert "retrieval/ranker_model.json" in names  # the learned ranker of search
    assert "retrieval/locate_ranker_model.json" in names  # locate's learned order
    # a non-editable install of the wheel alone; its dependencies are this venv's. Run from
    # tmp_path, the installed copy comes first on the path, ahead of any checkout.
    site = tmp_path / "site"
    run(sys.executable, "-m", "pip", "install", "--no-deps", "--target", site, wheel, cwd=tmp_path)
    database = f"wheel_layout_{os.getpid()}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}"')
        admin.execute(f'CREATE DATABASE "{database}"')
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = run(
        sys.executable, "-c", MIGRATE_FROM_INSTALLED, with_database(pg_server, database),
        cwd=tmp_path, env=env,
    )  # fmt: skip
    result = json.loads(out.strip().splitlines()[-1])
    assert all(Path(module).is_relative_to(site) for module in result["modules"])
    numbers = sorted(int(p.name[:3]) for p in (ROOT / "sql" / "migrations").glob("*.sql"))
    assert result["applied"] == numbers
    assert {"repositories", "chunk_embeddings", "schema_migrations"} <= set(result["tables"])


@pytest.mark.slow
def test_a_wheel_installed_in_a_fresh_venv_migrates_indexes_and_searches(
    pg_server: str, tmp_path: Path
):
    # the wheel, built from a copy of the sources (no earlier build/ output), installed (not
    # editable) into a new venv from the same local wheel caches as `make setup`
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    run(venv / "bin" / "pip", "install", "--quiet", wheel, cwd=tmp_path)

    repo = GitRepo(tmp_path / "repo")
    repo.write("shop/refunds.py", "def approve_refund(order):\n    return order.total < 100\n")
    repo.commit()
    # a blank database: the installed package must carry its own migrations
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "wheel_{os.getpid()}"')
    env = {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "CODEATLAS_DATABASE_URL": with_database(pg_server, f"wheel_{os.getpid()}"),
        "CODEATLAS_STATE_DIR": str(tmp_path / "state"),
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
    }
    codeatlas = venv / "bin" / "codeatlas"
    indexed = run(codeatlas, "index", repo.path, "--name", "shop", cwd=tmp_path, env=env)
    assert "indexed shop@" in indexed
    found = run(codeatlas, "search", "approve refund", "--repo", "shop", cwd=tmp_path, env=env)
    assert "shop/refunds.py:1-2  approve_refund" in found


def test_pip_runs_quietly_in_every_make_recipe_and_script():
    # the recipes' environment: pip reads PIP_QUIET as -q (its per-package lines were ~88% of
    # `make demo`'s output)
    probe = "probe:\n\t@echo quiet=$$PIP_QUIET version_check=$$PIP_DISABLE_PIP_VERSION_CHECK\n"
    shown = subprocess.run(
        ["make", "-s", "-f", "Makefile", "-f", "-", "probe"],
        cwd=ROOT,
        input=probe,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shown == ["quiet=1", "version_check=1"]
    for script in sorted((ROOT / "scripts").glob("*.sh")):
        for line in script.read_text().splitlines():
            if "/pip" in line and (" install" in line or " download" in line):
                assert "--quiet" in line or " -q" in line, f"{script.name}: {line.strip()}"
