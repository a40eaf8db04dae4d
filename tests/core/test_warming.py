"""Warming a started server's cache: every search table and index is read, within the budget."""

from __future__ import annotations

import psycopg

from core.sql_files import statement
from core.warming import SEARCH_TABLES, warm


def test_warming_reads_every_page_of_the_search_tables_and_their_indexes(database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        sizes = [
            size
            for table in SEARCH_TABLES
            for _relation, size in conn.execute(statement("warming", "relations"), {"table": table})
        ]
    assert len(sizes) > len(SEARCH_TABLES), "the tables' indexes were not found"
    # a fresh database's indexes hold their metapages: far below half of shared_buffers
    assert warm(database_url) == sum(sizes) > 0
    assert warm(database_url, share=0) == 0
