"""Bearer tokens for the HTTP transport: random secrets shown once, stored as SHA-256 hashes,
each mapped to a principal whose grants are enforced in SQL."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from core.errors import CodeatlasError
from retrieval.principals import DbConnection, Principal, get_principal

TOKEN_PREFIX = "cat_"


class TokenNotFoundError(CodeatlasError):
    """No (or more than one) token matches what was given to revoke."""


def token_hash(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(
    conn: DbConnection, principal_name: str, label: str | None = None
) -> tuple[int, str]:
    """(token id, the secret): the secret is returned once and never stored."""
    principal = get_principal(conn, principal_name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = conn.execute(
        "INSERT INTO api_tokens (principal_id, token_hash, label) VALUES (%s, %s, %s) RETURNING id",
        (principal.id, token_hash(token), label),
    ).fetchone()
    assert row is not None
    return row["id"], token


def revoke_token(conn: DbConnection, id_or_prefix: str) -> int:
    """Revoke by id, by the token itself, or by a unique prefix (>= 8 hex) of its hash."""
    given = id_or_prefix.strip()
    if given.isdigit():
        where, value = "id = %s", int(given)
    elif given.startswith(TOKEN_PREFIX):
        where, value = "token_hash = %s", token_hash(given)
    elif len(given) >= 8 and all(c in "0123456789abcdef" for c in given.lower()):
        where, value = "token_hash LIKE %s", given.lower() + "%"
    else:
        raise TokenNotFoundError(
            "give a token id, the token itself, or at least 8 characters of its hash"
            " (`codeatlas token list` shows them)"
        )
    rows = conn.execute(f"SELECT id FROM api_tokens WHERE {where}", (value,)).fetchall()  # type: ignore[arg-type]
    if len(rows) != 1:
        raise TokenNotFoundError(
            f"{'no' if not rows else 'more than one'} token matches {given!r};"
            " `codeatlas token list` shows ids and hash prefixes"
        )
    conn.execute(
        "UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = %s",
        (rows[0]["id"],),
    )
    return rows[0]["id"]


def list_tokens(conn: DbConnection) -> list[dict[str, Any]]:
    """Every token (never the secret): id, principal, label, hash prefix, dates."""
    return conn.execute(
        "SELECT t.id, p.name AS principal, t.label, left(t.token_hash, 12) AS hash_prefix,"
        " t.created_at, t.last_used_at, t.revoked_at"
        " FROM api_tokens t JOIN principals p ON p.id = t.principal_id ORDER BY t.id"
    ).fetchall()


def principal_for_token(conn: DbConnection, token: str) -> Principal | None:
    """The principal of a valid (not revoked) token, else None."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = conn.execute(
        "UPDATE api_tokens t SET last_used_at = now() FROM principals p"
        " WHERE t.token_hash = %s AND t.revoked_at IS NULL AND p.id = t.principal_id"
        " RETURNING p.id, p.name, p.all_repositories",
        (token_hash(token),),
    ).fetchone()
    if row is None:
        return None
    return Principal(id=row["id"], name=row["name"], all_repositories=row["all_repositories"])
