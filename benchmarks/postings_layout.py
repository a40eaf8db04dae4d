"""What block-compressed BM25 postings would store, and cost to read (issue 30), measured on an
index that exists: one repository's postings rewritten as blocks in a temporary table (`BUILD`)
beside the row per posting codeatlas stores. A prototype to
decide on, not the index search uses.

    python -m benchmarks.postings_layout --database bench_loc_local --repository django

Bytes per posting of both layouts (the rows: `lexical_postings` with its indexes over all its
postings; the blocks: the temporary table with its TOAST and its index), and the time to read a
query's postings both ways: two common terms, three of middling frequency and three rare ones,
the first `TERM_BUDGET` postings of each (warm, one connection). Results go to
benchmarks/results/postings_layout.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from retrieval.lexical import TERM_BUDGET

# A repository's postings of each term, best impact first, cut into blocks of `block` postings;
# inside a block the chunk ids in order, stored as differences from the previous one (small
# numbers, which PostgreSQL's TOAST compression packs once a block's arrays pass ~2 kB), and tf
# in quarters (the field weights are multiples of a quarter). `top` is the block's best impact:
# the blocks a query's budget reads come first.
BUILD = """
INSERT INTO blocks (term, block, top, chunks, tfs)
WITH ranked AS (
    SELECT term, chunk_id, tf, impact,
           (row_number() OVER (PARTITION BY term ORDER BY impact DESC, chunk_id) - 1)
               / %(block)s AS block
    FROM lexical_postings WHERE repository_id = %(repository)s),
deltas AS (
    SELECT term, block, chunk_id, tf, impact,
           chunk_id - coalesce(lag(chunk_id) OVER (PARTITION BY term, block ORDER BY chunk_id), 0)
               AS delta
    FROM ranked)
SELECT term, block::int, max(impact)::real, array_agg(delta ORDER BY chunk_id),
       array_agg(round(tf * 4)::int2 ORDER BY chunk_id)
FROM deltas GROUP BY term, block"""
# the terms' postings in their first `blocks` blocks, decoded: ids summed back, tf from quarters
READ = """
SELECT b.term, sum(t.delta) OVER (PARTITION BY b.term, b.block ORDER BY t.position) AS chunk_id,
       t.tf / 4.0 AS tf
FROM blocks b, unnest(b.chunks, b.tfs) WITH ORDINALITY AS t(delta, tf, position)
WHERE b.term = ANY(%(terms)s) AND b.block < %(blocks)s"""
RESULTS = Path(__file__).resolve().parent / "results"


def build_blocks(conn, repository_id: int, block: int) -> dict:
    """The repository's postings as blocks of `block` in the temporary table `blocks`; its
    rows, postings and bytes (with TOAST and the index)."""
    conn.execute("DROP TABLE IF EXISTS blocks")
    conn.execute(
        "CREATE TEMPORARY TABLE blocks"
        " (term bigint, block int, top real, chunks bigint[], tfs int2[])"
    )
    conn.execute(BUILD, {"repository": repository_id, "block": block})
    conn.execute("CREATE INDEX ON blocks (term, block)")
    row = conn.execute(
        "SELECT count(*) AS rows, coalesce(sum(cardinality(chunks)), 0) AS postings,"
        " pg_total_relation_size('blocks') AS bytes FROM blocks"
    ).fetchone()
    return dict(row)


def read_blocks(conn, terms: list[int], blocks: int) -> list[tuple[int, int, float]]:
    """(term, chunk id, tf) of the terms' first `blocks` blocks."""
    rows = conn.execute(READ, {"terms": terms, "blocks": blocks}).fetchall()
    return [(r["term"], int(r["chunk_id"]), float(r["tf"])) for r in rows]


def read_rows(conn, repository_id: int, terms: list[int], limit: int) -> list[tuple]:
    """(term, chunk id, tf) of the terms' best `limit` postings, as search reads them."""
    rows = conn.execute(
        "SELECT q.term, p.chunk_id, p.tf FROM unnest(%s::bigint[]) AS q(term)"
        " CROSS JOIN LATERAL (SELECT chunk_id, tf FROM lexical_postings lp"
        " WHERE lp.repository_id = %s AND lp.term = q.term"
        " ORDER BY lp.impact DESC LIMIT %s) p",
        (terms, repository_id, limit),
    ).fetchall()
    return [(r["term"], r["chunk_id"], r["tf"]) for r in rows]


