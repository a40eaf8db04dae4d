"""An index run holds its memory by design (batches of files, at most two in flight, files over
CODEATLAS_MAX_FILE_BYTES skipped): it finishes under an address-space limit far below the 2 GB
per process of issue 30, parse workers included (they inherit the limit)."""

from __future__ import annotations

import resource
import subprocess
import sys

import psycopg

LIMIT_BYTES = 512 * 1024 * 1024  # address space per process: a quarter of the 2 GB target


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def _large_c_file(n: int, size: int) -> str:
    parts: list[str] = []
    i = 0
    while sum(map(len, parts)) < size:
        parts.append(
            f"static int big{n}_{i}(struct inode *inode, int x)\n{{\n"
            f"\treturn x > {i} ? big{n}_{max(i - 1, 0)}(inode, x - 1) : inode->i_blocks;\n}}\n\n"
        )
        i += 1
    return "".join(parts)


def test_an_index_run_under_a_512_mib_address_space_limit_finishes(
    settings_env, database_url, git_repo
):
    # over MIN_FILES_FOR_WORKERS files, so the parse workers run too; one large file
    for i in range(110):
        git_repo.write(f"fs/f_{i:03}.c", f"int f_{i}(int x)\n{{\n\treturn g(x) * {i};\n}}\n")
    git_repo.write("fs/large.c", _large_c_file(0, 200_000))
    git_repo.commit()
    proc = subprocess.run(
        [sys.executable, "-m", "codeatlas.cli", "index", str(git_repo.path), "--name", "capped"],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_limit_address_space,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT s.status, count(sf.file_version_id), count(*)"
            " FROM repositories r JOIN snapshots s ON s.id = r.current_snapshot_id"
            " JOIN snapshot_files sf ON sf.snapshot_id = s.id WHERE r.name = 'capped'"
            " GROUP BY s.status"
        ).fetchone()
        large = conn.execute(
            "SELECT count(*) FROM code_symbols WHERE name LIKE 'big0\\_%'"
        ).fetchone()
    assert row == ("ready", 111, 111)
    assert large is not None and large[0] > 1000
