"""Hybrid search's retrievers run concurrently on pooled connections, with the same hits as one
after another on the caller's connection."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.retrieval.test_search import _embed

QUESTIONS = [
    "round_cents",
    "when is a customer eligible for a refund?",
    "InvoiceBuilder.add_line",
    "refund allowed within thirty days",
    "shipping cost of a parcel",
]


@pytest.fixture
def pool(shop_repo) -> Iterator:
    """A pool of two connections to the test database, as the MCP server keeps one."""
    from pgvector.psycopg import register_vector
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    with ConnectionPool(
        shop_repo.database_url,
        min_size=2,
        max_size=2,
        kwargs={"row_factory": dict_row},
        configure=register_vector,
    ) as opened:
        opened.wait()  # both connections open, so none is late for the 50 ms a search waits
        yield opened


def _hits(report) -> list[tuple]:
    return [
        (h.path, h.start_line, h.end_line, h.symbol, h.score, tuple(h.retrievers))
        for h in report.hits
    ]


@pytest.mark.parametrize("mode", ["hybrid", "lexical", "semantic"])
def test_concurrent_retrievers_give_the_same_hits_and_notes_as_sequential(
    conn, operator_scope, pool, mode
):
    from retrieval.concurrency import spare_connections
    from retrieval.search import search_code

    for question in QUESTIONS:
        for embed in (_embed, None):
            alone = search_code(conn, operator_scope, question, mode=mode, embed_query=embed)
            together = search_code(
                conn,
                operator_scope,
                question,
                mode=mode,
                embed_query=embed,
                connections=spare_connections(pool),
            )
            assert _hits(together) == _hits(alone)
            assert together.notes == alone.notes
    assert any(_hits(search_code(conn, operator_scope, q, embed_query=_embed)) for q in QUESTIONS)


def _backend(conn) -> int:
    return conn.info.backend_pid


def test_each_retriever_after_the_first_runs_on_a_connection_of_its_own(conn, pool):
    import threading

    from retrieval.concurrency import run_concurrently, spare_connections

    both_running = threading.Barrier(2, timeout=30)

    def together(c) -> int:  # returns only once the other one runs too
        both_running.wait()
        return _backend(c)

    own, second, third = run_concurrently(
        conn, [_backend, together, together], spare_connections(pool)
    )
    assert own == conn.info.backend_pid
    assert len({own, second, third}) == 3


def test_a_busy_pool_leaves_the_retrievers_on_the_callers_connection(conn, operator_scope, pool):
    from retrieval.concurrency import run_concurrently, spare_connections
    from retrieval.search import search_code

    expected = search_code(conn, operator_scope, "refund", embed_query=_embed)
    with pool.connection(), pool.connection():  # every pooled connection is taken
        pids = run_concurrently(conn, [_backend, _backend], spare_connections(pool))
        report = search_code(
            conn, operator_scope, "refund", embed_query=_embed, connections=spare_connections(pool)
        )
    assert pids == [conn.info.backend_pid] * 2
    assert _hits(report) == _hits(expected)


def test_an_error_in_a_concurrent_retriever_reaches_the_caller(conn, pool):
    import psycopg

    from retrieval.concurrency import run_concurrently, spare_connections

    def broken(c) -> None:
        c.execute("SELECT no_such_column FROM code_chunks")

    with pytest.raises(psycopg.errors.UndefinedColumn):
        run_concurrently(conn, [_backend, broken], spare_connections(pool))
    assert conn.execute("SELECT 1 AS one").fetchone()["one"] == 1
