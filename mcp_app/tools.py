"""The MCP tools: thin, synchronous handlers over `retrieval/` (run on worker threads).

Each takes the principal and its validated input model and returns small JSON. Repositories are
always named and checked against the principal inside the SQL; nothing here widens access.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_app import inputs
from mcp_app.state import AppState
from retrieval.principals import DbConnection, Principal, readable_repositories

DESCRIPTIONS: dict[str, str] = {
    "search_code": (
        "Search code by meaning and by words (hybrid semantic + lexical, fused), with exact "
        "symbol-name matches first. Returns whole symbols as path:start-end with the symbol's "
        "qualified name, which retrievers found it, the commit, and whether it is committed code "
        "or your uncommitted file (source 'working-tree'). Use read_symbol to see the code."
    ),
    "search_symbols": (
        "Find definitions by name: exact (qualified or bare, case-sensitive first) then similar "
        "names. Returns kind, signature and location of each definition."
    ),
    "read_symbol": (
        "Read the complete source of one symbol (function, method, class...) by name, or the "
        "symbol(s) at a path and line range. Never returns whole files; long symbols are cut at "
        "max_lines and continue with from_line."
    ),
    "find_callers": (
        "Call sites of a function or method, resolved inside the snapshot: 'certain' when the "
        "syntax (same file, import, self/class receiver) pins the call to this definition, "
        "'ambiguous' when only the name matches. Pass path when several definitions share a name."
    ),
    "find_callees": (
        "What a function or method calls, each with its location and, when only one "
        "definition of that name exists, where that definition is."
    ),
    "file_outline": (
        "The symbols of one file in order (name, kind, signature, lines, nesting depth): a map "
        "of the file without its contents."
    ),
    "index_file": (
        "Index one uncommitted file (the full text as it is in your working tree) so that search "
        "and read tools see it in place of the committed version, for you only, marked "
        "'working-tree'. At most 1 MB of UTF-8 source text."
    ),
    "forget_file": (
        "Remove a file you sent with index_file (or, without path, all of yours in the "
        "repository) so search and read tools show the committed version again. Files you send "
        "also expire on their own (expires_at in index_file's answer)."
    ),
    "index_status": (
        "Per repository: indexed commit, branch head, lag, embedding model and vector coverage."
    ),
    "list_repositories": "The repositories you can read, with their current indexed commit.",
}

READ_ONLY = {name for name in DESCRIPTIONS if name not in ("index_file", "forget_file")}
DESTRUCTIVE = {"forget_file"}


def _page(items: list[Any], limit: int, offset: int, key: str) -> dict[str, Any]:
    """A page of results with `next_offset` when more may follow."""
    page = items[offset : offset + limit]
    result: dict[str, Any] = {key: page}
    if len(items) > offset + limit:
        result["next_offset"] = offset + limit
    return result


def search_code(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.SearchCodeInput
) -> dict[str, Any]:
    """Hybrid search."""
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code as run_search

    scope = resolve_scope(conn, who, args.repositories, args.commit)
    report = run_search(
        conn,
        scope,
        args.query,
        limit=args.limit + 1,
        offset=args.offset,
        mode=args.mode,
        embed_query=state.embed_query,
    )
    hits = [h.as_dict() for h in report.hits]
    result = _page(hits, args.limit, 0, "results")
    if "next_offset" in result:
        result["next_offset"] = args.offset + args.limit
    if report.notes:
        result["notes"] = report.notes
    return result


def search_symbols(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.SearchSymbolsInput
) -> dict[str, Any]:
    """Definitions by name."""
    from retrieval.scope import resolve_scope
    from retrieval.symbols import search_symbols as run

    scope = resolve_scope(conn, who, args.repositories, args.commit)
    found = run(conn, scope, args.name, limit=args.limit + 1, offset=args.offset)
    result = _page([m.as_dict() for m in found], args.limit, 0, "symbols")
    if "next_offset" in result:
        result["next_offset"] = args.offset + args.limit
    return result


def read_symbol(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.ReadSymbolInput
) -> dict[str, Any]:
    """Complete source of a symbol."""
    from retrieval.reading import read_symbol as run
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, who, [args.repository], args.commit)
    sources = run(
        conn,
        scope,
        name=args.name,
        path=args.path,
        start_line=args.start_line,
        end_line=args.end_line,
        from_line=args.from_line,
        max_lines=args.max_lines,
    )
    if not sources:
        return {"symbols": [], "note": "no such symbol; search_symbols finds similar names"}
    return {"symbols": [s.as_dict() for s in sources]}


def _call_graph(
    find: Callable[..., tuple[list[Any], list[Any]]],
    conn: DbConnection,
    who: Principal,
    args: inputs.CallGraphInput,
    key: str,
) -> dict[str, Any]:
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, who, [args.repository], args.commit)
    definitions, sites = find(conn, scope, args.name, path=args.path)
    result = {
        "definitions": [
            {"symbol": d.symbol, "path": d.path, "start_line": d.start_line, "kind": d.kind}
            for d in definitions[:10]
        ],
        **_page([s.as_dict() for s in sites], args.limit, args.offset, key),
        "total": len(sites),
    }
    return result


def find_callers(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.CallGraphInput
) -> dict[str, Any]:
    """Call sites of a symbol."""
    from retrieval.graph import find_callers as find

    return _call_graph(find, conn, who, args, "callers")


def find_callees(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.CallGraphInput
) -> dict[str, Any]:
    """Calls made by a symbol."""
    from retrieval.graph import find_callees as find

    return _call_graph(find, conn, who, args, "callees")


def file_outline(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.FileOutlineInput
) -> dict[str, Any]:
    """Symbols of one file."""
    from retrieval.reading import file_outline as run
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, who, [args.repository], args.commit)
    return _page(run(conn, scope, args.path), args.limit, args.offset, "symbols")


def index_file(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.IndexFileInput
) -> dict[str, Any]:
    """Index an uncommitted file into the principal's overlay."""
    from mcp_app.overlay import decode_content
    from mcp_app.overlay import index_file as run

    data = decode_content(args.content, args.encoding)
    return run(state, conn, who, args.repository, args.path, data)


