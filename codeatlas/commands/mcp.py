"""MCP commands: `serve-mcp`, `mcp-lock`, `verify-tools`, `token`, `principal` (create, list,
delete), `grant`."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the MCP server and access-control commands."""
    p = subparsers.add_parser("serve-mcp", help="serve the MCP tools (stdio, or HTTP with tokens)")
    p.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at /mcp instead")
    p.add_argument(
        "--stateless",
        action="store_true",
        help="with --http: keep no session between requests, so any of several servers behind"
        " one address can answer any request",
    )
    p.set_defaults(handler=serve)

    p = subparsers.add_parser("mcp-lock", help="show or rewrite the pinned tool definitions")
    p.add_argument("--write", action="store_true", help="rewrite mcp_app/tools.lock on purpose")
    p.set_defaults(handler=lock)

    p = subparsers.add_parser("verify-tools", help="check any MCP server's tools against a lock")
    p.add_argument("--lock", required=True, help="lock file (JSON: tool name -> SHA-256)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--stdio", metavar="CMD", help="command line that starts the server")
    target.add_argument("--http", metavar="URL", help="streamable HTTP endpoint URL")
    p.add_argument("--token", help="bearer token for --http")
    p.set_defaults(handler=verify)

    token = subparsers.add_parser("token", help="create, list or revoke HTTP bearer tokens")
    token_cmds = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    t = token_cmds.add_parser("create", help="create a token for a principal (shown once)")
    t.add_argument("--principal", required=True)
    t.add_argument(
        "--grant",
        action="append",
        default=[],
        metavar="REPO",
        help="also grant this repository to the principal (repeatable)",
    )
    t.add_argument("--label", help="a note to recognise the token by")
    t.add_argument(
        "--expires-in",
        metavar="LIFETIME",
        help="refuse the token after this long: a number and s, m, h or d (e.g. 30d); without"
        " it the token lives until revoked",
    )
    t.set_defaults(handler=token_create)
    t = token_cmds.add_parser("revoke", help="revoke by id, token, or hash prefix")
    t.add_argument("token", metavar="ID_OR_PREFIX")
    t.set_defaults(handler=token_revoke)
    t = token_cmds.add_parser("list", help="list tokens (never the secrets)")
    t.set_defaults(handler=token_list)

    principal = subparsers.add_parser("principal", help="create, list or delete principals")
    principal_cmds = principal.add_subparsers(
        dest="principal_command", required=True, metavar="ACTION"
    )
    t = principal_cmds.add_parser("create", help="create a principal")
    t.add_argument("name")
    t.add_argument(
        "--all-repositories", action="store_true", help="an operator: may read every repository"
    )
    t.set_defaults(handler=principal_create)
    t = principal_cmds.add_parser("list", help="principals and their grants")
    t.set_defaults(handler=principal_list)
    t = principal_cmds.add_parser(
        "delete", help="delete a principal with its tokens, grants and working-tree files"
    )
    t.add_argument("name")
    t.set_defaults(handler=principal_delete)

    p = subparsers.add_parser("grant", help="let a principal read a repository")
    p.add_argument("principal")
    p.add_argument("repository")
    p.add_argument("--revoke", action="store_true", help="take the grant away instead")
    p.set_defaults(handler=grant)


def _database_url() -> str:
    from core.config import load_settings
    from core.database import ensure_index_database

    return ensure_index_database(load_settings())


def serve(args: argparse.Namespace) -> int:
    """Run the server until stdin closes or it is interrupted."""
    from core.config import load_settings
    from core.database import ensure_index_database
    from mcp_app.transports import run_http, run_stdio

    if args.stateless and not args.http:
        from core.errors import ConfigurationError

        raise ConfigurationError("--stateless applies to --http only (stdio has one client)")
    settings = load_settings()  # read once here, the server's entry point, and passed down
    url = ensure_index_database(settings)
    announce_index(settings, url)
    if args.http:
        mode = ", stateless" if args.stateless else ""
        print(
            f"codeatlas MCP server on http://{args.http}/mcp (bearer tokens required{mode})",
            file=sys.stderr,
        )
        run_http(settings, url, args.http, stateless=args.stateless)
    else:
        run_stdio(settings, url)
    return 0


