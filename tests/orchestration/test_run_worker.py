"""The warm run worker notices an edit to any file the code loads, so a `codeatlas dev` session
never forks a run from stale code: a parser module or tree-sitter query in indexing/, a
statement file, a module of any package folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from core.layers import package_folders

ROOT = Path(__file__).resolve().parents[2]

# in a copy of the source tree: load the fork server's preload, then edit one file at a time
# (a newer mtime, as an editor's save gives), ask, and put the file back as it was
PROBE = """
import json, os, sys, time
from pathlib import Path

from orchestration import run_worker

answers = {"loaded from": run_worker.__file__}
answers["nothing edited"] = run_worker.code_changed_since_load()
for name in sys.argv[1:]:
    path = Path(name)
    before = path.stat()
    os.utime(path, (before.st_atime, max(before.st_mtime, time.time()) + 3600))
    answers[name] = run_worker.code_changed_since_load()
    os.utime(path, (before.st_atime, before.st_mtime))
answers["all put back"] = run_worker.code_changed_since_load()
removed = Path("indexing/parsing/redaction.py")
moved = removed.with_name("redaction_moved.py")
removed.rename(moved)
answers["a module renamed (its mtime kept)"] = run_worker.code_changed_since_load()
print(json.dumps(answers))
"""

EDITED = [
    "indexing/parsing/queries/python.scm",
    "indexing/parsing/chunking.py",
    "sql/lexical/bm25_candidates.sql",
    "sql/migrations/001_schema.sql",
    "mcp_app/server.py",
    "core/config.py",
]


def _copy_of_the_source(tmp_path: Path) -> Path:
    for folder in package_folders():
        shutil.copytree(
            ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    return tmp_path


def test_the_run_worker_notices_an_edited_parser_query_module_or_statement(tmp_path: Path):
    tree = _copy_of_the_source(tmp_path)
    edited = list(EDITED)

    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *edited],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert proc.returncode == 0, proc.stderr
    answers = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(answers.pop("loaded from")).is_relative_to(tree)  # the copy, not the checkout
    assert answers == {
        "nothing edited": False,
        **dict.fromkeys(edited, True),
        "all put back": False,
        "a module renamed (its mtime kept)": True,
    }