def forget_file(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.ForgetFileInput
) -> dict[str, Any]:
    """Drop the principal's working-tree file(s)."""
    from mcp_app.overlay_retention import forget
    from retrieval.reading import clean_path
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, who, [args.repository])
    path = clean_path(args.path) if args.path is not None else None
    removed = forget(conn, who.id, scope.repositories[0].repository_id, path)
    result: dict[str, Any] = {"repository": args.repository, "removed": removed}
    if not removed:
        result["note"] = "you had no working-tree file there"
    return result


def index_status(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.IndexStatusInput
) -> dict[str, Any]:
    """Freshness of the principal's repositories."""
    from retrieval.scope import resolve_scope
    from retrieval.status import primary_commits, repository_status

    scope = resolve_scope(conn, who, args.repositories)
    ids = [r.repository_id for r in scope.repositories]
    if args.repositories is None:  # include readable repositories not indexed yet
        ids = [r["id"] for r in readable_repositories(conn, who)]
    report = repository_status(conn, state.settings, repository_ids=ids)
    served = None
    if state.read_database_url is not None:  # this report is the replica's: name the primary's
        with state.connection() as primary:
            served = primary_commits(primary, ids)
    for repo in report:
        repo.pop("origin", None)  # may hold paths or credentials-free URLs; not needed by agents
        if served is not None:
            repo["primary_commit"] = served.get(repo["name"])
    return {"repositories": report}


def list_repositories(
    state: AppState, conn: DbConnection, who: Principal, args: inputs.ListRepositoriesInput
) -> dict[str, Any]:
    """Repositories the principal can read."""
    rows = readable_repositories(conn, who)
    return {
        "repositories": [
            {
                "name": r["name"],
                "branch": r["default_branch"],
                "current_commit": r["current_commit"],
                "indexed_at": r["ready_at"].isoformat() if r["ready_at"] else None,
                "embedding_model": r["active_embedding_model"],
            }
            for r in rows
        ]
    }


Handler = Callable[[AppState, DbConnection, Principal, Any], dict[str, Any]]

TOOLS: dict[str, tuple[type[inputs.BaseModel], Handler]] = {
    "search_code": (inputs.SearchCodeInput, search_code),
    "search_symbols": (inputs.SearchSymbolsInput, search_symbols),
    "read_symbol": (inputs.ReadSymbolInput, read_symbol),
    "find_callers": (inputs.CallGraphInput, find_callers),
    "find_callees": (inputs.CallGraphInput, find_callees),
    "file_outline": (inputs.FileOutlineInput, file_outline),
    "index_file": (inputs.IndexFileInput, index_file),
    "forget_file": (inputs.ForgetFileInput, forget_file),
    "index_status": (inputs.IndexStatusInput, index_status),
    "list_repositories": (inputs.ListRepositoriesInput, list_repositories),
}
