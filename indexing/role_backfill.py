"""Roles of file versions parsed before roles were read (`file_versions.role` NULL), read from
their stored chunks' text: an index built before sql/migrations/020 gets them the next time a
snapshot of its repository is parsed, without parsing any blob again."""

from __future__ import annotations

import psycopg

from indexing import storage
from indexing.parsing.content_roles import READ_CHARS, content_role

# file versions read per statement: their texts are held in memory together
BATCH = 200


def fill_missing_roles(conn: psycopg.Connection, snapshot_id: int) -> int:
    """Read and store the role of the snapshot's file versions that have none; how many."""
    missing = storage.versions_without_role(conn, snapshot_id)
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        texts = storage.stored_texts(conn, [r["id"] for r in batch])
        roles = [
            (content_role(r["language"], texts.get(r["id"], "")[:READ_CHARS]), r["id"])
            for r in batch
        ]
        storage.set_roles(conn, roles)
    return len(missing)
