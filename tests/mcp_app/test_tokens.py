"""Bearer tokens: shown once, stored as hashes, mapped to their principal until revoked; revoked
by id, by the token or by a hash prefix, and an unclear reference is refused."""

from __future__ import annotations

import pytest

from core.database import connect
from mcp_app.tokens import (
    TokenNotFoundError,
    create_token,
    list_tokens,
    principal_for_token,
    revoke_token,
    token_hash,
)
from retrieval.principals import create_principal


@pytest.fixture
def db(database_url):
    """An autocommit connection with principals 'ci-bot' and 'alice'."""
    with connect(database_url, autocommit=True) as conn:
        create_principal(conn, "ci-bot")
        create_principal(conn, "alice")
        yield conn


def test_a_token_maps_to_its_principal_until_it_is_revoked(db):
    token_id, token = create_token(db, "ci-bot", "CI")
    assert token.startswith("cat_") and len(token) > 40
    assert principal_for_token(db, token).name == "ci-bot"
    assert principal_for_token(db, token + "x") is None
    assert principal_for_token(db, "not-a-codeatlas-token") is None
    assert revoke_token(db, str(token_id)) == token_id
    assert principal_for_token(db, token) is None


def test_revoke_takes_the_token_itself_or_a_prefix_of_its_hash(db):
    first_id, first = create_token(db, "ci-bot")
    second_id, second = create_token(db, "alice")
    assert revoke_token(db, first) == first_id
    assert revoke_token(db, token_hash(second)[:10].upper()) == second_id
    assert principal_for_token(db, first) is None and principal_for_token(db, second) is None


@pytest.mark.parametrize(
    ("reference", "message"),
    [("abc", "at least 8 characters of its hash"), ("deadbeef0000", "no token matches")],
)
def test_an_unclear_or_unknown_reference_is_refused_with_what_to_give(db, reference, message):
    create_token(db, "ci-bot")
    with pytest.raises(TokenNotFoundError, match=message):
        revoke_token(db, reference)


def test_the_token_list_shows_hash_prefixes_and_states_never_secrets(db):
    _id, token = create_token(db, "ci-bot", "CI")
    revoked_id, _revoked = create_token(db, "alice")
    revoke_token(db, str(revoked_id))
    rows = list_tokens(db)
    assert [(r["principal"], r["label"]) for r in rows] == [("ci-bot", "CI"), ("alice", None)]
    assert rows[0]["hash_prefix"] == token_hash(token)[:12]
    assert rows[0]["revoked_at"] is None and rows[1]["revoked_at"] is not None
    assert token not in str(rows)
