"""The MCP tools: typed functions over `retrieval/`, each registered by `@tool` with its
description and hints. The SDK builds a tool's input schema from its parameters
(`mcp_app.inputs`) and its output schema from its return type (`mcp_app.outputs`), and runs it on
a worker thread. Repositories are always named and checked against the principal inside the
SQL; nothing here widens access. Read tools run on the streaming replica when one is configured
and their answers say how far it trailed (`replica`); the write tools run on the primary.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, get_type_hints

from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import TypeAdapter

from mcp_app import outputs, overlay, overlay_retention
from mcp_app.app_context import ToolCall, ToolContext, tool_call
from mcp_app.inputs import (
    Commit,
    ContentEncoding,
    DefiningPath,
    EndLine,
    FileContent,
    FromLine,
    IssueText,
    Limit,
    LocateLimit,
    MaxLines,
    Offset,
    OutlineLimit,
    OutlineOffset,
    Path,
    PathToForget,
    PathToRead,
    Query,
    ReportedRepositories,
    RepositoryName,
    SearchedRepositories,
    SearchMode,
    StartLine,
    SymbolName,
    SymbolRepositories,
    SymbolToRead,
)
from retrieval import graph, reading, status, symbols
from retrieval.hits import CallSite, Definition, SymbolMatch
from retrieval.locate import locate as locate_files
from retrieval.principals import DbConnection, readable_repositories
from retrieval.request_budget import request_budget
from retrieval.scope import Scope, resolve_scope

F = TypeVar("F", bound=Callable[..., Any])
A = TypeVar("A", bound=outputs.ReadAnswer)

TOOLS: list[Tool] = []


class CallGraphWalk(Protocol):
    """`graph.find_callers` or `graph.find_callees`."""

    def __call__(
        self, conn: DbConnection, scope: Scope, name: str, *, path: str | None = None
    ) -> tuple[list[SymbolMatch], list[CallSite]]: ...


def tool(description: str, *, writes: bool = False, destroys: bool = False) -> Callable[[F], F]:
    """Register the function as a tool named after it (read-only unless it `writes`)."""

    def register(fn: F) -> F:
        hints = ToolAnnotations(
            read_only_hint=not writes,
            destructive_hint=destroys,
            idempotent_hint=True,
            open_world_hint=False,
        )
        TOOLS.append(
            Tool.from_function(
                _sent(fn), description=description, annotations=hints, structured_output=True
            )
        )
        return fn

    return register


def _sent(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` answering with its answer as sent: retrieval's records reduced to their public
    fields by the answer type's own serializer. The SDK writes the text block from the value a
    tool returns, as it is; without this it would carry the records' internal fields."""
    answer = TypeAdapter[Any](get_type_hints(fn)["return"])

    @functools.wraps(fn)
    def answering(*args: Any, **kwargs: Any) -> Any:
        return answer.dump_python(fn(*args, **kwargs), mode="json")

    return answering


def _answer(call: ToolCall, result: A) -> A:
    """A read tool's answer, with the replica's lag when it was read on one."""
    if call.replica is not None:
        result["replica"] = call.replica
    return result


def _readable_repositories(call: ToolCall) -> list[dict[str, Any]]:
    """The repositories the principal can read (rows of `repositories`)."""
    return readable_repositories(call.conn, call.principal)


@tool(
    "Search code by meaning and by words (hybrid semantic + lexical, fused), with exact "
    "symbol-name matches first. Returns whole symbols as path:start-end with the symbol's "
    "qualified name, which retrievers found it, the commit, and whether it is committed code "
    "or your uncommitted file (source 'working-tree'). A bug report pasted whole (several "
    "lines) is ranked as locate ranks it: the functions of the files most likely to change. "
    "Use read_symbol to see the code."
)
def search_code(
    ctx: ToolContext,
    query: Query,
    repositories: SearchedRepositories = None,
    commit: Commit = None,
    mode: SearchMode = "hybrid",
    limit: Limit = 10,
    offset: Offset = 0,
) -> outputs.SearchCodeResult:
    """Hybrid search."""
    with tool_call(ctx) as call:
        scope = resolve_scope(call.conn, call.principal, repositories, commit)
        call.conn.commit()  # the retrievers' lent connections see what this one wrote
        limits = call.app.limits
        with request_budget(limits.request_seconds, query, limits.request_memory_mb, call.conn):
            report = call.app.retriever.search(
                call.conn, scope, query, limit=limit + 1, offset=offset, mode=mode
            )
    hits = report.hits  # limit + 1 from offset
    result: outputs.SearchCodeResult = {"results": hits[:limit]}
    if len(hits) > limit:
        result["next_offset"] = offset + limit
    if report.notes:
        result["notes"] = report.notes
    return _answer(call, result)


