"""Who sees what: grants in SQL, and a principal's overlay over the committed code."""

from __future__ import annotations

import pytest


def test_a_principal_without_a_grant_gets_the_same_error_as_for_an_unknown_repository(
    conn, shop_repo
):
    from core.errors import RepositoryNotFoundError
    from retrieval.principals import create_principal
    from retrieval.scope import resolve_scope

    outsider = create_principal(conn, "outsider")
    messages = []
    for name in ("shop", "no-such-repo"):
        with pytest.raises(RepositoryNotFoundError) as caught:
            resolve_scope(conn, outsider, [name])
        messages.append(str(caught.value).replace(name, "X"))
    assert messages[0] == messages[1]
    assert resolve_scope(conn, outsider).repositories == ()


def test_a_granted_principal_reads_the_repository(conn, shop_repo):
    from retrieval.principals import create_principal, grant
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    create_principal(conn, "reader")
    grant(conn, "reader", "shop")
    from retrieval.principals import get_principal

    scope = resolve_scope(conn, get_principal(conn, "reader"), ["shop"])
    assert search_code(conn, scope, "round_cents").hits[0].symbol == "round_cents"


def test_the_sql_rechecks_grants_even_for_a_forged_scope(conn, operator_scope):
    from dataclasses import replace

    from retrieval.principals import create_principal
    from retrieval.search import search_code

    outsider = create_principal(conn, "forger")
    forged = replace(operator_scope, principal=outsider)
    assert search_code(conn, forged, "round_cents", mode="lexical").hits == []


def test_a_requested_commit_is_read_and_an_unknown_one_is_refused(conn, shop_repo):
    from retrieval.principals import ensure_operator
    from retrieval.scope import SnapshotNotFoundError, resolve_scope

    operator = ensure_operator(conn)
    scope = resolve_scope(conn, operator, ["shop"], commit=shop_repo.sha[:10])
    assert scope.repositories[0].commit == shop_repo.sha
    with pytest.raises(SnapshotNotFoundError):
        resolve_scope(conn, operator, ["shop"], commit="deadbeef")
