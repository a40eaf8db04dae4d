"""Lexical and hybrid query latency from ~12k to 1M chunks, the storage of the BM25 index, and
the time publishing takes to update the statistics after a one-file commit.

The scale is built from real code: the three eval corpora (Python, PHP, TypeScript) are indexed
once through `codeatlas index` (fake embedder: HNSW cost depends on how many vectors there are,
not where they came from), then copied in SQL as further repositories ("copy-17-php") until each
level's chunk count is reached. Every copy has its own file versions, chunks, postings, vectors
and statistics, as an indexed repository of the same code would.

    python -m lab.lexical_scale [--levels 100000,1000000] [--queries 60]
        [--keep-levels] [--measure-only --database NAME] [--output FILE]

It runs its own embedded server (state under `benchmarks/.work/lexical-scale/state`), so other
benchmarks sharing the default server neither slow it nor stop it. `--keep-levels` keeps a copy
of each level's database (`bench_lexical_scale_100000`, ...), which `--measure-only --database`
measures again after a code change without rebuilding.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path

from benchmarks.eval_sets import EVAL_SETS
from benchmarks.workspace import WORK, as_git_repo, database, eval_corpus, git, prepare_environment
from lab.indexer import run_index
from lab.latency import percentiles

SOURCES = ("py", "php", "ts")
DATABASE = "bench_lexical_scale"
RESULTS = Path(__file__).resolve().parent / "results" / "lexical_scale.json"
STATE = WORK / "lexical-scale" / "state"

_SHIFT_FIRST = "ARRAY[chunks[1] + %(offset)s] || chunks[2:]"
# tables copied per repository, with the columns that take a new id (offset: `col + offset`, or
# an expression of its own) or the new repository
_COPIES = [
    ("snapshots", {"id": "id"}, "repository_id = %(src)s"),
    ("file_versions", {"id": "id"}, "repository_id = %(src)s"),
    (
        "snapshot_files",
        {"snapshot_id": "snapshot_id", "file_version_id": "file_version_id"},
        "snapshot_id IN (SELECT id FROM snapshots WHERE repository_id = %(src)s)",
    ),
    (
        "code_symbols",
        {"id": "id", "file_version_id": "file_version_id", "parent_id": "parent_id"},
        "file_version_id IN (SELECT id FROM file_versions WHERE repository_id = %(src)s)",
    ),
    (
        "code_chunks",
        {"id": "id", "file_version_id": "file_version_id", "symbol_id": "symbol_id"},
        "file_version_id IN (SELECT id FROM file_versions WHERE repository_id = %(src)s)",
    ),
    (
        "chunk_text_pages",
        {"file_version_id": "file_version_id"},
        "file_version_id IN (SELECT id FROM file_versions WHERE repository_id = %(src)s)",
    ),
    ("lexical_postings", {"chunk_id": "chunk_id"}, "repository_id = %(src)s"),
    (
        "lexical_chunk_terms",
        {"chunk_id": "chunk_id"},
        "chunk_id IN (SELECT c.id FROM code_chunks c JOIN file_versions fv"
        " ON fv.id = c.file_version_id WHERE fv.repository_id = %(src)s)",
    ),
    # a block's chunk ids are differences from the one before: only the first one shifts
    ("lexical_blocks", {"chunks": _SHIFT_FIRST}, "repository_id = %(src)s"),
    ("lexical_blocks_built", {}, "repository_id = %(src)s"),
    # chunk_embeddings: vectors are shared by content (migration 009), so a copy reuses the source's
    ("lexical_term_stats", {}, "repository_id = %(src)s"),
    ("lexical_corpus", {"snapshot_id": "snapshot_id"}, "repository_id = %(src)s"),
]


def _columns(conn, table: str) -> list[str]:
    rows = conn.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
        " AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
        (table,),
    ).fetchall()
    return [r["attname"] for r in rows]


def copy_repository(conn, source: str, name: str, offset: int) -> None:
    """A new repository `name` holding a copy of `source`'s whole index (ids shifted)."""
    src = conn.execute(
        "SELECT id, origin, default_branch, current_snapshot_id, active_embedding_model"
        " FROM repositories WHERE name = %s",
        (source,),
    ).fetchone()
    new = conn.execute(
        "INSERT INTO repositories (name, origin, default_branch, active_embedding_model)"
        " VALUES (%s, %s, %s, %s) RETURNING id",
        (name, src["origin"], src["default_branch"], src["active_embedding_model"]),
    ).fetchone()["id"]
    for table, shifted, where in _COPIES:
        columns = _columns(conn, table)
        values = []
        for col in columns:
            if col in shifted:
                shift = shifted[col]
                values.append(shift if "%(offset)s" in shift else f"{col} + %(offset)s")
            elif col == "repository_id":
                values.append("%(new)s")
            else:
                values.append(col)
        conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(values)}"  # type: ignore[arg-type]
            f" FROM {table} WHERE {where}",
            {"src": src["id"], "new": new, "offset": offset},
        )
    conn.execute(
        "UPDATE repositories SET current_snapshot_id = %s WHERE id = %s",
        (src["current_snapshot_id"] + offset, new),
    )


