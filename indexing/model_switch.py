"""Switching a repository's active embedding model, in one transaction (Dagster-free)."""

import psycopg

from indexing.embedding_step import coverage


def _outside_transaction(conn: psycopg.Connection) -> None:
    """The switch commits on its own. Inside a transaction the caller left open (a SELECT
    before it), `conn.transaction()` is only a savepoint, and a caller that closes without
    committing rolls the switch back: the upgrade sensor then reported "switched" every
    minute while nothing changed."""
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        raise RuntimeError("a model switch needs a connection outside any open transaction")


def try_switch(conn: psycopg.Connection, repository: str, every_snapshot: bool = False) -> bool:
    """Make the upgrading model active if it covers the current snapshot (with `every_snapshot`:
    every ready snapshot too, what a model upgrade's backfill fills), in one transaction."""
    _outside_transaction(conn)
    with conn.transaction():
        row = conn.execute(
            "SELECT id, current_snapshot_id, upgrading_embedding_model AS upgrading"
            " FROM repositories WHERE name = %s FOR UPDATE",
            (repository,),
        ).fetchone()
        if row is None or row["upgrading"] is None or row["current_snapshot_id"] is None:
            return False
        snapshots = [row["current_snapshot_id"]]
        if every_snapshot:
            snapshots += [
                r["id"]
                for r in conn.execute(
                    "SELECT id FROM snapshots WHERE repository_id = %s AND status = 'ready'"
                    " AND id <> %s ORDER BY id",
                    (row["id"], row["current_snapshot_id"]),
                )
            ]
        for snapshot in snapshots:
            embedded, total = coverage(conn, snapshot, row["upgrading"])
            if embedded < total:
                return False
        conn.execute(
            "UPDATE repositories SET active_embedding_model = upgrading_embedding_model,"
            " upgrading_embedding_model = NULL WHERE id = %s",
            (row["id"],),
        )
    return True


def adopt_configured_model(conn: psycopg.Connection, repository: str, model: str) -> bool:
    """After an index run embedded with the configured `model`: make it the upgrade target of
    `repository` (unless an upgrade to another model is under way) and switch if it is complete.

    The same rule `model_upgrade_sensor` applies, so `codeatlas index` without a daemon does
    not leave search on a model the environment no longer configures.
    """
    _outside_transaction(conn)
    with conn.transaction():
        row = conn.execute(
            "SELECT active_embedding_model AS active, upgrading_embedding_model AS upgrading"
            " FROM repositories WHERE name = %s FOR UPDATE",
            (repository,),
        ).fetchone()
        if row is None or row["active"] in (None, model) or row["upgrading"] not in (None, model):
            return False
        conn.execute(
            "UPDATE repositories SET upgrading_embedding_model = %s WHERE name = %s",
            (model, repository),
        )
    return try_switch(conn, repository)


def begin_upgrade(conn: psycopg.Connection, repository: str, model: str) -> bool:
    """Make `model` the upgrade target of `repository` unless it is already active or another
    upgrade is under way (a backfill for `model` launched from the UI starts the upgrade)."""
    _outside_transaction(conn)
    with conn.transaction():
        started = conn.execute(
            "UPDATE repositories SET upgrading_embedding_model = %(m)s WHERE name = %(r)s"
            " AND active_embedding_model IS NOT NULL AND active_embedding_model <> %(m)s"
            " AND upgrading_embedding_model IS NULL",
            {"m": model, "r": repository},
        ).rowcount
    return started > 0
