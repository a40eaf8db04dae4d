"""A non-editable install ships everything `codeatlas index` needs (migrations, queries)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from codeatlas.core.database import with_database
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


@pytest.mark.slow
def test_a_wheel_installed_in_a_fresh_venv_migrates_indexes_and_searches(
    pg_server: str, tmp_path: Path
):
    # the wheel, built from a copy of the sources (no earlier build/ output), installed (not
    # editable) into a new venv from the same local wheel caches as `make setup`
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCES))
    run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
        "-w", tmp_path / "dist", source, cwd=tmp_path,
    )  # fmt: skip
    [wheel] = (tmp_path / "dist").glob("codeatlas-*.whl")
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
