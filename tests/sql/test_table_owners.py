"""One owner per table: the statements that write a table are in one module (docs/architecture.md,
"One owner per table"), and the spread tables are read only through owner modules or `sql/`."""

from __future__ import annotations

import re
from pathlib import Path

from tests.sql.source_sql import ROOT, inline_sql, source_files

# table -> the module that owns its writes (the same table is in docs/architecture.md)
OWNERS = {
    "repositories": "indexing/repositories.py",
    "snapshots": "indexing/snapshots.py",
    "snapshot_files": "indexing/snapshot_files.py",
    "file_versions": "indexing/storage.py",
    "code_chunks": "indexing/storage.py",
    "chunk_text_pages": "indexing/storage.py",
    "code_symbols": "indexing/storage.py",
    "code_edges": "indexing/storage.py",
    "chunk_embeddings": "indexing/chunk_embeddings.py",
    "embedding_models": "indexing/embedding_registry.py",
    "lexical_postings": "indexing/lexical_index.py",
    "lexical_chunk_terms": "indexing/lexical_index.py",
    "lexical_blocks": "indexing/lexical_index.py",
    "lexical_blocks_built": "indexing/lexical_index.py",
    "lexical_term_stats": "indexing/lexical_index.py",
    "lexical_corpus": "indexing/lexical_index.py",
    "principals": "retrieval/principals.py",
    "repository_grants": "retrieval/principals.py",
    "api_tokens": "mcp_app/tokens.py",
    "overlay_files": "mcp_app/overlay_retention.py",
    "webhook_events": "orchestration/webhooks/events.py",
    "repository_webhooks": "orchestration/webhooks/events.py",
    "schema_migrations": "core/migrations.py",
}
# read from many packages before they had an owner (issue 29): SQL naming them sits in an owner
# module or in sql/, nowhere else
READ_THROUGH_OWNERS = ("repositories", "snapshots", "chunk_embeddings", "embedding_models")
_WRITE = re.compile(
    r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY|TRUNCATE)\s+(?:ONLY\s+)?(\w+)", re.IGNORECASE
)
_LOAD = re.compile(r"\bstatement(?:_template)?\(\s*\"(\w+)\",\s*\"(\w+)\"\s*\)")


def written_tables(text: str) -> set[str]:
    """The tables a statement writes (`INSERT INTO`, `UPDATE`, `DELETE FROM`, `COPY`)."""
    return {t for t in _WRITE.findall(text) if t in OWNERS}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_every_table_of_the_schema_has_an_owner_module():
    # the tables the migrations leave, in their order: created, dropped, renamed
    schema_changes = re.compile(
        r"CREATE TABLE (?:IF NOT EXISTS )?(?P<created>\w+)"
        r"|DROP TABLE (?:IF EXISTS )?(?P<dropped>\w+)"
        r"|ALTER TABLE (?P<old>\w+) RENAME TO (?P<new>\w+)"
    )
    created: set[str] = set()
    for migration in sorted((ROOT / "sql" / "migrations").glob("*.sql")):
        for change in schema_changes.finditer(migration.read_text()):
            if change["created"]:
                created.add(change["created"])
            elif change["dropped"]:
                created.discard(change["dropped"])
            else:
                created.discard(change["old"])
                created.add(change["new"])
    assert created, "no CREATE TABLE found in sql/migrations/"
    assert created | {"schema_migrations"} == set(OWNERS)
    for module in set(OWNERS.values()):
        assert (ROOT / module).is_file(), f"the owner {module} does not exist"


def test_each_tables_inline_writes_are_in_its_owner():
    strays = [
        f"{s.where()} writes {table} (owner: {OWNERS[table]})"
        for s in inline_sql()
        for table in written_tables(s.text)
        if _relative(s.path) != OWNERS[table]
    ]
    assert not strays, "\n".join(strays)


def test_statement_files_that_write_a_table_are_run_by_its_owner_alone():
    loaders: dict[str, set[str]] = {}
    for path in source_files():
        for folder, name in _LOAD.findall(path.read_text()):
            loaders.setdefault(f"{folder}/{name}.sql", set()).add(_relative(path))
    writing = 0
    for path in (ROOT / "sql").rglob("*.sql"):
        if path.parent.name == "migrations":
            continue
        for table in written_tables(path.read_text()):
            writing += 1
            key = path.relative_to(ROOT / "sql").as_posix()
            assert loaders.get(key) == {OWNERS[table]}, f"sql/{key} writes {table}: {loaders}"
    assert writing >= 5, "no statement file writes a table: the pattern is out of date"


def test_the_spread_tables_are_read_in_owner_modules_or_sql_files_only():
    owners = set(OWNERS.values())
    strays = [
        f"{s.where()} names {table}"
        for s in inline_sql()
        for table in READ_THROUGH_OWNERS
        if re.search(rf"\b{table}\b", s.text) and _relative(s.path) not in owners
    ]
    assert not strays, "\n".join(strays)


def test_outside_the_retrievers_sql_naming_a_table_sits_in_an_owner_module():
    # the retrievers (retrieval/) compose their reads from shared fragments (the visible files,
    # the candidate columns, a caller's condition): they read inline; nothing else does
    owners = set(OWNERS.values())
    strays = [
        f"{s.where()} names {table}"
        for s in inline_sql()
        if not _relative(s.path).startswith("retrieval/") and _relative(s.path) not in owners
        for table in OWNERS
        if re.search(rf"\b{table}\b", s.text)
    ]
    assert not strays, "\n".join(strays)


def test_each_tables_statement_folder_is_loaded_by_its_owner_alone():
    foreign = {
        (folder, _relative(path))
        for path in source_files()
        for folder, _name in _LOAD.findall(path.read_text())
        if folder in OWNERS and _relative(path) != OWNERS[folder]
    }
    assert foreign == set(), "call the table's owner module, which loads its statements"
    assert any(
        folder == "chunk_embeddings"
        for folder, _ in _LOAD.findall((ROOT / OWNERS["chunk_embeddings"]).read_text())
    ), "the finder of loads is out of date"


def test_the_write_finder_sees_every_kind_of_write():
    statement = (
        "WITH gone AS (DELETE FROM snapshots WHERE id = 1),"
        " moved AS (UPDATE repositories r SET name = 'x')"
        " INSERT INTO principals (name) SELECT name FROM api_tokens"
    )
    assert written_tables(statement) == {"snapshots", "repositories", "principals"}
    assert written_tables("COPY lexical_postings (chunk_id) FROM STDIN") == {"lexical_postings"}
    assert written_tables("SELECT * FROM chunk_embeddings") == set()