def within_budget(conn, repository_id: int, budget: int) -> int:
    """The postings among their term's best `budget`: all a query ever reads (a term's read is
    at most `TERM_BUDGET`), so what an index pruned to them would keep."""
    return conn.execute(
        "SELECT coalesce(sum(least(n, %s)), 0) AS kept FROM (SELECT count(*) AS n"
        " FROM lexical_postings WHERE repository_id = %s GROUP BY term) t",
        (budget, repository_id),
    ).fetchone()["kept"]


def _ms(run) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def measure(conn, repository: str, sizes: list[int], queries: int, seed: int = 26) -> dict:
    """Both layouts of the repository's postings: bytes per posting and read times."""
    repository_id = conn.execute(
        "SELECT id FROM repositories WHERE name = %s", (repository,)
    ).fetchone()["id"]
    rows = conn.execute(
        "SELECT (SELECT count(*) FROM lexical_postings) AS postings,"
        " (SELECT count(*) FROM lexical_postings WHERE repository_id = %s) AS mine,"
        " pg_total_relation_size('lexical_postings') AS bytes",
        (repository_id,),
    ).fetchone()
    out: dict = {
        "repository": repository,
        "postings": rows["mine"],
        "rows_bytes_per_posting": rows["bytes"] / max(rows["postings"], 1),
        "within_budget": within_budget(conn, repository_id, TERM_BUDGET),
        "blocks": {},
    }
    for size in sizes:
        built = build_blocks(conn, repository_id, size)
        by_frequency = [
            r["term"]
            for r in conn.execute(
                "SELECT term FROM blocks GROUP BY term ORDER BY sum(cardinality(chunks)) DESC"
            ).fetchall()
        ]
        third = max(1, len(by_frequency) // 3)
        common, middling, rare = (
            by_frequency[:200],
            by_frequency[third:-third],
            by_frequency[-third:],
        )
        pick = random.Random(seed)
        block_ms, row_ms = [], []
        budget = -(-TERM_BUDGET // size)  # the blocks holding a term's first TERM_BUDGET
        for _ in range(queries):
            terms = pick.sample(common, 2) + pick.sample(middling, 3) + pick.sample(rare, 3)
            block_ms.append(_ms(lambda t=terms, n=budget: read_blocks(conn, t, n)))
            row_ms.append(_ms(lambda t=terms: read_rows(conn, repository_id, t, TERM_BUDGET)))
        out["blocks"][size] = {
            **built,
            "bytes_per_posting": built["bytes"] / max(built["postings"], 1),
            "read_ms_p50": statistics.median(block_ms),
            "rows_read_ms_p50": statistics.median(row_ms),
        }
        print(f"[postings] block {size}: {out['blocks'][size]}", file=sys.stderr, flush=True)
    conn.execute("DROP TABLE IF EXISTS blocks")
    return out


def markdown(result: dict, machine: str) -> str:
    """The results file."""
    lines = [
        "# Block-compressed postings, a prototype (`python -m benchmarks.postings_layout`)",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine}. Repository"
        f" `{result['repository']}`: {result['postings']:,} postings. Rows as stored today:"
        f" **{result['rows_bytes_per_posting']:.1f} bytes per posting** (heap and indexes).",
        "",
        "| block | rows | bytes per posting | × smaller | read a query's postings, p50 ms"
        " (blocks / rows) |",
        "|---:|---:|---:|---:|---|",
    ]
    for size, b in result["blocks"].items():
        lines.append(
            f"| {size} | {b['rows']:,} | {b['bytes_per_posting']:.2f} |"
            f" {result['rows_bytes_per_posting'] / b['bytes_per_posting']:.0f} |"
            f" {b['read_ms_p50']:.1f} / {b['rows_read_ms_p50']:.1f} |"
        )
    kept = result["within_budget"] / max(result["postings"], 1)
    lines += [
        "",
        f"Rows pruned to each term's best {TERM_BUDGET:,} postings (the most a query reads of"
        f" a term) would keep {result['within_budget']:,} of them, {kept:.0%}: a smaller table,"
        " not a different order of size.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--database", default="bench_loc_local", help="an indexed benchmark database")
    p.add_argument("--repository", default="django")
    p.add_argument("--blocks", default="128,1024", help="block sizes, comma-separated")
    p.add_argument("--queries", type=int, default=30)
    p.add_argument("--out", default=str(RESULTS / "postings_layout.md"))
    args = p.parse_args(argv)
    from benchmarks.machine import summary
    from benchmarks.workspace import database, prepare_environment
    from core.database import connect

    prepare_environment()
    conn = connect(database(args.database, fresh=False))
    conn.autocommit = True
    sizes = [int(x) for x in args.blocks.split(",")]
    result = measure(conn, args.repository, sizes, args.queries)
    text = markdown(result, summary())
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