@tool(
    "Locate the code a bug report is about: paste the whole report (prose, stack trace, "
    "quoted paths and code). Returns files ranked by how likely they are to change, each with "
    "its likely functions (path:start-end) and the evidence that placed it (stack frame, path "
    "named, symbol named, text, meaning), and those functions in one ranking across the "
    "files (`functions`: look at them in that order). Tests, docs, examples and vendored "
    "copies rank below the code unless the report names them. Use read_symbol to see a "
    "function."
)
def locate(
    ctx: ToolContext,
    issue_text: IssueText,
    repositories: SearchedRepositories = None,
    commit: Commit = None,
    limit: LocateLimit = 10,
) -> outputs.LocateResult:
    """Bug report -> ranked files."""
    with tool_call(ctx) as call:
        scope = resolve_scope(call.conn, call.principal, repositories, commit)
        call.conn.commit()  # the lookups' lent connections see what this one wrote
        limits = call.app.limits
        with request_budget(
            limits.request_seconds, issue_text, limits.request_memory_mb, call.conn
        ):
            report = locate_files(
                call.conn,
                scope,
                issue_text,
                limit_files=limit,
                connections=call.app.retriever.connections,
                embed_query=call.app.retriever.embed_query,
            )
    result: outputs.LocateResult = {"files": report.files, "functions": report.ranked_functions()}
    if report.notes:
        result["notes"] = report.notes
    return _answer(call, result)


