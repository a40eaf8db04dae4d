"""Storing verified pushes: match the payload's repository, check its secret, record the event.

Dagster-free psycopg code shared by the receiver (writes) and the CLI (secrets). The owner of
the tables `webhook_events` and `repository_webhooks` (docs/architecture.md, "One owner per
table"): every statement that writes them is a function here, the push sensor's included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from core.database import DictConnection
from core.sql_files import statement
from indexing import repositories
from orchestration.webhooks.providers import PushEvent, RefChange, verify
from orchestration.webhooks.secret_box import PREFIX, seal, unseal

_LOCK_SPACE = 0x5EB  # advisory-lock namespace of webhook storage (key: repository id)


@dataclass(frozen=True)
class StoredEvent:
    """The outcome of one delivery: the event row's id (None for a duplicate) and its status."""

    id: int | None
    status: str  # pending | ignored | duplicate
    repository: str
    detail: str | None


def location_key(origin: str) -> str:
    """One spelling per location: `git@host:o/r.git` and `https://u@host/o/r` → `host/o/r`."""
    text = origin.strip()
    scp = re.match(r"^[\w.-]+@([\w.-]+):(?!//)(.*)$", text)
    if scp:
        host, path = scp.group(1), scp.group(2)
    elif re.match(r"^[a-z][a-z0-9+.-]*://", text, re.IGNORECASE):
        parts = urlsplit(text)
        host, path = (parts.hostname or ""), parts.path
    else:
        host, path = "", str(Path(text).expanduser())
    path = re.sub(r"(\.git)?/*$", "", path.rstrip("/"))
    return f"{host.lower()}/{path.lstrip('/')}" if host else path


def matching_repositories(conn: DictConnection, event: PushEvent) -> list[dict]:
    """Registered repositories the payload names, by clone URL, then `owner/name`."""
    return _matching(repositories.locations(conn), event)


def _matching(rows: list[dict], event: PushEvent) -> list[dict]:
    keys = {location_key(u) for u in event.urls}
    full = (event.full_name or "").lower()
    found = []
    for row in rows:
        origin_key = location_key(row["origin"])
        if (
            origin_key in keys
            or (full and row["name"].lower() == full)
            or (full and origin_key.lower().endswith("/" + full))
        ):
            found.append(row)
    return found


def verified_repositories(
    conn: DictConnection, event: PushEvent, signature: str, body: bytes, key: str | None
) -> list[dict]:
    """The matching repositories whose secret for this provider the signature proves (`key`
    unseals encrypted secrets: `Settings.secret_key`)."""
    candidates = matching_repositories(conn, event)
    if not candidates:
        return []
    secrets = conn.execute(
        statement("webhook_events", "secrets_of"),
        {"provider": event.provider, "repository_ids": [r["id"] for r in candidates]},
    ).fetchall()
    by_id = {s["repository_id"]: unseal(s["secret"], key) for s in secrets}
    return [
        r
        for r in candidates
        if r["id"] in by_id and verify(event.provider, signature, by_id[r["id"]], body)
    ]


def secret_registry(conn: DictConnection) -> list[dict]:
    """Every repository with its stored (sealed) webhook secrets by provider: what the receiver
    keeps in memory to verify deliveries while the database is down (`spool.py`)."""
    secrets: dict[int, dict[str, str]] = {}
    for row in conn.execute(statement("webhook_events", "all_secrets")):
        secrets.setdefault(row["repository_id"], {})[row["provider"]] = row["secret"]
    return [
        {**r, "secrets": secrets[r["id"]]}
        for r in repositories.locations(conn)
        if r["id"] in secrets
    ]


def verified_in_registry(
    registry: list[dict], event: PushEvent, signature: str, body: bytes, key: str | None
) -> list[dict]:
    """As `verified_repositories`, against a `secret_registry` read earlier."""
    return [
        r
        for r in _matching(registry, event)
        if event.provider in r["secrets"]
        and verify(event.provider, signature, unseal(r["secrets"][event.provider], key), body)
    ]


def choose(repos: list[dict], event: PushEvent) -> tuple[dict, RefChange | None]:
    """The repository and ref change a push is about: preferably one tracking the branch."""
    for repo in repos:
        for change in event.changes:
            if repo["default_branch"] and change.branch == repo["default_branch"]:
                return repo, change
    return repos[0], (event.changes[0] if event.changes else None)


