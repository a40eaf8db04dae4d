"""`codeatlas index PATH_OR_URL`: run the Dagster job for one `<repository>@<commit>`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `index` command."""
    p = subparsers.add_parser("index", help="index a git repository (local path or URL)")
    p.add_argument("source", metavar="PATH_OR_URL")
    p.add_argument("--name", help="repository name (default: the folder or URL's last part)")
    p.add_argument("--ref", help="branch, tag or commit to index (default: HEAD's branch)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Register the repository, add the partition and execute the job in-process."""
    from indexing import git_source

    source = args.source
    remote = git_source.is_remote(source)
    if not remote:
        # checked before the database starts and Dagster is imported (seconds): a wrong path
        # is told at once
        source = str(Path(source).expanduser().resolve())
        git_source.open_local(Path(source))

    from core.config import load_settings
    from core.database import ensure_index_database, transaction
    from indexing import repositories
    from orchestration.index_run import index_commit

    settings = load_settings()
    name = repositories.validate_name(args.name or repositories.default_name(source))
    checkout = repositories.git_dir(settings, source, fetch=remote)
    sha = git_source.resolve_commit(checkout, args.ref or "HEAD")
    # the tracked branch: the ref given (unless it is a commit), else what HEAD points at
    branch = args.ref if args.ref and not sha.startswith(args.ref) else None
    branch = branch or git_source.current_branch(checkout)
    url = ensure_index_database(settings)
    with transaction(url) as conn:
        repositories.register(conn, name, source, branch)
    print(f"indexing {name}@{sha[:12]} ({source})", file=sys.stderr)
    result = index_commit(settings, name, sha)
    print(
        f"indexed {name}@{sha[:12]}: {result['files']} files, {result['chunks']} chunks,"
        f" {result['symbols']} symbols in {result['seconds']:.1f}s"
        f" (run {result['run_id'][:8]}, visible in `codeatlas dev`)",
        file=sys.stderr,
    )
    return 0