def chunk_count(conn) -> int:
    """Chunks in the current snapshots of every repository."""
    return conn.execute(
        "SELECT count(*) AS n FROM repositories r JOIN snapshot_files sf"
        " ON sf.snapshot_id = r.current_snapshot_id JOIN code_chunks c"
        " ON c.file_version_id = sf.file_version_id"
    ).fetchone()["n"]


def source_repo(key: str) -> Path:
    """This benchmark's own git copy of an eval corpus (it commits to the Python one)."""
    dest = WORK / "lexical-scale" / key
    if not (dest / ".git").is_dir():
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(eval_corpus(EVAL_SETS[key]), dest, ignore=shutil.ignore_patterns(".git"))
        as_git_repo(dest)
    return dest


def index_sources(url: str) -> None:
    """Index the three eval corpora (once) into the scale database."""
    from lab.quality import snapshot_ready

    for key in SOURCES:
        path = source_repo(key)
        if not snapshot_ready(url, key, as_git_repo(path)):
            print(f"indexing {key} …", flush=True)
            run_index(path, key, url, "fake")


def grow_to(conn, target: int) -> int:
    """Add copies of the sources (round robin) until at least `target` chunks; returns count."""
    count = chunk_count(conn)
    copies = conn.execute("SELECT count(*) AS n FROM repositories").fetchone()["n"]
    started = time.monotonic()
    while count < target:
        source = SOURCES[copies % len(SOURCES)]
        offset = conn.execute(
            "SELECT greatest((SELECT max(id) FROM code_chunks), (SELECT max(id) FROM code_symbols),"
            " (SELECT max(id) FROM file_versions), (SELECT max(id) FROM snapshots)) AS m"
        ).fetchone()["m"]
        with conn.transaction():
            copy_repository(conn, source, f"copy-{copies}-{source}", offset)
        copies += 1
        count = chunk_count(conn) if copies % 10 == 0 else count + _chunks_of(conn, source)
        print(f"  {count:,} chunks ({time.monotonic() - started:.0f}s)", flush=True)
    for seq in (
        "code_chunks_id_seq",
        "code_symbols_id_seq",
        "file_versions_id_seq",
        "snapshots_id_seq",
    ):
        table = seq.removesuffix("_id_seq")
        conn.execute(f"SELECT setval('{seq}', (SELECT max(id) FROM {table}))")  # type: ignore[arg-type]
    conn.execute("VACUUM ANALYZE")
    return chunk_count(conn)


def _chunks_of(conn, repository: str) -> int:
    return conn.execute(
        "SELECT count(*) AS n FROM repositories r JOIN snapshot_files sf"
        " ON sf.snapshot_id = r.current_snapshot_id JOIN code_chunks c"
        " ON c.file_version_id = sf.file_version_id WHERE r.name = %s",
        (repository,),
    ).fetchone()["n"]


_LEXICAL_TABLES = (
    "lexical_blocks",
    "lexical_postings",
    "lexical_chunk_terms",
    "lexical_term_stats",
    "lexical_corpus",
    "lexical_blocks_built",
)


def storage(conn) -> dict:
    """Bytes of the lexical structures, in total and per chunk."""
    sizes = {
        table: conn.execute("SELECT pg_total_relation_size(%s) AS b", (table,)).fetchone()["b"]
        for table in (*_LEXICAL_TABLES, "code_chunks")
    }
    chunks = conn.execute("SELECT count(*) AS n FROM code_chunks").fetchone()["n"]
    postings = conn.execute(
        "SELECT coalesce(sum(cardinality(terms)), 0) AS n FROM lexical_chunk_terms"
    ).fetchone()["n"]
    lexical = sum(sizes[t] for t in _LEXICAL_TABLES)
    return {
        "chunks": chunks,
        "postings": postings,
        "postings_per_chunk": round(postings / chunks, 1),
        "lexical_bytes_per_chunk": round(lexical / chunks),
        "code_chunks_bytes_per_chunk": round(sizes["code_chunks"] / chunks),
        "bytes": sizes,
    }