@tool(
    "Find definitions by name: exact (qualified or bare, case-sensitive first) then similar "
    "names. Returns kind, signature and location of each definition."
)
def search_symbols(
    ctx: ToolContext,
    name: SymbolName,
    repositories: SymbolRepositories = None,
    commit: Commit = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> outputs.SearchSymbolsResult:
    """Definitions by name."""
    with tool_call(ctx) as call:
        scope = resolve_scope(call.conn, call.principal, repositories, commit)
        found = symbols.search_symbols(call.conn, scope, name, limit=limit + 1, offset=offset)
    result: outputs.SearchSymbolsResult = {"symbols": found[:limit]}
    if len(found) > limit:
        result["next_offset"] = offset + limit
    return _answer(call, result)


@tool(
    "Read the complete source of one symbol (function, method, class...) by name, or the "
    "symbol(s) at a path and line range. Never returns whole files; long symbols are cut at "
    "max_lines and continue with from_line."
)
def read_symbol(
    ctx: ToolContext,
    repository: RepositoryName,
    name: SymbolToRead = None,
    path: PathToRead = None,
    start_line: StartLine = None,
    end_line: EndLine = None,
    from_line: FromLine = None,
    max_lines: MaxLines = 300,
    commit: Commit = None,
) -> outputs.ReadSymbolResult:
    """Complete source of a symbol."""
    with tool_call(ctx) as call:
        scope = resolve_scope(call.conn, call.principal, [repository], commit)
        sources = reading.read_symbol(
            call.conn,
            scope,
            name=name,
            path=path,
            start_line=start_line,
            end_line=end_line,
            from_line=from_line,
            max_lines=max_lines,
        )
    if not sources:
        return _answer(
            call, {"symbols": [], "note": "no such symbol; search_symbols finds similar names"}
        )
    return _answer(call, {"symbols": sources})


def _counts(sites: list[CallSite], limit: int, offset: int) -> outputs.PageCounts:
    """How many sites there are, and where the next page starts when there is one."""
    if len(sites) > offset + limit:
        return {"next_offset": offset + limit, "total": len(sites)}
    return {"total": len(sites)}


def _call_graph(
    call: ToolCall,
    find: CallGraphWalk,
    repository: str,
    name: str,
    path: str | None,
    commit: str | None,
) -> tuple[list[Definition], list[CallSite]]:
    """The symbol's definitions (at most 10) and all its call sites."""
    scope = resolve_scope(call.conn, call.principal, [repository], commit)
    definitions, sites = find(call.conn, scope, name, path=path)
    return [d.as_definition() for d in definitions[:10]], sites


@tool(
    "Call sites of a function or method, resolved inside the snapshot: 'certain' when the "
    "syntax (same file, import, self/class receiver) pins the call to this definition, "
    "'ambiguous' when only the name matches. Pass path when several definitions share a name."
)
def find_callers(
    ctx: ToolContext,
    repository: RepositoryName,
    name: SymbolName,
    path: DefiningPath = None,
    commit: Commit = None,
    limit: Limit = 30,
    offset: Offset = 0,
) -> outputs.CallersResult:
    """Call sites of a symbol."""
    with tool_call(ctx) as call:
        definitions, sites = _call_graph(call, graph.find_callers, repository, name, path, commit)
    result: outputs.CallersResult = {
        "definitions": definitions,
        "callers": sites[offset : offset + limit],
        **_counts(sites, limit, offset),
    }
    if isinstance(sites, graph.CallSites) and sites.more:
        result["more_sites"] = True
        result["note"] = (
            f"{sites.calls} calls of this name: these are the sites of {graph.MAX_EDGES},"
            " those in the definitions' own files first, then the first in path order (total"
            " counts those); search_code finds the"
            " callers of a particular subject"
        )
    return _answer(call, result)


@tool(
    "What a function or method calls, each with its location and, when only one "
    "definition of that name exists, where that definition is."
)
def find_callees(
    ctx: ToolContext,
    repository: RepositoryName,
    name: SymbolName,
    path: DefiningPath = None,
    commit: Commit = None,
    limit: Limit = 30,
    offset: Offset = 0,
) -> outputs.CalleesResult:
    """Calls made by a symbol."""
    with tool_call(ctx) as call:
        definitions, sites = _call_graph(call, graph.find_callees, repository, name, path, commit)
    return _answer(
        call,
        {
            "definitions": definitions,
            "callees": sites[offset : offset + limit],
            **_counts(sites, limit, offset),
        },
    )


@tool(
    "The symbols of one file in order (name, kind, signature, lines, nesting depth): a map "
    "of the file without its contents."
)
def file_outline(
    ctx: ToolContext,
    repository: RepositoryName,
    path: Path,
    commit: Commit = None,
    limit: OutlineLimit = 200,
    offset: OutlineOffset = 0,
) -> outputs.FileOutlineResult:
    """Symbols of one file."""
    with tool_call(ctx) as call:
        scope = resolve_scope(call.conn, call.principal, [repository], commit)
        outline = reading.file_outline(call.conn, scope, path)
    result: outputs.FileOutlineResult = {"symbols": outline[offset : offset + limit]}
    if len(outline) > offset + limit:
        result["next_offset"] = offset + limit
    return _answer(call, result)


@tool(
    "Index one uncommitted file (the full text as it is in your working tree) so that search "
    "and read tools see it in place of the committed version, for you only, marked "
    "'working-tree'. At most 1 MB of UTF-8 source text.",
    writes=True,
)
def index_file(
    ctx: ToolContext,
    repository: RepositoryName,
    path: Path,
    content: FileContent,
    encoding: ContentEncoding = "utf-8",
) -> outputs.IndexFileResult:
    """Index an uncommitted file into the principal's overlay."""
    with tool_call(ctx, writes=True) as call:
        data = overlay.decode_content(content, encoding)
        return overlay.index_file(call.app, call.conn, call.principal, repository, path, data)


@tool(
    "Remove a file you sent with index_file (or, without path, all of yours in the "
    "repository) so search and read tools show the committed version again. Files you send "
    "also expire on their own (expires_at in index_file's answer).",
    writes=True,
    destroys=True,
)
def forget_file(
    ctx: ToolContext, repository: RepositoryName, path: PathToForget = None
) -> outputs.ForgetFileResult:
    """Drop the principal's working-tree file(s)."""
    with tool_call(ctx, writes=True) as call:
        scope = resolve_scope(call.conn, call.principal, [repository])
        cleaned = reading.clean_path(path) if path is not None else None
        removed = overlay_retention.forget(
            call.conn, call.principal.id, scope.repositories[0].repository_id, cleaned
        )
    result: outputs.ForgetFileResult = {"repository": repository, "removed": removed}
    if not removed:
        result["note"] = "you had no working-tree file there"
    return result


@tool("Per repository: indexed commit, branch head, lag, embedding model and vector coverage.")
def index_status(
    ctx: ToolContext, repositories: ReportedRepositories = None
) -> outputs.IndexStatusResult:
    """Freshness of the principal's repositories."""
    with tool_call(ctx) as call:
        scope = resolve_scope(call.conn, call.principal, repositories)
        ids = [r.repository_id for r in scope.repositories]
        if repositories is None:  # include readable repositories not indexed yet
            ids = [r["id"] for r in _readable_repositories(call)]
        report = status.repository_status(call.conn, call.app.settings, repository_ids=ids)
        served = None
        if call.replica is not None:  # this report is the replica's: name the primary's commits
            with call.app.database.connection() as primary:
                served = status.primary_commits(primary, ids)
    for repo in report:
        repo.pop("origin", None)  # may hold paths or credentials-free URLs; not needed by agents
        if served is not None:
            repo["primary_commit"] = served.get(repo["name"])
    return _answer(call, {"repositories": report})


@tool("The repositories you can read, with their current indexed commit.")
def list_repositories(ctx: ToolContext) -> outputs.ListRepositoriesResult:
    """Repositories the principal can read."""
    with tool_call(ctx) as call:
        rows = _readable_repositories(call)
    return _answer(
        call,
        {
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
        },
    )
