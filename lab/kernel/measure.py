"""What the kernel benchmark measures on an indexed database: the peak memory of the database's
processes, storage per table and index against the source size, and warm query latencies."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from lab.latency import percentiles

# questions an agent asks about kernel/, mm/ and fs/ext4/ (written for this benchmark, before
# looking at any result; they exist in the whole tree too)
QUESTIONS = [
    "allocate a new task struct when forking a process",
    "wake up a sleeping task and put it on a run queue",
    "handle a page fault on an anonymous mapping",
    "reclaim pages from the inactive list under memory pressure",
    "map logical block to physical block in ext4 extent tree",
    "journal commit of a transaction in ext4",
    "free pages back to the buddy allocator",
    "copy on write of a shared page after fork",
    "deliver a signal to a process group",
    "load balance tasks between cpus in the fair scheduler",
    "compute virtual runtime of a scheduling entity",
    "register a new kprobe at an address",
    "timer wheel expiry of pending timers",
    "rcu grace period callback processing",
    "mmap a file into the address space of a process",
    "truncate an ext4 inode and free its blocks",
    "out of memory killer selects a victim",
    "slab cache allocation of small objects",
    "swap out an anonymous page to the swap device",
    "ext4 directory lookup by name with htree index",
    "verify a bpf program before loading it",
    "cgroup memory controller charge a page",
    "futex wait and wake between threads",
    "workqueue worker thread executes queued work",
    "printk ring buffer writes a log record",
    "cpu hotplug bring a cpu online",
    "audit log of a system call",
    "vmalloc area allocation of virtually contiguous memory",
    "ext4 block allocator multi block allocation",
    "mutex lock slow path with optimistic spinning",
]
NAMES = 40  # function names for symbol lookup and find_callers, drawn from the index
# the most called names of the kernel: find_callers returns thousands of call sites for them
HOT_NAMES = ["kfree", "spin_lock", "mutex_lock", "kmalloc", "printk", "memcpy"]


class PeakMemory:
    """Samples the resident memory of process trees (the PostgreSQL server's and this
    benchmark's: the index command and its parse workers) every quarter second; `VmHWM` is each
    process's own peak, counted also by the kernel between samples."""

    def __init__(self, *root_pids: int) -> None:
        self.roots = root_pids
        self.peak_kib: dict[str, int] = {}
        self.peak_anon_kib: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _tree(self) -> list[int]:
        parents: dict[int, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        found, todo = [], list(self.roots)
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(parents.get(pid, []))
        return found

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            for pid in self._tree():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                except OSError:
                    continue
                values = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
                label = _process_kind(cmd.decode(errors="replace"))
                hwm = int(values.get("VmHWM", "0 kB").split()[0])
                anon = int(values.get("RssAnon", "0 kB").split()[0])
                self.peak_kib[label] = max(self.peak_kib.get(label, 0), hwm)
                self.peak_anon_kib[label] = max(self.peak_anon_kib.get(label, 0), anon)

    def report(self) -> dict:
        """Peak RSS (MiB) per kind of process, and its private (anonymous) part: the rest of a
        PostgreSQL process's RSS is shared memory (shared_buffers) it touched."""
        return {
            kind: {
                "peak_rss_mib": round(kib / 1024, 1),
                "peak_anon_mib": round(self.peak_anon_kib[kind] / 1024, 1),
            }
            for kind, kib in sorted(self.peak_kib.items())
        }


def _process_kind(cmdline: str) -> str:
    if "codeatlas.cli" in cmdline:
        return "codeatlas index"
    if "multiprocessing" in cmdline:
        return "parse worker" if "spawn_main" in cmdline else "multiprocessing"
    if cmdline.startswith("git "):
        return "git"
    if not cmdline.startswith("postgres:"):
        return "postmaster" if "postgres" in cmdline else cmdline.split(" ", 1)[0]
    words = cmdline.split()
    # "postgres: codeatlas bench_kernel 127.0.0.1(4242) idle" or "... [local] COPY"
    if len(words) > 3 and ("(" in words[3] or words[3] == "[local]"):
        return f"backend ({words[2]})"
    return " ".join(words[1:3])


def server_cpu_seconds(postmaster: int) -> float:
    """CPU seconds of the server's exited processes (each connection's backend is one; index
    runs open a connection per unit of work) and of the postmaster itself."""
    fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    # utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 after the name
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def storage(database_url: str) -> dict:
    """Bytes of every table (heap + TOAST) and of each of its indexes, largest first."""
    from core.database import connection

    with connection(database_url) as conn:
        tables = conn.execute(
            "SELECT c.relname AS name, pg_table_size(c.oid) AS table_bytes,"
            " pg_indexes_size(c.oid) AS index_bytes, pg_total_relation_size(c.oid) AS total"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY total DESC"
        ).fetchall()
        indexes = conn.execute(
            "SELECT t.relname AS table_name, i.relname AS name,"
            " pg_relation_size(i.oid) AS bytes FROM pg_index x"
            " JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
            " JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'"
            " ORDER BY bytes DESC"
        ).fetchall()
        database = conn.execute("SELECT pg_database_size(current_database()) AS b").fetchone()
    by_table: dict[str, dict] = {}
    for t in tables:
        if t["total"] < 64 * 1024:
            continue
        by_table[t["name"]] = {
            "table_bytes": t["table_bytes"],
            "index_bytes": t["index_bytes"],
            "total_bytes": t["total"],
            "indexes": {i["name"]: i["bytes"] for i in indexes if i["table_name"] == t["name"]},
        }
    return {
        "all_tables_bytes": sum(t["total"] for t in tables),
        "database_bytes": database["b"] if database else None,
        "tables": by_table,
    }


def source_bytes(database_url: str, repository: str) -> dict:
    """Files and bytes indexed at the repository's current snapshot (skipped files left out)."""
    from core.database import connection

    with connection(database_url) as conn:
        row = conn.execute(
            "SELECT count(*) AS files, coalesce(sum(sf.size_bytes), 0)::bigint AS bytes,"
            " (SELECT count(*) FROM code_chunks c JOIN snapshot_files s"
            "   ON s.file_version_id = c.file_version_id"
            "   WHERE s.snapshot_id = r.current_snapshot_id)"
            " AS chunks FROM repositories r"
            " JOIN snapshot_files sf ON sf.snapshot_id = r.current_snapshot_id"
            " WHERE r.name = %s AND sf.file_version_id IS NOT NULL GROUP BY r.current_snapshot_id",
            (repository,),
        ).fetchone()
    assert row is not None
    return {"files": row["files"], "bytes": row["bytes"], "chunks": row["chunks"]}


def _timed(fn, inputs: list[str]) -> dict:
    for item in inputs[:3]:  # warm caches and plans
        fn(item)
    samples = []
    for item in inputs:
        started = time.perf_counter()
        fn(item)
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


def _each(fn, inputs: list[str], runs: int = 3) -> dict:
    """Per input, the fastest of `runs` warm calls (ms) and the size of its answer."""
    out = {}
    for item in inputs:
        answer = fn(item)
        best = float("inf")
        for _ in range(runs):
            started = time.perf_counter()
            fn(item)
            best = min(best, time.perf_counter() - started)
        sites = answer[1] if isinstance(answer, tuple) else answer
        out[item] = {"ms": round(best * 1000, 1), "results": len(sites)}  # type: ignore[arg-type]
    return out


def latencies(database_url: str, repositories: list[str] | None) -> dict:
    """Warm p50/p95 of lexical search, symbol lookup, find_callers and hybrid search without
    the query embedding, for the scope of `repositories` (None: all), as the MCP tools call
    them; and find_callers of the hottest names one by one."""
    from benchmarks.codeatlas_search import CodeatlasSearch
    from benchmarks.embedder import make
    from retrieval.graph import find_callers
    from retrieval.lexical import lexical_candidates
    from retrieval.search import search_code
    from retrieval.symbols import exact_symbols

    embedder = make("fake")
    search = CodeatlasSearch(database_url, repositories, embedder)
    conn, scope = search.conn, search.scope
    try:
        names = [
            r["name"]
            for r in conn.execute(
                "SELECT DISTINCT s.name, md5(s.name) FROM code_symbols s"
                " WHERE s.kind = 'function' AND length(s.name) > 4 ORDER BY md5(s.name) LIMIT %s",
                (NAMES,),
            ).fetchall()
        ]
        conn.commit()
        vectors = {q: embedder.embed_query(q) for q in QUESTIONS}

        def lexical(q: str) -> object:
            with conn.transaction():
                return lexical_candidates(conn, scope, q, 50)

        def symbol(name: str) -> object:
            with conn.transaction():
                return exact_symbols(conn, scope, name)

        def callers(name: str) -> object:
            with conn.transaction():
                return find_callers(conn, scope, name)

        def hybrid(q: str) -> object:
            with conn.transaction():
                return search_code(
                    conn, scope, q, limit=10, mode="hybrid", embed_query=lambda _m, t: vectors[t]
                )

        return {
            "scope": repositories or "all",
            "lexical": _timed(lexical, QUESTIONS),
            "symbol_lookup": _timed(symbol, names),
            "find_callers": _timed(callers, names),
            "hybrid_without_query_embedding": _timed(hybrid, QUESTIONS),
            "find_callers_hot": _each(callers, HOT_NAMES),
        }
    finally:
        search.close()


def run_stages(log: str) -> dict:
    """Seconds of each step of an index run, from the timestamps of its log lines: the file
    list done -> parsed, stored and tokenized -> published (the index without vectors) ->
    vectors embedded."""
    stamps: dict[str, str] = {}
    for line in log.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3 or parts[0].count(":") != 2:
            continue
        step = parts[1].rstrip(":")
        stamps.setdefault(f"{step} first", parts[0])
        stamps[f"{step} last"] = parts[0]

    def seconds(a: str, b: str) -> float | None:
        if a not in stamps or b not in stamps:
            return None
        h1, m1, s1 = map(int, stamps[a].split(":"))
        h2, m2, s2 = map(int, stamps[b].split(":"))
        return float((h2 - h1) * 3600 + (m2 - m1) * 60 + (s2 - s1)) % 86400

    return {
        "parse_store_tokenize_seconds": seconds("source_files last", "code_index last"),
        "index_without_vectors_seconds": seconds("source_files last", "snapshot last"),
        "vectors_seconds": seconds("snapshot last", "chunk_embeddings last"),
    }
