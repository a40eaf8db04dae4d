"""One index everywhere by default: `serve-mcp` started by an agent from any folder serves the
index `codeatlas index` wrote, says which on stderr, and warns when it holds no repository."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", *args],
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        stdin=subprocess.DEVNULL,  # a stdio server exits when its client has gone
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_serve_mcp_from_any_folder_serves_the_per_user_index_and_warns_when_empty(
    database_url: str, tmp_path: Path
):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEATLAS_")}
    env |= {
        "XDG_DATA_HOME": str(tmp_path / "data"),  # the per-user default, inside this test
        "CODEATLAS_DATABASE_URL": database_url,
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
    }
    elsewhere = tmp_path / "some" / "project"
    elsewhere.mkdir(parents=True)
    served = run(["serve-mcp"], env, cwd=elsewhere)
    assert served.returncode == 0, served.stderr
    status = json.loads(run(["status", "--json"], env, cwd=ROOT).stdout)
    [announce, warning] = served.stderr.splitlines()[:2]
    state_dir = str(tmp_path / "data" / "codeatlas")
    assert status["state_dir"].startswith(state_dir + " ")
    assert announce.startswith(f"codeatlas MCP server: index in {status['state_dir']};")
    assert announce.endswith(" 0 repositories")
    assert "warning: this index holds no repository" in warning
    assert "codeatlas index PATH" in warning


def test_serve_mcp_names_how_many_repositories_it_serves_without_a_warning(
    database_url: str, tmp_path: Path
):
    from core.database import connection, migrate_database

    migrate_database(database_url)
    with connection(database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO repositories (name, origin) VALUES ('shop', '/src/shop')")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEATLAS_")}
    env |= {
        "CODEATLAS_STATE_DIR": str(tmp_path / "state"),
        "CODEATLAS_DATABASE_URL": database_url,
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
    }
    served = run(["serve-mcp"], env, cwd=tmp_path)
    assert served.returncode == 0, served.stderr
    assert "; 1 repository" in served.stderr
    assert "warning" not in served.stderr


def test_the_agent_set_ups_in_the_docs_read_the_index_codeatlas_index_writes():
    """docs/mcp.md's Claude Code and Cursor set-ups set CODEATLAS_STATE_DIR to a project's
    .state while `codeatlas index` wrote to the per-user default: the agent saw no repository."""
    text = (ROOT / "docs" / "mcp.md").read_text()
    local = text[text.index("## Local agents: stdio") : text.index("## Shared servers")]
    blocks = re.findall(r"```(?:sh|json)\n(.*?)```", local, flags=re.S)
    assert len(blocks) == 2
    for block in blocks:
        assert "serve-mcp" in block
        assert "CODEATLAS_STATE_DIR" not in block
