"""Principals and grants in a real database: who reads which repository, checked in SQL, and
the errors a wrong name gets."""

from __future__ import annotations

import pytest

from core.errors import ConfigurationError


@pytest.fixture
def db(database_url):
    """An autocommit connection to a fresh database holding two repositories, one indexed."""
    from core.database import connect
    from indexing.repositories import register

    conn = connect(database_url, autocommit=True)
    register(conn, "shop", "/srv/shop", "main")
    register(conn, "vault", "/srv/vault", "main")
    yield conn
    conn.close()


def _names(rows):
    return [r["name"] for r in rows]


def test_an_operator_reads_every_repository_and_a_new_principal_none(db):
    from retrieval.principals import create_principal, ensure_operator, readable_repositories

    operator = ensure_operator(db)
    assert operator.all_repositories and operator.name == "local"
    assert ensure_operator(db) == operator  # created once
    assert _names(readable_repositories(db, operator)) == ["shop", "vault"]
    assert readable_repositories(db, create_principal(db, "alice")) == []


def test_grants_give_and_take_one_repository_at_a_time(db):
    from retrieval.principals import create_principal, grant, readable_repositories, revoke_grant

    alice = create_principal(db, "alice")
    grant(db, "alice", "shop")
    grant(db, "alice", "shop")  # idempotent
    [shop] = readable_repositories(db, alice)
    assert (shop["name"], shop["default_branch"], shop["current_commit"]) == ("shop", "main", None)
    assert revoke_grant(db, "alice", "shop") is True
    assert revoke_grant(db, "alice", "shop") is False
    assert readable_repositories(db, alice) == []


def test_making_a_principal_an_operator_is_an_update_of_the_same_principal(db):
    from retrieval.principals import create_principal, principal_by_id, readable_repositories

    alice = create_principal(db, "alice")
    promoted = create_principal(db, "alice", all_repositories=True)
    assert promoted.id == alice.id and promoted.all_repositories
    assert principal_by_id(db, alice.id) == promoted
    assert principal_by_id(db, alice.id + 1000) is None
    assert _names(readable_repositories(db, promoted)) == ["shop", "vault"]


def test_principals_are_listed_with_their_granted_repositories(db):
    from retrieval.principals import create_principal, grant, list_principals

    create_principal(db, "bob")
    create_principal(db, "alice")
    grant(db, "alice", "vault")
    grant(db, "alice", "shop")
    listed = {r["name"]: (r["all_repositories"], r["repositories"]) for r in list_principals(db)}
    assert listed == {"alice": (False, ["shop", "vault"]), "bob": (False, [])}


def test_unknown_names_say_what_to_run(db):
    from core.errors import RepositoryNotFoundError
    from retrieval.principals import PrincipalNotFoundError, create_principal, get_principal, grant

    with pytest.raises(PrincipalNotFoundError, match="`codeatlas principal create carol`"):
        get_principal(db, "carol")
    with pytest.raises(PrincipalNotFoundError):
        grant(db, "carol", "shop")
    create_principal(db, "carol")
    with pytest.raises(RepositoryNotFoundError, match="no repository named 'attic'.*status"):
        grant(db, "carol", "attic")


@pytest.mark.parametrize("name", ["", "-dash-first", "has space", "semi;colon", "x" * 101])
def test_a_principal_name_must_be_plain(db, name):
    from retrieval.principals import create_principal, ensure_operator

    with pytest.raises(ConfigurationError, match="invalid principal name"):
        create_principal(db, name)
    with pytest.raises(ConfigurationError):
        ensure_operator(db, name)


def test_an_unknown_and_an_ungranted_repository_get_the_same_error_cut_to_length():
    from retrieval.principals import unreadable_repository

    unknown, ungranted = unreadable_repository("attic"), unreadable_repository("vault")
    assert str(unknown).replace("attic", "R") == str(ungranted).replace("vault", "R")
    assert "list_repositories" in str(unknown)
    long = str(unreadable_repository("a" * 500))
    assert "a" * 200 + "..." in long and "a" * 201 not in long
