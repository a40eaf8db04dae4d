"""`codeatlas principal delete P` (issue 47): the principal's tokens stop working and its grants
and working-tree files go, in one transaction; another principal keeps what it has; an unknown
name is refused with where to look."""

from __future__ import annotations

from core.database import connect, transaction
from mcp_app.tokens import create_token, principal_for_token
from retrieval.principals import create_principal, grant
from tests.codeatlas.test_cli import codeatlas
from tests.mcp_app.conftest import call_tools, make_server
from tests.mcp_app.test_overlay_leftovers import unreferenced
from tests.retrieval.conftest import shop_repo  # noqa: F401


def _rows_of(url: str, name: str) -> dict[str, int]:
    with connect(url) as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM principals WHERE name = %(n)s) AS principals,"
            " (SELECT count(*) FROM api_tokens t JOIN principals p ON p.id = t.principal_id"
            "  WHERE p.name = %(n)s) AS tokens,"
            " (SELECT count(*) FROM repository_grants g JOIN principals p"
            "  ON p.id = g.principal_id WHERE p.name = %(n)s) AS grants,"
            " (SELECT count(*) FROM overlay_files o JOIN principals p ON p.id = o.principal_id"
            "  WHERE p.name = %(n)s) AS overlays",
            {"n": name},
        ).fetchone()


def test_deleting_a_principal_revokes_its_tokens_grants_and_overlays(shop_repo):  # noqa: F811
    url = shop_repo.database_url
    tokens = {}
    with transaction(url) as conn:
        for name in ("alice", "bob"):
            create_principal(conn, name)
            grant(conn, name, "shop")
            tokens[name] = create_token(conn, name)[1]
        create_token(conn, "alice", "second")
    for name in ("alice", "bob"):
        results = call_tools(
            make_server(url, name),
            [
                ("index_file", {"repository": "shop", "path": "shop/new.py", "content": "A = 1\n"}),
                (
                    "index_file",
                    {"repository": "shop", "path": f"shop/{name}.py", "content": f"N = '{name}'\n"},
                ),
            ],
        )
        assert not any(r.is_error for r in results)
    assert _rows_of(url, "alice") == {"principals": 1, "tokens": 2, "grants": 1, "overlays": 2}

    deleted = codeatlas("principal", "delete", "alice")
    assert "deleted principal 'alice': 2 live token(s) revoked, 1 grant(s)" in deleted.stderr
    assert "2 working-tree file(s) removed" in deleted.stderr

    assert _rows_of(url, "alice") == {"principals": 0, "tokens": 0, "grants": 0, "overlays": 0}
    assert _rows_of(url, "bob") == {"principals": 1, "tokens": 1, "grants": 1, "overlays": 2}
    with connect(url) as conn:
        assert principal_for_token(conn, tokens["alice"]) is None
        assert principal_for_token(conn, tokens["bob"]).name == "bob"
    # the file both sent is still bob's; alice's own file went with its version
    assert unreferenced(url) == {"file_versions": 0, "vectors": 0, "chunk_terms": 0}
    assert "alice" not in codeatlas("principal", "list").stdout


def test_deleting_an_unknown_principal_is_refused_with_where_to_look(settings_env):
    codeatlas("principal", "create", "alice")
    refused = codeatlas("principal", "delete", "nobody", check=False)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "no principal named 'nobody'" in refused.stderr
    assert "codeatlas principal list" in refused.stderr
    assert "alice" in codeatlas("principal", "list").stdout
