"""`codeatlas status` says which state dir and database it uses, from any working directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def status(*args: str, cwd, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", "status", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )


def test_status_from_two_folders_names_the_same_per_user_state_and_the_database(
    database_url, tmp_path
):
    env = {k: v for k, v in os.environ.items() if k != "CODEATLAS_STATE_DIR"}
    env.update(
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        CODEATLAS_DATABASE_URL=database_url,
        CODEATLAS_EMBEDDING_PROVIDER="fake",
        PYTHONPATH=os.getcwd(),
    )
    seen = []
    for folder in ("checkout", "agent-workdir"):
        (tmp_path / folder).mkdir()
        seen.append(json.loads(status("--json", cwd=tmp_path / folder, env=env).stdout))
    assert seen[0]["state_dir"] == seen[1]["state_dir"]
    if sys.platform.startswith("linux"):
        assert seen[0]["state_dir"].startswith(str(tmp_path / "xdg" / "codeatlas") + " ")
    assert "per-user default" in seen[0]["state_dir"]
    assert seen[0]["database"].endswith("(from CODEATLAS_DATABASE_URL)")

    (tmp_path / "checkout" / ".state" / "postgres").mkdir(parents=True)
    text = status(cwd=tmp_path / "checkout", env=env).stdout
    assert text.splitlines()[0].startswith("state_dir  ")
    assert "database   " in text and "no repositories yet" in text
    assert f"CODEATLAS_STATE_DIR={tmp_path / 'checkout' / '.state'}" in text


def test_status_names_a_state_dir_set_by_codeatlas_state_dir(settings_env):
    report = json.loads(status("--json", cwd=os.getcwd(), env={**os.environ}).stdout)
    assert report["state_dir"] == f"{settings_env} (from CODEATLAS_STATE_DIR)"
    assert report["repositories"] == []
