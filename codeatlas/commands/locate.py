"""`codeatlas locate`: a bug report (argument or stdin) -> the files most likely to change."""

from __future__ import annotations

import argparse
import json
import sys

RANKED_SHOWN = 10  # functions listed in one ranking after the files (all of them in --json)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `locate` command."""
    p = subparsers.add_parser(
        "locate", help="rank the files a bug report is about (text, or - for stdin)"
    )
    p.add_argument("issue", metavar="ISSUE_TEXT", help="the report's text, or - to read stdin")
    p.add_argument("--repo", help="repository name (default: every repository)")
    p.add_argument("--limit", type=int, default=10, help="files to return (default 10)")
    p.add_argument("--json", action="store_true", help='print {"files": [...], "functions": [...]}')
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print `path  score  [evidence]` per file with its likely functions, then the leading
    functions in one ranking across the files; or the JSON."""
    from codeatlas.commands.operator_access import note_replica_lag, opened, query_embedder
    from core.errors import ConfigurationError
    from retrieval.locate import locate
    from retrieval.request_budget import MAX_REQUEST_CHARS, checked_request_text, request_budget

    # (stdin read to one character past the limit: a 10 MB report is refused, not read whole)
    text = sys.stdin.read(MAX_REQUEST_CHARS + 1) if args.issue == "-" else args.issue
    checked_request_text(text, "issue text")
    if not text.strip():
        raise ConfigurationError(
            "the issue text is empty; pass the report as an argument or pipe it with `-`"
        )
    if not 1 <= args.limit <= 1000:
        raise ConfigurationError("--limit must be between 1 and 1000")
    with opened(args.repo) as (settings, conn, scope):
        with request_budget(settings.request_seconds, text, settings.request_memory_mb, conn):
            report = locate(
                conn,
                scope,
                text,
                limit_files=args.limit,
                embed_query=query_embedder(settings, conn),
            )
        note_replica_lag(settings, conn)
    if args.json:
        answer = {
            "files": [f.as_dict() for f in report.files],
            "functions": [u.as_dict() for u in report.ranked_functions()],
            "notes": report.notes,
        }
        print(json.dumps(answer))
        return 0
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    for f in report.files:
        role = "" if f.role == "code" else f" ({f.role})"
        print(f"{f.path}{role}  {f.score:.3f}  [{'; '.join(f.evidence[:4])}]")
        for u in f.functions:
            where = f"{f.path}:{u.start_line}-{u.end_line}"
            print(f"    {where}  {u.symbol}  [{', '.join(u.evidence)}]")
    ranked = report.ranked_functions()[:RANKED_SHOWN]
    if ranked:
        print(f"\nthe {len(ranked)} functions most likely to change, across the files:")
        for i, u in enumerate(ranked, 1):
            print(f"  {i:2}. {u.path}:{u.start_line}-{u.end_line}  {u.symbol}")
    if not report.files:
        print("no files found", file=sys.stderr)
    return 0
