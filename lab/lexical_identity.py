"""Same answers before and after a latency change: the lexical (and hybrid) result lists of every
question of the three dev sets, scoped to the set's own repository and to all repositories.

    python -m lab.lexical_identity --database bench_lexical_scale_0 --save before.json
    python -m lab.lexical_identity --database bench_lexical_scale_0 --compare before.json

The lists are chunk ids with their BM25 scores (lexical, 50 candidates as hybrid asks) and the
hits of hybrid search (fake embedder, top 10); `--compare` prints every difference and exits 1
when a lexical list differs. `--concurrent` runs hybrid search's retrievers concurrently on
pooled connections, as the MCP server does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.eval_sets import EVAL_SETS
from benchmarks.workspace import database, prepare_environment
from lab.lexical_scale import SOURCES, STATE

DEPTH = 50


def answers(url: str, concurrent: bool = False) -> dict:
    """{"lexical|scope|query": [[chunk_id, score], ...], "hybrid|scope|query": [hit, ...]}."""
    from core.database import connect
    from indexing.embedding.fake import FakeEmbedder
    from retrieval.concurrency import spare_connections
    from retrieval.lexical import lexical_candidates
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    embedder = FakeEmbedder(dimensions=384)
    conn = connect(url)
    pool = None
    if concurrent:
        from pgvector.psycopg import register_vector
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        pool = ConnectionPool(
            url, min_size=2, max_size=2, kwargs={"row_factory": dict_row}, configure=register_vector
        )
    principal = ensure_operator(conn)
    out: dict = {}
    for key in SOURCES:
        scopes = {
            key: resolve_scope(conn, principal, [key]),
            "all": resolve_scope(conn, principal, None),
        }
        for label, scope in scopes.items():
            for q in EVAL_SETS[key].queries():
                query = q["query"]
                rows = lexical_candidates(
                    conn, scope, query, DEPTH, spare_connections(pool) if pool else None
                )
                out[f"lexical|{key}:{label}|{query}"] = [
                    [r["chunk_id"], round(r["rank"], 9)] for r in rows
                ]
                report = search_code(
                    conn,
                    scope,
                    query,
                    limit=10,
                    embed_query=lambda model, text: (
                        embedder.embed_query(text) if model == embedder.model_name else None
                    ),
                    connections=spare_connections(pool) if pool else None,
                )
                out[f"hybrid|{key}:{label}|{query}"] = [
                    [h.repository, h.path, h.start_line, h.end_line] for h in report.hits
                ]
                conn.commit()
    conn.close()
    if pool:
        pool.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="bench_lexical_scale_0")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path)
    group.add_argument("--compare", type=Path)
    parser.add_argument("--concurrent", action="store_true", help="retrievers concurrently")
    args = parser.parse_args(argv)
    prepare_environment(STATE)
    found = answers(database(args.database, fresh=False), args.concurrent)
    if args.save:
        args.save.write_text(json.dumps(found, indent=0))
        print(f"{len(found)} lists saved to {args.save}")
        return 0
    expected = json.loads(args.compare.read_text())
    differ = {"lexical": 0, "hybrid": 0}
    for name, rows in expected.items():
        if found.get(name) != rows:
            kind = name.split("|", 1)[0]
            differ[kind] += 1
            print(f"DIFFERS {name}\n  before {rows[:5]}\n  after  {found.get(name, [])[:5]}")
    total = {k: sum(1 for n in expected if n.startswith(k + "|")) for k in differ}
    for kind in differ:
        print(f"{kind}: {total[kind] - differ[kind]}/{total[kind]} lists identical")
    return 1 if differ["lexical"] else 0


if __name__ == "__main__":
    sys.exit(main())
