"""The file list of one commit in `snapshot_files`, with what is skipped and why.

The owner of the table `snapshot_files` (docs/architecture.md, "One owner per table"): every
statement that writes it is a function here.
"""

import time
from collections import Counter
from datetime import UTC, datetime

from core.config import Settings
from core.database import DictConnection, Row, transaction
from core.sql_files import composed, statement, statement_template
from indexing import git_source, repositories, snapshots
from indexing.parse_version import effective_parser_version
from indexing.parsing.file_rules import skip_reason
from indexing.parsing.languages import detect_language

_MODE_SKIPS = {"120000": "symlink", "160000": "submodule"}
# the reasons a file whose blob git cannot give is skipped with (issue 48)
ABSENT_BLOB = "blob absent from this partial clone"
UNREADABLE_BLOB = "blob unreadable by git"

# the file versions a snapshot has and its base lacks: a fragment the owners of other tables
# compose into their statements (chunk_embeddings.py)
ENTERING_FILE_VERSIONS = statement("snapshot_files", "entering_file_versions")
# the file versions that differ between two snapshots, with a sign: a fragment of the lexical
# statistics' deltas (lexical_index.py) and of the published stats below
FILE_VERSION_DELTA = statement("snapshot_files", "file_version_delta")
_STATS_FROM_BASE_SQL = composed(
    statement_template("snapshot_files", "publish_stats_from_base"), delta=FILE_VERSION_DELTA
)


def classify(entry: git_source.TreeEntry, max_bytes: int) -> tuple[str | None, str | None]:
    """(language, skip reason) of a tree entry, from its mode, path and size alone."""
    if entry.mode in _MODE_SKIPS:
        return None, _MODE_SKIPS[entry.mode]
    language = detect_language(entry.path, None)
    reason = skip_reason(entry.path, entry.size, None, max_bytes=max_bytes)
    if entry.absent and reason in (None, "empty"):  # its size is unknown, not 0
        return language, ABSENT_BLOB
    if reason is None and language is None:
        reason = "unsupported language"
    return language, reason


def record_source_files(
    url: str, settings: Settings, repository_name: str, commit_sha: str
) -> dict:
    """Create the snapshot row (if new) and replace its file list; return counts.

    A new snapshot of a repository whose current snapshot is published at this parser version
    (and file size limit) starts from that snapshot's file list: its rows are copied with their
    file versions, and only the paths `git diff-tree` names are listed, classified and matched
    to parsed file versions. The stored rows are those a listing of the whole tree would give
    once parsed, without work in proportion to the tree's size in Python (issue 30: a one-file
    commit of the Linux kernel listed and matched 78,635 paths). Re-running a commit, a
    repository without such a snapshot, or a checkout without that snapshot's commit (history
    rewritten, another repository under the name) lists the whole tree.
    """
    started = time.monotonic()
    version = effective_parser_version(settings)
    with transaction(url) as conn:
        repo = repositories.get(conn, repository_name)
    checkout = repositories.git_dir(settings, repo.origin)
    commit_sha = git_source.resolve_commit(checkout, commit_sha)
    with transaction(url) as conn:
        base = _file_list_base(conn, repo, commit_sha, version, settings.max_file_bytes)
    if base is not None and not git_source.has_commit(checkout, base["commit_sha"]):
        # the current snapshot's commit is not in this checkout (its history was rewritten, or
        # the name now points at another repository): nothing to diff against
        base = None
    gone: list[str] = []
    if base is not None:
        entries, gone = git_source.changed_entries(checkout, base["commit_sha"], commit_sha)
    else:
        entries = git_source.list_tree(checkout, commit_sha)
    committed_at = datetime.fromtimestamp(git_source.commit_time(checkout, commit_sha), UTC)
    rows = []
    reasons: Counter[str] = Counter()
    for entry in entries:
        language, reason = classify(entry, settings.max_file_bytes)
        if reason:
            reasons[reason] += 1
        rows.append((entry.path, entry.blob_sha, language, entry.size, reason))
    with transaction(url) as conn:
        snapshot_id = snapshots.upsert(
            conn, repo.id, commit_sha, repo.default_branch, version, committed_at
        )
        ids = {"snapshot_id": snapshot_id, "repository_id": repo.id, "parser_version": version}
        # A commit's tree never changes, so re-running keeps each path's file version until a
        # newer parse replaces it: readers of a published snapshot never lose a file.
        conn.execute(statement("snapshot_files", "create_staged"))
        with conn.cursor().copy(statement("snapshot_files", "copy_staged")) as copy:
            for row in rows:
                copy.write_row(row)
        if base is not None:
            conn.execute(
                statement("snapshot_files", "copy_unchanged"),
                {**ids, "base_id": base["id"], "gone": gone},
            )
        else:
            conn.execute(statement("snapshot_files", "delete_gone"), ids)
        conn.execute(statement("snapshot_files", "upsert_staged"), ids)
        conn.execute(statement("snapshot_files", "reuse_parsed_file_versions"), ids)
        reused = conn.execute(statement("snapshot_files", "count_parsed"), ids).fetchone()
        if base is not None:  # the whole list's counts: the copied rows' and the new ones'
            counted = conn.execute(statement("snapshot_files", "list_counts"), ids).fetchall()
            reasons = Counter({r["skip_reason"]: r["files"] for r in counted if r["skip_reason"]})
            files = sum(r["files"] for r in counted)
            size = sum(r["bytes"] for r in counted if r["skip_reason"] is None)
        else:
            files, size = len(rows), sum(r[3] for r in rows if r[4] is None)
    return {
        "snapshot_id": snapshot_id,
        "commit": commit_sha,
        "files": files,
        "indexable": files - sum(reasons.values()),
        "already_parsed": reused["n"] if reused else 0,
        "skipped": dict(reasons),
        "bytes": size,
        "changed": len(rows) + len(gone) if base is not None else None,
        "seconds": round(time.monotonic() - started, 3),
    }


