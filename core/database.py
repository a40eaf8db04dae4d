"""Where PostgreSQL is: the embedded server in the state directory, or CODEATLAS_DATABASE_URL."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.rows import dict_row

from core.config import Settings
from core.errors import DatabaseUnavailableError, first_line

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

# connections made here return rows as dicts
DictConnection: TypeAlias = "psycopg.Connection[Any]"
# a row as those connections return it: a dict by column name
Row: TypeAlias = dict[str, Any]

INDEX_DATABASE = "codeatlas"
DAGSTER_DATABASE = "dagster"

# what the embedded server runs with beyond PostgreSQL's defaults (docs/lexical.md, "Server
# settings"): the lexical postings' and vectors' pages stay in the server's own cache instead of
# being copied from the OS cache on every query (128 MB holds a tenth of a 100k-chunk index);
# the keeper fills them after a start (core/warming.py). A statement whose client has gone (an
# interrupted `codeatlas index` reading two million chunks for their vectors) stops within 10 s
# instead of holding a core until it ends.
EMBEDDED_SERVER_SETTINGS = {"shared_buffers": "1GB", "client_connection_check_interval": "10s"}


def _start_embedded(pgdata: Path, idle_seconds: int = 600) -> str:
    """Start (or attach to) the embedded server and return a URL to its `postgres` database; it
    stays up `idle_seconds` after its last user exits (core/embedded_server.py)."""
    from core import embedded_server

    was_running = pgdata.exists() and embedded_server.postmaster(pgdata) is not None
    try:
        url = embedded_server.attach(pgdata, idle_seconds)
    except Exception as exc:  # noqa: BLE001 - the library raises many kinds
        failure = embedded_server.start_failure(pgdata, exc)
        where = f"Details are in {failure.log}; fix that," if failure.log else "Fix that,"
        raise DatabaseUnavailableError(
            f"could not start the embedded PostgreSQL in {pgdata}: {failure.cause[:300]}. "
            f"{where} or set CODEATLAS_DATABASE_URL to a PostgreSQL server of your own."
        ) from exc
    if not was_running:  # the process that starts it checks its settings; the others need not
        configure_server(url, EMBEDDED_SERVER_SETTINGS)
    return url


def configure_server(url: str, settings: dict[str, str]) -> list[str]:
    """`ALTER SYSTEM SET` each setting the server's postgresql.auto.conf does not set yet (an
    operator's own choice stays); returns the names set. A setting that needs a restart
    (shared_buffers) applies from the server's next start: the embedded server stops once no
    process uses it."""
    with psycopg.connect(url, autocommit=True) as conn:
        chosen = {
            row[0]
            for row in conn.execute(
                "SELECT name FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'"
            )
        }
        missing = [name for name in settings if name not in chosen]
        for name in missing:
            conn.execute(
                sql.SQL("ALTER SYSTEM SET {} = {}").format(
                    sql.Identifier(name), sql.Literal(settings[name])
                )
            )
        if missing:
            conn.execute("SELECT pg_reload_conf()")
    return missing


def with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + database))


def server_url(settings: Settings) -> str:
    """URL of the server's maintenance database, starting the embedded server if needed."""
    if settings.database_url:
        return with_database(settings.database_url, "postgres")
    return _start_embedded(settings.state_dir / "postgres", settings.server_idle_seconds)


def index_database_url(settings: Settings) -> str:
    """URL of the codeatlas database (created and migrated on first use by `ensure_database`)."""
    if settings.database_url:
        return settings.database_url
    return with_database(server_url(settings), INDEX_DATABASE)


def dagster_storage_url(url: str) -> str:
    """SQLAlchemy URL for dagster-postgres on the same server (psycopg2 driver, `dagster` db).

    A bare `postgresql://` makes SQLAlchemy 2.1 pick psycopg 3, which breaks
    dagster-postgres's NOTIFY; hence the explicit driver.
    """
    parts = urlsplit(with_database(url, DAGSTER_DATABASE))
    query = parse_qs(parts.query)
    netloc = parts.netloc if parts.netloc not in ("", "postgres:@") else "postgres@"
    if netloc.endswith(":@"):
        netloc = netloc[:-2] + "@"
    return urlunsplit(("postgresql+psycopg2", netloc, parts.path, urlencode(query, doseq=True), ""))


def create_database_if_missing(url: str, database: str) -> None:
    """CREATE DATABASE unless it exists (needs a URL to any database on that server)."""
    try:
        with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
            ).fetchone()
            if not exists:
                # another process may create it at the same moment (two first commands)
                with contextlib.suppress(
                    psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation
                ):
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    except psycopg.OperationalError as exc:
        raise DatabaseUnavailableError(_unreachable(url, exc)) from exc


