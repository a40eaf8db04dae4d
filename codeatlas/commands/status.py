"""`codeatlas status`: per repository, what is indexed and how fresh it is."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.config import Settings, redacted_url


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `status` command."""
    p = subparsers.add_parser("status", help="what is indexed, how fresh, vector coverage")
    p.add_argument("--repo", help="only this repository")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def where(settings: Settings) -> dict[str, str]:
    """Which state dir and database this process uses, and why (printed before the report)."""
    state = str(settings.state_dir)
    if settings.state_dir_from == "default":
        state += " (the per-user default; CODEATLAS_STATE_DIR changes it)"
    else:
        state += " (from CODEATLAS_STATE_DIR)"
    if settings.database_url:
        database = redacted_url(settings.database_url) + " (from CODEATLAS_DATABASE_URL)"
    else:
        database = f"embedded PostgreSQL in {settings.state_dir / 'postgres'}"
    found = {"state_dir": state, "database": database}
    if not settings.database_url:
        from codeatlas.commands.server import describe, summary

        found["server"] = summary(describe(settings))
    older = Path.cwd() / ".state"
    if (older / "postgres").is_dir() and older.resolve() != settings.state_dir:
        found["note"] = (
            f"{older} holds an index made before the per-user default; set"
            f" CODEATLAS_STATE_DIR={older.resolve()} to use it"
        )
    return found


def run(args: argparse.Namespace) -> int:
    """Print which state and database are in use, then one block per repository."""
    from core.config import load_settings
    from core.database import connection, ensure_index_database
    from retrieval.status import repository_status

    settings = load_settings()
    with connection(ensure_index_database(settings)) as conn:
        report = repository_status(conn, settings, only=args.repo)
    if args.repo and not report:
        from core.errors import RepositoryNotFoundError

        raise RepositoryNotFoundError(
            f"no repository named {args.repo!r}; `codeatlas status` lists them"
        )
    in_use = where(settings)
    if args.json:
        print(json.dumps({**in_use, "repositories": report}, indent=2, default=str))
        return 0
    for key, value in in_use.items():
        print(f"{key:10} {value}")
    print()
    if not report:
        print("no repositories yet: `codeatlas index PATH` adds one")
    for repo in report:
        print(f"{repo['name']}  ({repo['origin']})")
        for key in (
            "branch",
            "current_commit",
            "branch_head",
            "lag_commits",
            "lag_seconds",
            "last_push",
            "active_model",
            "upgrading_model",
            "coverage",
            "snapshots",
        ):
            if repo.get(key) is not None:
                print(f"  {key:15} {repo[key]}")
    return 0