def announce_index(settings: Settings, url: str) -> None:
    """Say on stderr which index this server serves, and warn when it holds no repository (an
    agent started with another state dir than `codeatlas index` used sees an empty index)."""
    from codeatlas.commands.status import where
    from core.database import connection
    from indexing import repositories

    with connection(url, autocommit=True) as conn:
        count = repositories.count(conn)
    found = where(settings)
    print(
        f"codeatlas MCP server: index in {found['state_dir']}; database {found['database']};"
        f" {count} repositor{'y' if count == 1 else 'ies'}",
        file=sys.stderr,
    )
    if not count:
        print(
            "codeatlas MCP server: warning: this index holds no repository, so every tool answers"
            " empty: `codeatlas index PATH` adds one; run it with the same CODEATLAS_STATE_DIR"
            " and CODEATLAS_DATABASE_URL as this server (or neither)",
            file=sys.stderr,
        )
    if "note" in found:
        print(f"codeatlas MCP server: note: {found['note']}", file=sys.stderr)


def lock(args: argparse.Namespace) -> int:
    """Print the current fingerprints, or write them to the lock file."""
    import json

    import anyio

    from core.config import load_settings
    from mcp_app.app_context import ServerConfig
    from mcp_app.pinning import LOCK_FILE, diff, read_lock, server_fingerprints, write_lock
    from mcp_app.server import build_server

    # listing tools never starts the server: no database is opened
    config = ServerConfig(database_url="", settings=load_settings(), principal_name=None)
    current = anyio.run(server_fingerprints, build_server(config))
    if args.write:
        write_lock(LOCK_FILE, current)
        print(f"wrote {len(current)} tool fingerprints to {LOCK_FILE}", file=sys.stderr)
        return 0
    print(json.dumps(current, indent=2, sort_keys=True))
    changes = diff(read_lock(LOCK_FILE), current) if LOCK_FILE.exists() else ["no lock file"]
    for line in changes:
        print(line, file=sys.stderr)
    return 1 if changes else 0


def stdio_command(line: str) -> list[str]:
    """The server's argv; a program not on PATH is looked for beside this Python (the venv's
    `bin/`), so `--stdio "codeatlas serve-mcp"` works without an activated venv."""
    import shutil
    from pathlib import Path

    argv = shlex.split(line)
    if argv and shutil.which(argv[0]) is None:
        beside = Path(sys.executable).parent / argv[0]
        if beside.is_file():
            argv[0] = str(beside)
    return argv


def verify(args: argparse.Namespace) -> int:
    """Compare a live server's catalog with a lock file; non-zero exit and a diff on mismatch."""
    from pathlib import Path

    import anyio

    from core.errors import ConfigurationError
    from mcp_app.pinning import diff, failure_reason, read_lock, remote_fingerprints

    if args.http and not args.token:
        raise ConfigurationError(
            "verify-tools --http needs --token TOKEN: the server answers 401 without one"
            " (create one with `codeatlas token create --principal P`)"
        )
    expected = read_lock(Path(args.lock))
    stdio = stdio_command(args.stdio) if args.stdio else None
    try:
        actual = anyio.run(
            lambda: remote_fingerprints(stdio=stdio, url=args.http, token=args.token)
        )
    except Exception as exc:  # noqa: BLE001 - any connection failure is the user's to fix
        reason = failure_reason(exc)
        print(f"codeatlas: error: could not list the server's tools: {reason}", file=sys.stderr)
        return 2
    changes = diff(expected, actual)
    for line in changes:
        print(line)
    print(
        ("MISMATCH" if changes else "OK") + f": {len(actual)} tools checked against {args.lock}",
        file=sys.stderr,
    )
    return 1 if changes else 0


