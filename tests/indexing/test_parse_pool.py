"""Parsing in worker processes stores exactly what parsing in the run's own process stores."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.config import load_settings
from core.database import connection, transaction
from indexing import parse_step, repositories
from indexing.parse_pool import ParseJob, ParsePool
from indexing.parse_step import parse_snapshot
from indexing.snapshot_files import record_source_files


def _c_file(n: int) -> str:
    return (
        f"/* block map {n} */\n#include <linux/fs.h>\n\n"
        f"static int ext4_map_{n}(struct inode *inode, unsigned long lblk)\n{{\n"
        f"\treturn ext4_map_blocks(inode, lblk + {n}) ?: inode->i_blocks;\n}}\n\n"
        f"int ext4_walk_{n}(struct inode *inode)\n{{\n"
        f"\tfor (int i = 0; i < {n}; i++)\n\t\text4_map_{n}(inode, i);\n\treturn 0;\n}}\n"
    )


def _stored(url: str, repository: str) -> list[tuple]:
    """Every chunk of the repository with its symbol, length and terms, by path."""
    with connection(url) as conn:
        rows = conn.execute(
            "SELECT sf.path, c.ordinal, c.content_hash, c.lexical_length, s.name,"
            " (SELECT ARRAY[array_agg(p.term)::float8[], array_agg(p.tf)::float8[]]"
            "  FROM lexical_chunk_terms t, codeatlas_chunk_terms(t.terms, t.tfs) p"
            "  WHERE t.chunk_id = c.id) AS terms,"
            " (SELECT count(*) FROM code_edges e WHERE e.file_version_id = c.file_version_id)"
            "  AS edges"
            " FROM repositories r JOIN snapshots sn ON sn.repository_id = r.id"
            " JOIN snapshot_files sf ON sf.snapshot_id = sn.id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
            " LEFT JOIN code_symbols s ON s.id = c.symbol_id"
            " WHERE r.name = %s ORDER BY sf.path, c.ordinal",
            (repository,),
        ).fetchall()
    return [tuple(r.values()) for r in rows]


def test_files_parsed_by_workers_are_stored_as_parsed_in_process(
    settings_env, database_url, git_repo, monkeypatch
):
    for n in range(12):
        git_repo.write(f"fs/ext4/map{n}.c", _c_file(n))
    git_repo.write("tools/gen.py", "def generate(blocks):\n    return [b * 2 for b in blocks]\n")
    git_repo.write("fs/ext4/blob.bin", "\x00\x01binary")  # skipped by its content
    sha = git_repo.commit()
    monkeypatch.setattr(parse_step, "BATCH_FILES", 4)  # several batches, one always ahead
    monkeypatch.setattr(parse_step, "MIN_FILES_FOR_WORKERS", 1)
    for name, workers in (("inline", "0"), ("workers", "2")):
        monkeypatch.setenv("CODEATLAS_PARSE_WORKERS", workers)
        settings = load_settings()
        with transaction(database_url) as conn:
            repositories.register(conn, name, str(git_repo.path), "main")
        record_source_files(database_url, settings, name, sha)
        totals = parse_snapshot(database_url, settings, name, sha)
        assert totals["files_parsed"] == 13
    inline, workers = _stored(database_url, "inline"), _stored(database_url, "workers")
    assert len(inline) >= 25 and all(row[5] for row in inline)  # chunks, each with postings
    assert workers == inline


def test_a_pool_returns_batches_in_order_with_skipped_files_left_unparsed():
    jobs = [
        ParseJob(f"m{n}.py", f"sha{n}", "python", f"def f{n}():\n    pass\n".encode())
        for n in range(5)
    ]
    jobs[2] = ParseJob("big.py", "sha2", "python", b"x = 1\n", skip_reason="too large")
    with ParsePool(2, 256) as pool:
        batches = list(pool.prepared(iter([jobs[:3], jobs[3:]])))
    assert [[j.path for j, _ in b] for b in batches] == [
        ["m0.py", "m1.py", "big.py"],
        ["m3.py", "m4.py"],
    ]
    prepared = [p for b in batches for _, p in b]
    assert prepared[2] is None
    assert [p.parsed.symbols[0].name for p in prepared if p is not None] == ["f0", "f1", "f3", "f4"]


@pytest.mark.parametrize("workers", [0, 1])
def test_no_workers_means_parsing_in_process(workers):
    with ParsePool(workers, 256) as pool:
        assert pool._executor is None
        [[(_, prepared)]] = list(
            pool.prepared(iter([[ParseJob("a.py", "s", "python", b"def a():\n    pass\n")]]))
        )
    assert prepared is not None and prepared.parsed.symbols[0].name == "a"


_KILLED_RUN = """
import sys, time
from indexing.parse_pool import ParseJob, ParsePool
with ParsePool(2, 256) as pool:
    list(pool.prepared(iter([[ParseJob("a.py", "s", "python", b"def a():\\n    pass\\n")]])))
    print(" ".join(str(p) for p in pool._executor._processes), flush=True)
    time.sleep(600)
"""


def test_the_workers_of_a_killed_run_exit_with_it():
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_RUN], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    workers = [int(pid) for pid in proc.stdout.readline().split()]
    assert workers  # started on demand: one per job in flight, at most two
    proc.send_signal(signal.SIGKILL)  # no shutdown of the pool: what a killed index run leaves
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return status != "Z"


def test_a_file_that_breaks_the_parser_is_skipped_with_its_reason_and_the_run_goes_on(
    settings_env, database_url, git_repo, monkeypatch
):
    """A parser failure (the kernel's jz4780-cgu.c once raised RecursionError) is injected for
    one file: before, it failed the index run of all the others."""
    from indexing import parse_pool

    real_prepare = parse_pool.prepare

    def prepare(path: str, content: bytes, max_tokens: int):
        if path == "drivers/clk/cgu.c":
            raise RecursionError("maximum recursion depth exceeded")
        return real_prepare(path, content, max_tokens)

    monkeypatch.setattr(parse_pool, "prepare", prepare)
    for n in range(3):
        git_repo.write(f"fs/ext4/map{n}.c", _c_file(n))
    git_repo.write("drivers/clk/cgu.c", _c_file(9))
    sha = git_repo.commit()
    settings = load_settings()
    with transaction(database_url) as conn:
        repositories.register(conn, "kernel", str(git_repo.path), "main")
    record_source_files(database_url, settings, "kernel", sha)
    totals = parse_snapshot(database_url, settings, "kernel", sha)
    assert totals["files_parsed"] == 3
    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT sf.path, sf.skip_reason, sf.file_version_id IS NOT NULL AS stored"
            " FROM snapshot_files sf ORDER BY sf.path"
        ).fetchall()
    by_path = {r["path"]: r for r in rows}
    broken = by_path["drivers/clk/cgu.c"]
    assert broken["skip_reason"].startswith("parse failed: RecursionError")
    assert not broken["stored"]
    assert all(by_path[f"fs/ext4/map{n}.c"]["stored"] for n in range(3))
    assert [p for p in _stored(database_url, "kernel") if p[0] == "drivers/clk/cgu.c"] == []
