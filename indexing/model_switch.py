"""Switching a repository's active embedding model, in one transaction (Dagster-free)."""

import psycopg

from core.database import DictConnection
from indexing import repositories, snapshots
from indexing.embedding_step import coverage


def _outside_transaction(conn: DictConnection) -> None:
    """The switch commits on its own. Inside a transaction the caller left open (a SELECT
    before it), `conn.transaction()` is only a savepoint, and a caller that closes without
    committing rolls the switch back: the upgrade sensor then reported "switched" every
    minute while nothing changed."""
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        raise RuntimeError("a model switch needs a connection outside any open transaction")


def try_switch(conn: DictConnection, repository: str, every_snapshot: bool = False) -> bool:
    """Make the upgrading model active if it covers the current snapshot (with `every_snapshot`:
    every ready snapshot too, what a model upgrade's backfill fills), in one transaction."""
    _outside_transaction(conn)
    with conn.transaction():
        row = repositories.lock_models(conn, repository)
        if row is None or row["upgrading"] is None or row["current_snapshot_id"] is None:
            return False
        targets = [row["current_snapshot_id"]]
        if every_snapshot:
            targets += snapshots.ready_ids(conn, row["id"])
        for snapshot in dict.fromkeys(targets):
            embedded, total = coverage(conn, snapshot, row["upgrading"])
            if embedded < total:
                return False
        repositories.activate_upgrading_model(conn, row["id"])
    return True


def adopt_configured_model(conn: DictConnection, repository: str, model: str) -> bool:
    """After an index run embedded with the configured `model`: make it the upgrade target of
    `repository` (unless an upgrade to another model is under way) and switch if it is complete.

    The same rule `model_upgrade_sensor` applies, so `codeatlas index` without a daemon does
    not leave search on a model the environment no longer configures.
    """
    _outside_transaction(conn)
    with conn.transaction():
        row = repositories.lock_models(conn, repository)
        if row is None or row["active"] in (None, model) or row["upgrading"] not in (None, model):
            return False
        repositories.set_upgrading_model(conn, repository, model)
    return try_switch(conn, repository)


def begin_upgrade(conn: DictConnection, repository: str, model: str) -> bool:
    """Make `model` the upgrade target of `repository` unless it is already active or another
    upgrade is under way (a backfill for `model` launched from the UI starts the upgrade)."""
    _outside_transaction(conn)
    with conn.transaction():
        row = repositories.lock_models(conn, repository)
        if row is None or row["active"] in (None, model) or row["upgrading"] is not None:
            return False
        repositories.set_upgrading_model(conn, repository, model)
    return True