def _file_list_base(
    conn: DictConnection, repo: repositories.Repository, sha: str, version: str, max_bytes: int
) -> dict | None:
    """The snapshot whose file list a new snapshot of `sha` starts from: the repository's
    current one, published at this parser version and file size limit (a path's skip reason
    and file version are then the same wherever its blob is), unless `sha`'s snapshot already
    has a file list (a re-run lists the whole tree)."""
    if repo.current_snapshot_id is None:
        return None
    base = snapshots.published_file_list(conn, repo.current_snapshot_id, version, max_bytes)
    if base is None or base["commit_sha"] == sha:
        return None
    existing = snapshots.id_of(conn, repo.id, sha)
    listed = (
        existing is not None
        and conn.execute(
            statement("snapshot_files", "listed"), {"snapshot_id": existing}
        ).fetchone()
    )
    return None if listed else base


def skip_blob(conn: DictConnection, snapshot_id: int, blob_sha: str, reason: str) -> None:
    """The snapshot's files of this blob are skipped (a reason found in their content)."""
    conn.execute(
        statement("snapshot_files", "skip_blob"),
        {"reason": reason, "snapshot_id": snapshot_id, "blob_sha": blob_sha},
    )


def set_file_version(
    conn: DictConnection, snapshot_id: int, blob_sha: str, file_version_id: int
) -> None:
    """The snapshot's indexable files of this blob are the parsed file version."""
    conn.execute(
        statement("snapshot_files", "set_file_version"),
        {"file_version_id": file_version_id, "snapshot_id": snapshot_id, "blob_sha": blob_sha},
    )


def indexable_count(conn: DictConnection, snapshot_id: int) -> int:
    """How many of the snapshot's files are not skipped."""
    row = conn.execute(
        statement("snapshot_files", "indexable_count"), {"snapshot_id": snapshot_id}
    ).fetchone()
    return row["n"] if row else 0


def paths_at(conn: DictConnection, repository_id: int, commit_sha: str) -> set[str]:
    """Every path of the repository's snapshot of `commit_sha` (skipped ones too)."""
    rows = conn.execute(
        statement("snapshot_files", "paths_at"),
        {"repository_id": repository_id, "commit_sha": commit_sha},
    ).fetchall()
    return {r["path"] for r in rows}


def pending_blobs(conn: DictConnection, snapshot_id: int, parser_version: str) -> list[Row]:
    """The snapshot's blobs not parsed at `parser_version` yet (what the parse step reads)."""
    return conn.execute(
        statement("snapshot_files", "pending_blobs"),
        {"snapshot_id": snapshot_id, "parser_version": parser_version},
    ).fetchall()


def unparsed_count(
    conn: DictConnection, snapshot_id: int, parser_version: str, lexical_version: str
) -> Row | None:
    """The row `n` of the snapshot's files not parsed or not tokenized at these versions."""
    return conn.execute(
        statement("snapshot_files", "unparsed_count"),
        {
            "snapshot_id": snapshot_id,
            "parser_version": parser_version,
            "lexical_version": lexical_version,
        },
    ).fetchone()


def stats_from_base(conn: DictConnection, params: dict[str, int]) -> Row | None:
    """A snapshot's files, indexed files, chunks and symbols from its base's plus the delta
    (`new`, `old`, `base_chunks`, `base_symbols`)."""
    return conn.execute(_STATS_FROM_BASE_SQL, params).fetchone()


def stats(conn: DictConnection, snapshot_id: int) -> Row | None:
    """A snapshot's files, indexed files, chunks and symbols, counted in full."""
    return conn.execute(
        statement("snapshot_files", "publish_stats"), {"snapshot_id": snapshot_id}
    ).fetchone()
