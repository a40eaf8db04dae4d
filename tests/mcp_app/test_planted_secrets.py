"""Secrets planted in a real repository (one per detect-secrets plugin, and more) are never
stored and never come back through any tool: read_symbol, file_outline, the call graph, search."""

from __future__ import annotations

import json

import anyio

from tests.indexing.parsing.planted_secrets import PLANTED, planted_module
from tests.mcp_app.conftest import make_server
from tests.retrieval.indexing import fake_embedder, index_repository


def _database_leaks(url: str, secrets: list[str]) -> set[str]:
    """Planted secrets found in any text column of any table."""
    from core.database import connect

    found: set[str] = set()
    with connect(url) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND data_type IN ('text', 'character varying')"
        ).fetchall()
        for column in columns:
            for secret in secrets:
                hit = conn.execute(
                    f'SELECT 1 FROM "{column["table_name"]}"'
                    f' WHERE strpos("{column["column_name"]}", %s) > 0 LIMIT 1',
                    (secret,),
                ).fetchone()
                if hit:
                    found.add(secret)
    return found


def test_no_planted_secret_is_stored_or_readable_through_any_tool(
    settings_env, database_url, git_repo
):
    git_repo.write("app/config.py", planted_module())
    git_repo.write(".env.example", "\n".join(line for _k, _s, line in PLANTED) + "\n")
    git_repo.commit("config")
    index_repository(database_url, git_repo.path, "app", embedder=fake_embedder())
    secrets = [secret for _kind, secret, _line in PLANTED]

    calls = [("file_outline", {"repository": "app", "path": "app/config.py", "limit": 500})]
    for kind, secret, _line in PLANTED:
        calls.append(("read_symbol", {"repository": "app", "name": f"config_{kind}"}))
        calls.append(("search_code", {"query": secret[:2000], "mode": "lexical"}))
        calls.append(("search_code", {"query": secret[:40]}))
    calls.append(("find_callees", {"repository": "app", "name": "receiver_literal"}))
    calls.append(("search_symbols", {"name": "config"}))

    from mcp.client import Client

    async def run() -> list[str]:
        async with Client(make_server(database_url, "local")) as client:
            answers = []
            for name, args in calls:
                result = await client.call_tool(name, args)
                answers.append(json.dumps(result.structured_content) + result.content[0].text)
            return answers

    answers = anyio.run(run)
    read = [a for (name, _args), a in zip(calls, answers, strict=True) if name == "read_symbol"]
    assert all("[REDACTED:" in a for a in read)
    leaked_by_tools = {s for s in secrets if any(s in a for a in answers)}
    leaked_in_database = _database_leaks(database_url, secrets)
    print(f"\nsecrets: {len(secrets)} planted, {len(leaked_by_tools)} leaked through tools,"
          f" {len(leaked_in_database)} found in the database")  # fmt: skip
    assert leaked_by_tools == set() and leaked_in_database == set()
