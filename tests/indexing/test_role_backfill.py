"""Roles of file versions parsed before roles were read, filled from their stored chunks."""

from __future__ import annotations

from tests.indexing.parsing.test_content_roles import CODE_FILES, TESTS


def _roles(database_url: str) -> dict[str, str | None]:
    from core.database import connection

    with connection(database_url) as conn:
        rows = conn.execute(
            "SELECT sf.path, fv.role FROM snapshot_files sf"
            " JOIN file_versions fv ON fv.id = sf.file_version_id"
        ).fetchall()
    return {r["path"]: r["role"] for r in rows}


def test_an_index_from_before_roles_gets_them_from_its_chunks_at_the_next_parse(
    settings_env, database_url, git_repo
):
    from core.config import load_settings
    from core.database import connection
    from indexing.parse_step import parse_snapshot
    from tests.retrieval.indexing import index_repository

    git_repo.write("checks/cart_checks.go", TESTS["go"])
    git_repo.write("cart/cart.go", CODE_FILES["go"])
    git_repo.write("spec_suite/cart.js", TESTS["javascript"])
    git_repo.write("src/cart.rs", CODE_FILES["rust"])
    git_repo.commit("shop")
    sha = index_repository(database_url, git_repo.path, "shop")
    parsed = _roles(database_url)
    assert parsed == {
        "checks/cart_checks.go": "test",
        "cart/cart.go": "code",
        "spec_suite/cart.js": "test",
        "src/cart.rs": "code",
    }
    # as an index built before sql/migrations/020 holds them
    with connection(database_url) as conn:
        conn.execute("UPDATE file_versions SET role = NULL")
        conn.commit()
    totals = parse_snapshot(database_url, load_settings(), "shop", sha)
    assert totals["files_parsed"] == 0  # no blob is parsed again
    assert totals["roles_read_from_chunks"] == 4
    assert _roles(database_url) == parsed
    again = parse_snapshot(database_url, load_settings(), "shop", sha)
    assert again["roles_read_from_chunks"] == 0
