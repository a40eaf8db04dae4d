"""`codeatlas status`: per repository, what is indexed and how fresh it is."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `status` command."""
    p = subparsers.add_parser("status", help="what is indexed, how fresh, vector coverage")
    p.add_argument("--repo", help="only this repository")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print one block per repository."""
    from codeatlas.config import load_settings
    from codeatlas.database import connect, ensure_index_database
    from retrieval.status import repository_status

    settings = load_settings()
    conn = connect(ensure_index_database(settings))
    try:
        report = repository_status(conn, settings, only=args.repo)
    finally:
        conn.close()
    if args.repo and not report:
        from codeatlas.errors import RepositoryNotFoundError

        raise RepositoryNotFoundError(
            f"no repository named {args.repo!r}; `codeatlas status` lists them"
        )
    if args.json:
        print(json.dumps({"repositories": report}, indent=2, default=str))
        return 0
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