def token_create(args: argparse.Namespace) -> int:
    """Create a token (printed once on stdout) and optional grants."""
    from core.database import transaction
    from mcp_app.tokens import create_token, parse_lifetime
    from retrieval.principals import grant as grant_repository

    # checked before the database is opened: a mistyped lifetime creates nothing
    lifetime = parse_lifetime(args.expires_in) if args.expires_in is not None else None
    with transaction(_database_url()) as conn:
        for repository in args.grant:
            grant_repository(conn, args.principal, repository)
        token_id, token = create_token(conn, args.principal, args.label, lifetime)
    print(token)
    until = "no expiry (revoke to end it)"
    if args.expires_in is not None:
        until = f"expires in {args.expires_in.strip()}"
    print(
        f"token {token_id} for principal {args.principal!r}, {until}; it is shown only now",
        file=sys.stderr,
    )
    return 0


def token_revoke(args: argparse.Namespace) -> int:
    """Revoke one token."""
    from core.database import transaction
    from mcp_app.tokens import revoke_token

    with transaction(_database_url()) as conn:
        token_id = revoke_token(conn, args.token)
    print(f"revoked token {token_id}", file=sys.stderr)
    return 0


def token_list(args: argparse.Namespace) -> int:
    """One line per token."""
    from core.database import transaction
    from mcp_app.tokens import list_tokens

    with transaction(_database_url()) as conn:
        rows = list_tokens(conn)
    for r in rows:
        if r["revoked_at"]:
            state = f"revoked {r['revoked_at']:%Y-%m-%d}"
        elif r["expired"]:
            state = f"expired {r['expires_at']:%Y-%m-%d %H:%M}"
        else:
            state = "active"
        expires = f"{r['expires_at']:%Y-%m-%d %H:%M}" if r["expires_at"] else "never"
        print(
            f"{r['id']:>4}  {r['hash_prefix']}  {r['principal']:<20} {state:<24}"
            f" expires {expires:<16}  {r['label'] or ''}"
        )
    return 0


def principal_create(args: argparse.Namespace) -> int:
    """Create (or update) a principal."""
    from core.database import transaction
    from retrieval.principals import create_principal

    with transaction(_database_url()) as conn:
        p = create_principal(conn, args.name, all_repositories=args.all_repositories)
    scope = "every repository" if p.all_repositories else "granted repositories only"
    print(f"principal {p.name!r} ({scope})", file=sys.stderr)
    return 0


def principal_delete(args: argparse.Namespace) -> int:
    """Delete a principal: its tokens stop working, its grants and overlays go, all in one
    transaction (nothing is half-deleted when it fails)."""
    from core.database import transaction
    from mcp_app.overlay_retention import forget_principal
    from mcp_app.tokens import delete_tokens_of, revoke_tokens_of
    from retrieval.principals import delete_principal, principal_named

    with transaction(_database_url()) as conn:
        principal = principal_named(conn, args.name)
        tokens = revoke_tokens_of(conn, principal.id)
        overlays = forget_principal(conn, principal.id)
        delete_tokens_of(conn, principal.id)
        grants = delete_principal(conn, principal)
    print(
        f"deleted principal {args.name!r}: {tokens} live token(s) revoked, {grants} grant(s)"
        f" and {overlays} working-tree file(s) removed",
        file=sys.stderr,
    )
    return 0


def principal_list(args: argparse.Namespace) -> int:
    """Principals and what they may read."""
    from core.database import transaction
    from retrieval.principals import list_principals

    with transaction(_database_url()) as conn:
        for r in list_principals(conn):
            reads = "ALL" if r["all_repositories"] else ", ".join(r["repositories"]) or "-"
            print(f"{r['name']:<24} {reads}")
    return 0


def grant(args: argparse.Namespace) -> int:
    """Grant (or revoke) read access to one repository."""
    from core.database import transaction
    from retrieval.principals import grant as grant_repository
    from retrieval.principals import revoke_grant

    with transaction(_database_url()) as conn:
        if args.revoke:
            done = revoke_grant(conn, args.principal, args.repository)
            print(
                ("revoked" if done else "there was no grant of")
                + f" {args.repository} for {args.principal}",
                file=sys.stderr,
            )
        else:
            grant_repository(conn, args.principal, args.repository)
            print(f"granted {args.repository} to {args.principal}", file=sys.stderr)
    return 0
