"""`codeatlas search`, `symbols`, `callers`: retrieval from the command line, as the operator.

Each command first asks the resident query process (codeatlas/resident.py) through a client that
imports only the standard library; without an answer from it, the command runs here, through
`Reader`, and then starts one for the next command. Both print the same bytes: the resident
process runs these same functions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from codeatlas.commands.operator_access import note_replica_lag, opened, query_embedder

# Without --repo a command reads every repository, as `locate` and the MCP tools do: with one
# repository indexed (the usual case) that is the one meant.
EVERY_REPOSITORY = "repository name (default: every repository)"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `search`, `symbols` and `callers` commands."""
    p = subparsers.add_parser("search", help="hybrid code search (every repository, or --repo)")
    p.add_argument("query")
    p.add_argument("--repo", help=EVERY_REPOSITORY)
    p.add_argument("--limit", type=int, default=10, help="number of results (default 10)")
    p.add_argument("--json", action="store_true", help='print {"results": [...]} (the contract)')
    p.add_argument("--mode", choices=("hybrid", "semantic", "lexical"), default="hybrid")
    p.set_defaults(handler=search)

    p = subparsers.add_parser("symbols", help="definitions by name (exact, then similar)")
    p.add_argument("name")
    p.add_argument("--repo", help=EVERY_REPOSITORY)
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=symbols)

    p = subparsers.add_parser("callers", help="call sites of a function or method")
    p.add_argument("name")
    p.add_argument("--repo", help=EVERY_REPOSITORY)
    p.add_argument("--path", help="the defining file, when several definitions share the name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=callers)


def where_shown(scope: Any) -> Callable[[str], str]:
    """How a line names its repository: not at all when the scope holds one (its lines are
    what they always were), else `name  ` before the path."""
    if len(scope.repositories) <= 1:
        return lambda _repository: ""
    return lambda repository: f"{repository}  "


def _in(repo: str | None) -> str:
    return repo if repo else "any repository"


def _repo_flag(repo: str | None) -> str:
    return f" --repo {repo}" if repo else ""


class Reader:
    """How a command reaches the index: here, afresh for each command; the resident query
    process keeps its connection and embedders warm instead (codeatlas/resident.py)."""

    def opened(self, repo: str | None) -> AbstractContextManager[tuple[Any, Any, Any]]:
        """(settings, connection, scope) for the operator reading `repo` (None: all)."""
        return opened(repo)

    def embed_query(self, settings: Any, conn: Any) -> Callable[[str, str], Any]:
        """`embed_query(model, text)` for the search."""
        return query_embedder(settings, conn)


Command = Callable[[argparse.Namespace, Reader], int]


def _answered(args: argparse.Namespace, command: Command) -> int:
    """The resident query process' answer, printed as it is; else the command run here, after
    which a resident process is started for the next command."""
    from core import query_socket
    from core.config import load_settings

    settings = load_settings()
    request = {k: v for k, v in vars(args).items() if k != "handler"}
    answer = query_socket.ask(settings, args.command, request)
    if answer is None and query_socket.serves(settings):
        answer = _asked_a_new_resident(settings, args.command, request)
    if answer is not None:
        sys.stdout.write(answer.stdout)
        sys.stderr.write(answer.stderr)
        return answer.exit_code
    code = command(args, Reader())
    if query_socket.serves(settings):
        sys.stdout.flush()  # the answer first; the process starts in the background
        from codeatlas import resident

        resident.start(settings)
    return code


def _asked_a_new_resident(settings: Any, command: str, request: dict[str, Any]) -> Any:
    """Start the server and the resident query process, and ask it once it listens: the first
    command after a stop is the only cold one. Answering here instead, then starting it, made
    the next command cold too while it warmed up (issue 48); None if it does not listen in time
    (the command then answers here)."""
    from codeatlas import resident
    from core import query_socket
    from core.database import ensure_index_database

    ensure_index_database(settings)  # the resident process reads a running server, never starts it
    before = query_socket.socket_identity(settings.state_dir)  # a dead process' socket, if any
    if not resident.start(settings):
        return None
    if not query_socket.wait_until_listening(
        settings.state_dir, before, query_socket.WARM_UP_SECONDS
    ):
        return None
    return query_socket.ask(settings, command, request)


def search(args: argparse.Namespace) -> int:
    """Print hits as `path:start-end  symbol  [retrievers]`, or the JSON contract."""
    from core.errors import ConfigurationError, UsageError
    from retrieval.request_budget import checked_request_text

    if not args.query.strip():
        # an empty query has no meaning to rank by: the semantic retriever would still return
        # the nearest chunks to the empty text, ten answers that look real
        raise UsageError(
            'the query is empty: say what to find, e.g. codeatlas search "where are refunds'
            f' approved"{_repo_flag(args.repo)}'
        )
    if not 1 <= args.limit <= 1000:
        raise ConfigurationError("--limit must be between 1 and 1000")
    checked_request_text(args.query, "query")  # the MCP tool's limit (retrieval/request_budget.py)
    return _answered(args, run_search)


def run_search(args: argparse.Namespace, reader: Reader) -> int:
    """`search` through `reader`."""
    from retrieval.request_budget import request_budget
    from retrieval.search import search_code

    with reader.opened(args.repo) as (settings, conn, scope):
        with request_budget(settings.request_seconds, args.query, settings.request_memory_mb, conn):
            report = search_code(
                conn,
                scope,
                args.query,
                limit=args.limit,
                mode=args.mode,
                embed_query=reader.embed_query(settings, conn),
            )
        note_replica_lag(settings, conn)
        shown = where_shown(scope)
    for note in report.notes:  # how the query was read, what was skipped (never in the JSON)
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps({"results": [h.contract() for h in report.hits]}))
        return 0
    for hit in report.hits:
        tag = " (working tree)" if hit.source == "working-tree" else ""
        print(
            f"{shown(hit.repository)}{hit.path}:{hit.start_line}-{hit.end_line}  "
            f"{hit.symbol or '(file)'}  "
            f"[{', '.join(hit.retrievers)}]{tag}"
        )
    if not report.hits:
        print("no results", file=sys.stderr)
    return 0


