"""Bearer tokens for the HTTP transport: random secrets shown once, stored as SHA-256 hashes,
each mapped to a principal whose grants are enforced in SQL, until it is revoked or its
lifetime (`--expires-in`, sql/migrations/019) ends."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from core.errors import CodeatlasError
from core.sql_files import statement
from retrieval.principals import DbConnection, Principal, get_principal

TOKEN_PREFIX = "cat_"
LIFETIME_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_LIFETIME = timedelta(days=3650)
_LIFETIME = re.compile(r"(\d{1,7})([smhd])")


class TokenNotFoundError(CodeatlasError):
    """No (or more than one) token matches what was given to revoke."""


class TokenLifetimeError(CodeatlasError):
    """A token lifetime that is not a positive number of seconds, minutes, hours or days."""


def parse_lifetime(text: str) -> timedelta:
    """`30d`, `12h`, `90m` or `3600s` as a duration (at most ten years)."""
    match = _LIFETIME.fullmatch(text.strip().lower())
    if match is None or int(match[1]) == 0:
        raise TokenLifetimeError(
            f"--expires-in {text!r} is not a lifetime: give a positive whole number and a unit,"
            " s, m, h or d (e.g. 30d, 12h, 90m)"
        )
    lifetime = timedelta(seconds=int(match[1]) * LIFETIME_UNITS[match[2]])
    if lifetime > MAX_LIFETIME:
        raise TokenLifetimeError(
            f"--expires-in {text!r} is longer than ten years; leave it out for a token that"
            " lives until it is revoked"
        )
    return lifetime


def token_hash(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(
    conn: DbConnection,
    principal_name: str,
    label: str | None = None,
    lifetime: timedelta | None = None,
) -> tuple[int, str]:
    """(token id, the secret): the secret is returned once and never stored. With a
    `lifetime` the token is refused from then on; without, it lives until revoked."""
    principal = get_principal(conn, principal_name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = conn.execute(
        statement("api_tokens", "create"),
        {
            "principal_id": principal.id,
            "token_hash": token_hash(token),
            "label": label,
            "lifetime": lifetime,
        },
    ).fetchone()
    assert row is not None
    return row["id"], token


def revoke_token(conn: DbConnection, id_or_prefix: str) -> int:
    """Revoke by id, by the token itself, or by a unique prefix (>= 8 hex) of its hash."""
    given = id_or_prefix.strip()
    match: dict[str, Any] = {"id": None, "token_hash": None, "hash_prefix": None}
    if given.isdigit():
        match["id"] = int(given)
    elif given.startswith(TOKEN_PREFIX):
        match["token_hash"] = token_hash(given)
    elif len(given) >= 8 and all(c in "0123456789abcdef" for c in given.lower()):
        match["hash_prefix"] = given.lower() + "%"
    else:
        raise TokenNotFoundError(
            "give a token id, the token itself, or at least 8 characters of its hash"
            " (`codeatlas token list` shows them)"
        )
    rows = conn.execute(statement("api_tokens", "matching"), match).fetchall()
    if len(rows) != 1:
        raise TokenNotFoundError(
            f"{'no' if not rows else 'more than one'} token matches {given!r};"
            " `codeatlas token list` shows ids and hash prefixes"
        )
    conn.execute(statement("api_tokens", "revoke"), {"id": rows[0]["id"]})
    return rows[0]["id"]


def revoke_tokens_of(conn: DbConnection, principal_id: int) -> int:
    """Revoke every live token of a principal; how many were live."""
    return conn.execute(
        statement("api_tokens", "revoke_of_principal"), {"principal_id": principal_id}
    ).rowcount


def delete_tokens_of(conn: DbConnection, principal_id: int) -> None:
    """Delete the principal's token rows (before the principal itself)."""
    conn.execute(statement("api_tokens", "delete_of_principal"), {"principal_id": principal_id})


def list_tokens(conn: DbConnection) -> list[dict[str, Any]]:
    """Every token (never the secret): id, principal, label, hash prefix, dates (and whether
    it has expired)."""
    return conn.execute(statement("api_tokens", "listing")).fetchall()


def principal_for_token(conn: DbConnection, token: str) -> Principal | None:
    """The principal of a valid (not revoked, not expired) token, else None."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = conn.execute(statement("api_tokens", "use"), {"token_hash": token_hash(token)}).fetchone()
    if row is None:
        return None
    return Principal(id=row["id"], name=row["name"], all_repositories=row["all_repositories"])


def refusal_reason(conn: DbConnection, token: str) -> str | None:
    """Why a known token was refused, for its holder (who has the secret, so nothing is given
    away): revoked or expired, and when; None for a token this server never issued."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = conn.execute(
        statement("api_tokens", "refusal"), {"token_hash": token_hash(token)}
    ).fetchone()
    if row is None:
        return None
    if row["revoked_at"] is not None:
        return f"the bearer token was revoked at {_utc(row['revoked_at'])}"
    if row["expires_at"] is not None:
        return f"the bearer token expired at {_utc(row['expires_at'])}"
    return None


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