def latency(url: str, queries: list[str]) -> dict:
    """p50/p95 of lexical and hybrid search over one repository and over all repositories, as
    the MCP server runs them (`lexical_grouped_*`: many repositories scored in groups at once;
    `hybrid_*`: the retrievers at once; both on pooled connections) and on one connection
    (`lexical_*`, `hybrid_sequential_*`), interleaved query by query."""
    from pgvector.psycopg import register_vector
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from benchmarks.codeatlas_search import CodeatlasSearch
    from indexing.embedding.fake import FakeEmbedder
    from retrieval.concurrency import spare_connections
    from retrieval.lexical import lexical_candidates
    from retrieval.search import exact_symbol_hits, search_code
    from retrieval.semantic import semantic_candidates

    embedder = FakeEmbedder(dimensions=384)
    vectors = {q: embedder.embed_query(q) for q in queries}  # hybrid is timed without embedding
    pool = ConnectionPool(
        url, min_size=2, max_size=2, kwargs={"row_factory": dict_row}, configure=register_vector
    )
    out = {}
    for label, repos in (("one", ["php"]), ("all", None)):
        search = CodeatlasSearch(url, repos or [], None)
        if repos is None:
            from retrieval.principals import ensure_operator
            from retrieval.scope import resolve_scope

            search.scope = resolve_scope(search.conn, ensure_operator(search.conn), None)
        conn, scope = search.conn, search.scope

        def lexical(q: str, conn=conn, scope=scope, connections=None) -> None:
            lexical_candidates(conn, scope, q, 50, connections)
            conn.commit()

        def hybrid(q: str, conn=conn, scope=scope, connections=None) -> None:
            search_code(
                conn,
                scope,
                q,
                limit=10,
                embed_query=lambda model, text: (
                    vectors[text] if model == embedder.model_name else None
                ),
                connections=connections,
            )
            conn.commit()

        timed = _timed(
            {
                "lexical": lexical,
                "lexical_grouped": lambda q, lexical=lexical: lexical(
                    q, connections=spare_connections(pool)
                ),
                "hybrid": lambda q, hybrid=hybrid: hybrid(q, connections=spare_connections(pool)),
                "hybrid_sequential": hybrid,
            },
            queries,
        )
        for name, samples in timed.items():
            out[f"{name}_{label}"] = percentiles(samples)

        # on one connection: the CPU time its query takes (client thread + server backend), and
        # that of each retriever alone, from which an idle two-core machine's concurrent hybrid
        # time is estimated: the slowest retriever, or half their sum when the two cores are
        # the limit
        def semantic(q: str, conn=conn, scope=scope) -> None:
            for model in scope.by_model():
                semantic_candidates(conn, scope, model, vectors[q], 50)
            conn.commit()

        def symbols(q: str, conn=conn, scope=scope) -> None:
            exact_symbol_hits(conn, scope, q)
            conn.commit()

        cpu = _cpu_timed(
            {"lexical": lexical, "hybrid_sequential": hybrid, "s": semantic, "x": symbols},
            conn,
            queries,
        )
        out[f"lexical_{label}_cpu"] = percentiles(cpu["lexical"])
        out[f"hybrid_sequential_{label}_cpu"] = percentiles(cpu["hybrid_sequential"])
        stages = list(zip(cpu["lexical"], cpu["s"], cpu["x"], strict=True))
        out[f"hybrid_{label}_cpu_two_cores"] = percentiles(
            [max(*stage, sum(stage) / 2) for stage in stages]
        )
        search.close()
    pool.close()
    return out


def _timed(fns: dict, queries: list[str]) -> dict[str, list[float]]:
    """Each query once untimed (the steady state: the level's pages in the OS cache, the
    statements prepared), then each query timed once per function, the functions interleaved
    query by query (A/B under the same load)."""
    for q in queries:
        for fn in fns.values():
            fn(q)
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for q in queries:
        for name, fn in fns.items():
            started = time.perf_counter()
            fn(q)
            samples[name].append(time.perf_counter() - started)
    return samples


def _cpu_timed(fns: dict, conn, queries: list[str]) -> dict[str, list[float]]:
    """Per query, the CPU time of this thread plus that of `conn`'s server backend (Linux
    schedstat). On a busy machine wall-clock time also counts the waits for a CPU; this does
    not, so it estimates what the query takes on an idle machine (one connection, all pages
    cached: nothing else to wait for)."""
    backend = Path(f"/proc/{conn.info.backend_pid}/schedstat")

    def cpu_ns() -> int:
        return time.thread_time_ns() + int(backend.read_text().split()[0])

    samples: dict[str, list[float]] = {name: [] for name in fns}
    for q in queries:
        for name, fn in fns.items():
            started = cpu_ns()
            fn(q)
            samples[name].append((cpu_ns() - started) / 1e9)
    return samples