def symbols(args: argparse.Namespace) -> int:
    """Print matching definitions."""
    return _answered(args, run_symbols)


def run_symbols(args: argparse.Namespace, reader: Reader) -> int:
    """`symbols` through `reader`."""
    from retrieval.symbols import search_symbols

    with reader.opened(args.repo) as (settings, conn, scope):
        found = search_symbols(conn, scope, args.name, limit=args.limit)
        note_replica_lag(settings, conn)
        shown = where_shown(scope)
    if args.json:
        print(json.dumps({"symbols": [m.as_dict() for m in found]}))
        return 0
    for m in found:
        print(
            f"{shown(m.repository)}{m.path}:{m.start_line}-{m.end_line}  {m.symbol}  {m.kind}"
            f"  ({m.match})"
        )
    if not found:
        print("no matching symbols", file=sys.stderr)
    return 0


def callers(args: argparse.Namespace) -> int:
    """Print call sites, certain ones first; say whether the name has no definition or no
    callers (they are different answers)."""
    return _answered(args, run_callers)


def run_callers(args: argparse.Namespace, reader: Reader) -> int:
    """`callers` through `reader`."""
    from core.errors import UsageError
    from retrieval import graph

    with reader.opened(args.repo) as (settings, conn, scope):
        definitions, sites = graph.find_callers(conn, scope, args.name, path=args.path)
        note_replica_lag(settings, conn)
        shown = where_shown(scope)
    where = f" in {args.path}" if args.path else ""
    if not definitions and not sites:
        raise UsageError(
            f"no definition named {args.name!r}{where} in {_in(args.repo)}, and nothing calls"
            f" that name; `codeatlas symbols {args.name}{_repo_flag(args.repo)}` finds similar"
            " names"
        )
    if args.json:
        answer: dict = {
            "definitions": [d.as_dict() for d in definitions],
            "callers": [s.as_dict() for s in sites],
        }
        if sites.more:  # the sites of MAX_EDGES calls only
            answer |= {"more_sites": True, "calls": sites.calls}
        print(json.dumps(answer))
        return 0
    for d in definitions:
        print(
            f"# {d.symbol} defined at {shown(d.repository)}{d.path}:{d.start_line}",
            file=sys.stderr,
        )
    if not definitions:
        print(
            f"# no definition named {args.name!r}{where} in {_in(args.repo)} (a library's?):"
            " these calls name it",
            file=sys.stderr,
        )
    for s in sites:
        print(
            f"{shown(s.repository)}{s.path}:{s.line}  {s.caller or '(top level)'}  {s.callee}"
            f"  [{s.certainty}]"
        )
    if not sites:
        print(f"{args.name} has no callers in {_in(args.repo)}", file=sys.stderr)
    if sites.more:
        print(
            f"# {sites.calls} calls of {args.name!r}: these are the sites of {graph.MAX_EDGES},"
            " those in the definitions' own files first, then the first in path order",
            file=sys.stderr,
        )
    return 0