def _unreachable(url: str, exc: Exception) -> str:
    safe = urlsplit(url)
    host = safe.hostname or parse_qs(safe.query).get("host", ["local socket"])[0]
    return (
        f"cannot reach PostgreSQL at {host}{safe.path}: {first_line(exc)}. "
        "Is the server running? Unset CODEATLAS_DATABASE_URL to use the embedded server."
    )


def connect(url: str, *, autocommit: bool = False) -> DictConnection:
    """Open a connection with dict rows and pgvector types registered."""
    try:
        conn = psycopg.Connection.connect(
            url,
            autocommit=autocommit,
            row_factory=dict_row,  # pyright: ignore[reportArgumentType]
        )
    except psycopg.OperationalError as exc:
        raise DatabaseUnavailableError(_unreachable(url, exc)) from exc
    try:
        register_vector(conn)
    except psycopg.ProgrammingError as exc:
        conn.close()
        raise DatabaseUnavailableError(
            "the pgvector extension is not installed in this database: run "
            "`codeatlas status` once to migrate it, or CREATE EXTENSION vector as a superuser."
        ) from exc
    return conn


@contextlib.contextmanager
def connection(url: str, *, autocommit: bool = False) -> Iterator[DictConnection]:
    """A connection (`connect`'s) closed on exit; work not committed inside is rolled back."""
    conn = connect(url, autocommit=autocommit)
    try:
        yield conn
    finally:
        conn.close()


@contextlib.contextmanager
def transaction(url: str) -> Iterator[DictConnection]:
    """A connection whose work commits on success and rolls back on error."""
    with connection(url) as conn, conn.transaction():
        yield conn


def analyze(url: str, tables: tuple[str, ...]) -> None:
    """Refresh planner statistics after a bulk load (else the first queries plan as if empty)."""
    with connection(url, autocommit=True) as conn:
        conn.execute("ANALYZE " + ", ".join(tables))  # type: ignore[arg-type]  # constant names


POOL_RECONNECT_SECONDS = 4.0


def open_pool(
    url: str, *, max_size: int, name: str, read_only: bool = False
) -> ConnectionPool[Any]:
    """A pool (opening in the background) whose connections are `connect`'s: dict rows and
    pgvector's types; `read_only` sessions for a streaming replica (it refuses writes anyway;
    this makes a misrouted write fail the same way on any server)."""
    from psycopg_pool import ConnectionPool

    def configure(conn: psycopg.Connection[Any]) -> None:
        register_vector(conn)
        if read_only:
            conn.read_only = True
            conn.commit()  # register_vector's lookup opened a transaction

    pool: ConnectionPool[Any] = ConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        # a host that drops packets fails a connection in seconds, not libpq's forever
        kwargs={"row_factory": dict_row, "autocommit": False, "connect_timeout": 3},
        configure=configure,
        open=False,
        name=name,
        # the pool's retries back off exponentially (1, 2, 4 ... s): after a minute's outage the
        # next one would come half a minute after the database's return. Giving up after a few
        # seconds lets the next checkout start a fresh attempt at once instead.
        reconnect_timeout=POOL_RECONNECT_SECONDS,
    )
    pool.open(wait=False)
    return pool


def unreachable_reason(url: str, timeout_seconds: int) -> str | None:
    """Why a new connection to `url` fails within `timeout_seconds` (libpq's connect timeout),
    or None when it succeeds (the connection is closed at once)."""
    try:
        psycopg.connect(url, connect_timeout=timeout_seconds).close()
    except psycopg.Error as exc:
        return first_line(exc)[:200]
    return None


def ensure_index_database(settings: Settings) -> str:
    """Create and migrate the codeatlas database if needed; return its URL."""
    url = index_database_url(settings)
    if not settings.database_url:
        create_database_if_missing(url, INDEX_DATABASE)
    migrate_database(url)
    return url


def migrate_database(url: str) -> None:
    """Apply the migrations not yet applied to the database at `url`."""
    from core.migrations import migrate

    with contextlib.closing(connect_plain(url)) as conn:
        migrate(conn)


def connect_plain(url: str) -> DictConnection:
    """A connection without pgvector types (for migrating a blank database)."""
    try:
        return psycopg.Connection.connect(
            url,
            autocommit=True,
            row_factory=dict_row,  # pyright: ignore[reportArgumentType]
        )
    except psycopg.OperationalError as exc:
        raise DatabaseUnavailableError(_unreachable(url, exc)) from exc