def one_file_commit(url: str) -> dict:
    """Commit a change to one file of the Python corpus, index it, and time the statistics
    update publishing does (`stats_update`)."""
    path = source_repo("py")
    target = path / "flask" / "helpers.py"
    target.write_text(
        target.read_text() + f"\n\ndef bench_probe_{int(time.time())}():\n    return 1\n"
    )
    git(path, "commit", "-qam", "one-file change")
    run = run_index(path, "py", url, "fake")
    return {"index_run_wall_seconds": run["wall_seconds"], **stats_update(url)}


def stats_update(url: str) -> dict:
    """The statistics update from the Python repository's previous snapshot to its current one
    (a one-file commit), re-run alone five times and rolled back."""
    from core.database import connection
    from indexing.lexical_index import refresh_corpus_stats

    with connection(url) as conn:
        repo = conn.execute(
            "SELECT id, current_snapshot_id FROM repositories WHERE name = 'py'"
        ).fetchone()
        previous = conn.execute(
            "SELECT max(id) AS id FROM snapshots WHERE repository_id = %s AND id < %s",
            (repo["id"], repo["current_snapshot_id"]),
        ).fetchone()["id"]
        samples = []
        for _ in range(5):
            conn.execute(
                "UPDATE lexical_corpus SET snapshot_id = %s WHERE repository_id = %s",
                (previous, repo["id"]),
            )
            started = time.perf_counter()
            refresh_corpus_stats(conn, repo["id"], repo["current_snapshot_id"])
            samples.append(time.perf_counter() - started)
            conn.rollback()
    return {
        "stats_update_ms_median": round(statistics.median(samples) * 1000, 1),
        "stats_update_ms_max": round(max(samples) * 1000, 1),
    }


def markdown(results: dict) -> str:
    """The latency table of the report from a results file: wall-clock and CPU time."""
    columns = {
        "lexical, one connection": "lexical",
        "lexical CPU": "lexical_{}_cpu",
        "lexical, spare connections": "lexical_grouped",
        "hybrid": "hybrid",
        "hybrid, one connection": "hybrid_sequential",
        "hybrid, one connection CPU": "hybrid_sequential_{}_cpu",
        "hybrid CPU, two cores (est.)": "hybrid_{}_cpu_two_cores",
    }
    rows = [
        "| chunks | scope | " + " | ".join(f"{c} p50 / p95" for c in columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for level in results["levels"]:
        lat = level["latency"]
        for scope, label in (("one", "one repository (php)"), ("all", "all repositories")):
            cells = [f"{level['chunks']:,}", label]
            for key in columns.values():
                name = key.format(scope) if "{}" in key else f"{key}_{scope}"
                stat = lat.get(name)
                cells.append(f"{stat['p50_ms']} / {stat['p95_ms']}" if stat else "-")
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def keep_copy(url: str, name: str) -> None:
    """A copy of the benchmark database as `name` (replaced), to measure this level again."""
    import psycopg

    from core.database import with_database

    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
        conn.execute(
            f'CREATE DATABASE "{name}" TEMPLATE "{DATABASE}" STRATEGY FILE_COPY'  # type: ignore[arg-type]
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--fresh", action="store_true", help="drop and rebuild the database")
    parser.add_argument("--keep-levels", action="store_true", help="keep a copy of each level")
    parser.add_argument(
        "--measure-only", action="store_true", help="only measure --database as it is"
    )
    parser.add_argument("--database", default=DATABASE)
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--markdown", action="store_true", help="print the table of --output and exit"
    )
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.output.read_text())))
        return 0
    prepare_environment(STATE)
    from core.database import connect

    questions = [q["query"] for key in SOURCES for q in EVAL_SETS[key].queries()]
    step = max(1, len(questions) // args.queries)
    questions = questions[::step][: args.queries]
    results: dict = {"levels": []}
    if args.measure_only:
        url = database(args.database, fresh=False)
        conn = connect(url, autocommit=True)
        chunks = chunk_count(conn)
        conn.close()
        level = {"chunks": chunks, "latency": latency(url, questions), **stats_update(url)}
        print(json.dumps(level), flush=True)
        results["levels"].append(level)
        args.output.write_text(json.dumps(results, indent=1))
        return 0
    url = database(DATABASE, fresh=args.fresh)
    index_sources(url)
    conn = connect(url, autocommit=True)
    conn.execute("VACUUM ANALYZE")
    results["one_file_commit"] = one_file_commit(url)
    print(json.dumps(results["one_file_commit"]), flush=True)
    for target in [0, *[int(x) for x in args.levels.split(",") if x]]:
        chunks = grow_to(conn, target) if target else chunk_count(conn)
        level = {"chunks": chunks, "storage": storage(conn), "latency": latency(url, questions)}
        print(json.dumps(level), flush=True)
        results["levels"].append(level)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1))
        if args.keep_levels:
            conn.close()
            keep_copy(url, f"{DATABASE}_{target}")
            conn = connect(url, autocommit=True)
    conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
