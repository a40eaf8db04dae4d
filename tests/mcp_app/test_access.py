"""Principal A cannot see repository B by any tool or argument; bad input gets a clear error."""

from __future__ import annotations

import base64

import pytest

from tests.mcp_app.conftest import call_tools, make_server, payload


@pytest.fixture
def two_repos(shop_repo, tmp_path, database_url):
    """Repository `shop` granted to principal alice; repository `vault` granted to nobody."""
    from core.database import connect
    from retrieval.principals import create_principal, grant
    from tests.conftest import GitRepo
    from tests.retrieval.indexing import index_repository

    vault = GitRepo(tmp_path / "vault")
    vault.write("vault/keys.py", "def rotate_master_key(store):\n    return store.rotate()\n")
    vault.commit("vault")
    index_repository(database_url, vault.path, "vault")
    conn = connect(database_url, autocommit=True)
    create_principal(conn, "alice")
    grant(conn, "alice", "shop")
    conn.close()
    return make_server(database_url, "alice")


UNKNOWN = "no repository named {!r} is available to you"
REPO_TOOLS = [
    ("read_symbol", {"name": "rotate_master_key"}),
    ("find_callers", {"name": "rotate_master_key"}),
    ("find_callees", {"name": "rotate_master_key"}),
    ("file_outline", {"path": "vault/keys.py"}),
    ("index_file", {"path": "vault/new.py", "content": "x = 1\n"}),
]


@pytest.mark.parametrize(("tool", "args"), REPO_TOOLS)
def test_an_ungranted_repository_looks_exactly_like_an_unknown_one(two_repos, tool, args):
    secret, unknown = call_tools(
        two_repos,
        [(tool, {**args, "repository": "vault"}), (tool, {**args, "repository": "nothing"})],
    )
    assert secret.is_error and unknown.is_error
    assert UNKNOWN.format("vault") in secret.content[0].text
    assert secret.content[0].text.replace("vault", "R") == unknown.content[0].text.replace(
        "nothing", "R"
    )


def test_search_and_listing_tools_never_show_an_ungranted_repository(two_repos):
    results = call_tools(
        two_repos,
        [
            ("search_code", {"query": "rotate_master_key"}),
            ("search_code", {"query": "rotate master key", "repositories": ["shop"]}),
            ("search_code", {"query": "rotate", "repositories": ["shop", "vault"]}),
            ("search_symbols", {"name": "rotate_master_key"}),
            ("search_symbols", {"name": "rotate", "repositories": ["vault"]}),
            ("list_repositories", {}),
            ("index_status", {}),
            ("index_status", {"repositories": ["vault"]}),
        ],
    )
    text = " ".join(str(payload(r)) if not r.is_error else r.content[0].text for r in results)
    assert "rotate_master_key" not in text and "keys.py" not in text
    assert [r["name"] for r in payload(results[5])["repositories"]] == ["shop"]
    assert results[2].is_error and results[4].is_error and results[7].is_error


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("file_outline", {"repository": "shop", "path": "../../etc/passwd"}, "inside the repo"),
        ("file_outline", {"repository": "shop", "path": "/etc/passwd"}, "not absolute"),
        (
            "read_symbol",
            {"repository": "shop", "path": "/etc/passwd", "start_line": 1},
            "not absolute",
        ),
        ("search_code", {"query": "x" * 65_537}, "query"),
        ("search_code", {"query": "refund", "limit": 51}, "limit"),
        (
            "search_code",
            {"query": "refund", "sql": "DROP TABLE"},
            "'sql' is not an argument of this tool",
        ),
        (
            "index_file",
            {
                "repository": "shop",
                "path": "shop/blob.py",
                "content": base64.b64encode(b"\x00\x01\xffbinary").decode(),
                "encoding": "base64",
            },
            "binary",
        ),
        (
            "index_file",
            {
                "repository": "shop",
                "path": "shop/latin.py",
                "content": base64.b64encode("caf\u00e9 = 1".encode("latin-1")).decode(),
                "encoding": "base64",
            },
            "UTF-8",
        ),
        (
            "index_file",
            {"repository": "shop", "path": "shop/a.py", "content": "x = '\ud800'"},
            "content",
        ),
        (
            "index_file",
            {
                "repository": "shop",
                "path": "shop/a.py",
                "content": "not base64!",
                "encoding": "base64",
            },
            "base64",
        ),
        (
            "index_file",
            {"repository": "shop", "path": "shop/big.py", "content": "x = 1\n" * 200_000},
            "1,000,000 bytes",
        ),
        (
            "index_file",
            {"repository": "shop", "path": "../outside.py", "content": "x = 1\n"},
            "inside the repo",
        ),
        ("read_symbol", {"repository": "shop"}, "give a symbol name"),
    ],
)
def test_bad_input_gets_a_clear_tool_error_without_internals(operator_server, tool, args, expected):
    [result] = call_tools(operator_server, [(tool, args)])
    assert result.is_error
    text = result.content[0].text
    assert expected in text
    assert "Traceback" not in text and "psycopg" not in text and "/tmp/" not in text