def triage(repo: dict, change: RefChange | None) -> str | None:
    """Why this push produces no work (None: it moves the tracked branch to a new commit)."""
    if change is None:
        return "push without ref changes"
    if change.ref.startswith("refs/tags/"):
        return f"tag push ({change.ref.removeprefix('refs/tags/')}): only branches are indexed"
    if change.branch is None:
        return f"{change.ref} is not a branch"
    if not repo["default_branch"]:
        return "the repository tracks no branch (register it with --branch)"
    if change.branch != repo["default_branch"]:
        return f"branch {change.branch} is not the tracked branch {repo['default_branch']}"
    if change.after is None:
        return f"branch {change.branch} was deleted"
    return None


def store(
    conn: DictConnection, event: PushEvent, repo: dict, change: RefChange | None
) -> StoredEvent:
    """Insert the event once per (provider, delivery id) and once per push: the same ref moved
    to the same commit as the repository's latest event for that ref stores nothing new (a body
    re-sent under a new delivery id). A later push back to an older commit is still stored."""
    reason = triage(repo, change)
    status = "ignored" if reason else "pending"
    if change is not None and change.after is not None:
        # one receiver at a time per repository decides what is new (held to commit)
        conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_SPACE, repo["id"]))
        latest = conn.execute(
            statement("webhook_events", "latest_after"),
            {"repository": repo["name"], "ref": change.ref},
        ).fetchone()
        if latest is not None and latest["after_sha"] == change.after:
            return StoredEvent(None, "duplicate", repo["name"], "this push was already received")
    row = conn.execute(
        statement("webhook_events", "store"),
        {
            "provider": event.provider,
            "delivery_id": event.delivery_id,
            "repository": repo["name"],
            "repository_id": repo["id"],
            "event": event.event,
            "ref": change.ref if change else None,
            "after_sha": change.after if change else None,
            "status": status,
            "detail": reason,
            "handled": reason is not None,
        },
    ).fetchone()
    if row is None:
        return StoredEvent(None, "duplicate", repo["name"], "delivery already received")
    return StoredEvent(row["id"], status, repo["name"], reason)


def set_secret(
    conn: DictConnection, repository_id: int, provider: str, secret: str, key: str | None
) -> None:
    """Create or replace a repository's webhook secret for one provider (encrypted with `key`
    when there is one: CODEATLAS_SECRET_KEY)."""
    conn.execute(
        statement("webhook_events", "set_secret"),
        {"repository_id": repository_id, "provider": provider, "secret": seal(secret, key)},
    )


def seal_stored_secrets(conn: DictConnection, key: str | None) -> int:
    """Encrypt with `key` the secrets still stored in plain text (none without a key)."""
    if key is None:
        return 0
    rows = conn.execute(
        statement("webhook_events", "lock_unsealed_secrets"), {"sealed_prefix": PREFIX + "%"}
    ).fetchall()
    for row in rows:
        conn.execute(
            statement("webhook_events", "replace_secret"),
            {
                "secret": seal(row["secret"], key),
                "repository_id": row["repository_id"],
                "provider": row["provider"],
            },
        )
    return len(rows)


def lock_pending(conn: DictConnection, limit: int) -> list[dict]:
    """The oldest pending events (with their repository's name and origin), locked; events
    another tick holds are skipped."""
    return conn.execute(statement("webhook_events", "lock_pending"), {"limit": limit}).fetchall()


def mark(conn: DictConnection, event_id: int, status: str, detail: str) -> None:
    """The event is handled with this status and why."""
    conn.execute(
        statement("webhook_events", "mark"), {"status": status, "detail": detail, "id": event_id}
    )


def mark_fetch_failed(
    conn: DictConnection, event_id: int, attempts: int, detail: str, status: str
) -> None:
    """Fetching the event's commit failed: retried while `status` is pending, else failed."""
    conn.execute(
        statement("webhook_events", "mark_fetch_failed"),
        {"attempts": attempts, "detail": detail, "status": status, "id": event_id},
    )


def mark_pending(conn: DictConnection, event_id: int, detail: str) -> None:
    """The event's run was not launched after all: the sensor's next tick plans it again."""
    conn.execute(statement("webhook_events", "mark_pending"), {"detail": detail, "id": event_id})


def mark_queued(conn: DictConnection, event_id: int, run_key: str) -> None:
    """A run was requested for the event's commit."""
    conn.execute(statement("webhook_events", "mark_queued"), {"run_key": run_key, "id": event_id})
