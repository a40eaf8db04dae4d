"""The embedded server runs with codeatlas's settings (EMBEDDED_SERVER_SETTINGS), from its next
start on, and keeps an operator's own choice."""

from __future__ import annotations

from pathlib import Path

import psycopg


def _show(url: str, name: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT current_setting(%s)", (name,)).fetchone()
    assert row is not None
    return row[0]


def _stop(pgdata: Path) -> None:
    from core import embedded_server

    embedded_server.release(pgdata)
    embedded_server.stop(pgdata)


def test_the_embedded_server_runs_with_codeatlas_settings_from_its_next_start(tmp_path: Path):
    from core.database import EMBEDDED_SERVER_SETTINGS, _start_embedded

    pgdata = tmp_path / "postgres"
    _start_embedded(pgdata)
    _stop(pgdata)
    url = _start_embedded(pgdata)
    try:
        for name, value in EMBEDDED_SERVER_SETTINGS.items():
            assert _show(url, name) == value
    finally:
        _stop(pgdata)


def test_an_operators_own_setting_is_kept(pg_server: str):
    from core.database import configure_server

    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET work_mem = '8MB'")
        conn.execute("SELECT pg_reload_conf()")
    try:
        assert configure_server(pg_server, {"work_mem": "16MB"}) == []
        assert _show(pg_server, "work_mem") == "8MB"
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM RESET work_mem")
            conn.execute("SELECT pg_reload_conf()")


def test_a_setting_not_chosen_yet_is_written_and_reloaded(pg_server: str):
    from core.database import configure_server

    try:
        assert configure_server(pg_server, {"work_mem": "12MB"}) == ["work_mem"]
        assert _show(pg_server, "work_mem") == "12MB"
        assert configure_server(pg_server, {"work_mem": "12MB"}) == []
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM RESET work_mem")
            conn.execute("SELECT pg_reload_conf()")
