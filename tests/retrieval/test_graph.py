"""The call graph on a real indexed repository written for it: a call is certain when imports,
the class or its bases, or the package pin it to the asked definition; a call that reaches
another definition of the same name is left out; the rest are ambiguous."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import GitRepo
from tests.retrieval.indexing import fake_embedder, index_repository

FILES = {
    "app/store.py": """class Base:
    def save(self):
        return "base"


class Child(Base):
    def run(self):
        return self.save()

    def save(self):
        return super().save()


class Other:
    def save(self):
        return "other"
""",
    "app/jobs.py": """from app.store import Child


def nightly(item):
    Child().run()
    return item.save()
""",
    "web/api.ts": "export function get(url: string) {\n  return fetch(url);\n}\n",
    "web/cache.ts": "export function get(key: string) {\n  return localStorage[key];\n}\n",
    "web/page.ts": (
        'import { get } from "./api";\n\nexport function load() {\n  return get("/x");\n}\n'
    ),
    "svc/pool.go": "package svc\n\nfunc acquire() int {\n\treturn 1\n}\n",
    "svc/worker.go": "package svc\n\nfunc Work() int {\n\treturn acquire()\n}\n",
}


@pytest.fixture
def graph_scope(settings_env, database_url, git_repo):
    """The operator's scope over the repository above, indexed."""
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    for path, text in FILES.items():
        git_repo.write(path, text)
    git_repo.commit("graph")
    index_repository(database_url, git_repo.path, "graph", embedder=fake_embedder())
    conn = connect(database_url, autocommit=True)
    yield conn, resolve_scope(conn, ensure_operator(conn), ["graph"])
    conn.close()


def _sites(sites):
    return sorted((s.path, s.line, s.caller, s.callee, s.certainty) for s in sites)


def test_self_calls_reach_the_own_class_and_super_calls_the_base(graph_scope):
    from retrieval.graph import find_callers

    conn, scope = graph_scope
    _, base = find_callers(conn, scope, "Base.save")
    assert _sites(base) == [("app/store.py", 11, "Child.save", "super().save", "certain")]
    _, child = find_callers(conn, scope, "Child.save")
    assert ("app/store.py", 8, "Child.run", "self.save", "certain") in _sites(child)


def test_a_call_through_an_object_is_ambiguous_only_where_the_file_names_the_class(graph_scope):
    from retrieval.graph import find_callers

    conn, scope = graph_scope
    _, child = find_callers(conn, scope, "Child.save")
    # jobs.py imports Child, so its `item.save()` may be Child's
    assert ("app/jobs.py", 6, "nightly", "item.save", "ambiguous") in _sites(child)
    # ...but never Other's: nothing in jobs.py names Other
    definitions, other = find_callers(conn, scope, "Other.save")
    assert [d.symbol for d in definitions] == ["Other.save"] and other == []


def test_a_bare_name_asks_for_every_definition_and_lists_certain_sites_first(graph_scope):
    from retrieval.graph import find_callers

    conn, scope = graph_scope
    definitions, sites = find_callers(conn, scope, "save")
    assert sorted(d.symbol for d in definitions) == ["Base.save", "Child.save", "Other.save"]
    assert [s.certainty for s in sites] == ["certain", "certain", "ambiguous"]
    assert sites[0].resolved_to is not None and sites[-1].resolved_to is None


def test_a_relative_import_pins_a_call_to_the_imported_files_function(graph_scope):
    from retrieval.graph import find_callers

    conn, scope = graph_scope
    _, api = find_callers(conn, scope, "get", path="web/api.ts")
    assert _sites(api) == [("web/page.ts", 4, "load", "get", "certain")]
    assert api[0].resolved_to == "web/api.ts:1"
    # the same name in another file: page.ts's call reaches api.ts's, so it is left out
    definitions, cache = find_callers(conn, scope, "get", path="web/cache.ts")
    assert [d.path for d in definitions] == ["web/cache.ts"] and cache == []


def test_a_go_call_without_a_qualifier_reaches_its_packages_function(graph_scope):
    from retrieval.graph import find_callers

    conn, scope = graph_scope
    _, sites = find_callers(conn, scope, "acquire")
    assert _sites(sites) == [("svc/worker.go", 4, "svc.Work", "acquire", "certain")]


def test_callees_are_resolved_when_one_definition_has_the_name(graph_scope):
    from retrieval.graph import find_callees

    conn, scope = graph_scope
    [nightly], sites = find_callees(conn, scope, "nightly")
    assert nightly.path == "app/jobs.py"
    called = {s.callee: (s.resolved_to, s.certainty) for s in sites}
    assert called["Child"] == ("app/store.py:6", "certain")  # a bare call to the one Child
    assert called["Child().run"] == ("app/store.py:7", "ambiguous")  # through an object
    assert called["item.save"] == (None, "ambiguous")  # three definitions: not resolved


def test_an_unknown_name_or_a_path_without_it_has_no_definitions_and_no_sites(graph_scope):
    from retrieval.graph import find_callees, find_callers

    conn, scope = graph_scope
    assert find_callers(conn, scope, "no_such_function") == ([], [])
    assert find_callees(conn, scope, "nightly", path="app/store.py") == ([], [])


def test_a_name_called_more_often_than_one_answer_resolves_says_there_are_more(
    graph_scope, monkeypatch
):
    from retrieval import graph

    conn, scope = graph_scope
    _, every = graph.find_callers(conn, scope, "save")
    assert len(every) == 3 and every.calls == 3 and type(every.calls) is int and not every.more
    monkeypatch.setattr(graph, "MAX_EDGES", 2)
    _, first = graph.find_callers(conn, scope, "save")
    # the sites of two calls, resolved as before, and a flag: the definitions' own file first
    # (app/store.py, where both calls reach a definition beside them), though app/jobs.py
    # comes first in path order
    assert first.more and first.calls == 3
    assert _sites(first) == [
        ("app/store.py", 8, "Child.run", "self.save", "certain"),
        ("app/store.py", 11, "Child.save", "super().save", "certain"),
    ]


def _statements_of(conn, monkeypatch, call) -> list[tuple[Any, Any]]:
    """The (statement, parameters) `call()` executes on `conn`, in order."""
    calls: list[tuple[Any, Any]] = []
    execute = conn.execute

    def spy(query, params=None, **kw):
        calls.append((query, params))
        return execute(query, params, **kw)

    monkeypatch.setattr(conn, "execute", spy)
    call()
    monkeypatch.undo()
    return calls


def test_the_calls_of_a_name_are_counted_per_file_from_the_index_alone(graph_scope, monkeypatch):
    # The kernel's kfree has ~11,000 calls: the call edges statement read every one of their
    # rows to count them per file. The index on the callee's name carries the file version
    # (sql/migrations/012), so the count is an index-only scan, whatever the table's size.
    from retrieval import graph

    conn, scope = graph_scope
    calls = _statements_of(conn, monkeypatch, lambda: graph.find_callers(conn, scope, "save"))
    [(query, params)] = [(q, p) for q, p in calls if "per_version" in q]
    with conn.transaction():
        # the test's few rows would be read by a sequential scan: make it look dear
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_bitmapscan = off")
        plan = conn.execute("EXPLAIN " + query, params).fetchall()
    text = "\n".join(r["QUERY PLAN"] for r in plan)
    assert re.search(
        r"Index Only Scan using code_edges_callee_idx on code_edges e\w* .*\n\s*"
        r"Index Cond: \(\(callee_name = 'save'::text\) AND \(kind = 'call'::text\)\)",
        text,
    ), text


def test_the_imports_of_the_callers_files_are_found_by_name_even_by_a_generic_plan(
    graph_scope, monkeypatch
):
    # Given the callers' files as an index condition, a prepared statement's generic plan read
    # every edge of each file through the file-version index (migration 012; the kernel
    # sample: 50,577 edges for 93 files, 7 ms): the imports are found by the name called alone,
    # the callers' files kept among them.
    from psycopg import ClientCursor

    from retrieval import graph

    conn, scope = graph_scope
    calls = _statements_of(conn, monkeypatch, lambda: graph.find_callers(conn, scope, "get"))
    [(query, params)] = [(q, p) for q, p in calls if "kind = 'import'" in q]
    with conn.transaction():
        conn.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_bitmapscan = off")
        conn.execute(query, params, prepare=True)
        [name] = conn.execute(
            "SELECT name FROM pg_prepared_statements WHERE statement LIKE %s",
            ("%kind = 'import'%",),
        ).fetchall()
        values = ", ".join(ClientCursor(conn).mogrify("%s", (v,)) for v in params.values())
        plan = conn.execute(f"EXPLAIN EXECUTE {name['name']}({values})").fetchall()
    text = "\n".join(r["QUERY PLAN"] for r in plan)
    # by the name alone: the files' array is never offered to an index of the edges
    assert "code_edges_callee_idx" in text, text
    assert not re.search(r"Index Cond: .*file_version_id", text), text


def test_the_first_calls_are_those_of_the_first_repository_by_name_then_path(
    settings_env, database_url, tmp_path, monkeypatch
):
    # Path order is one sort key, the repository's name, a space and the path: a name that
    # begins another (`graph`, `graph-x`) still sorts first, as the pair would.
    from core.database import connect
    from retrieval import graph
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    for name in ("graph-x", "graph"):
        repo = GitRepo(tmp_path / name)  # calls of a library's `f`: no file defines it
        repo.write("b.py", "import lib\n\n\ndef g():\n    return lib.f()\n")
        repo.write("a.py", "import lib\n\n\ndef h():\n    return lib.f() + lib.f()\n")
        repo.commit("calls")
        index_repository(database_url, repo.path, name, embedder=fake_embedder())
    conn = connect(database_url, autocommit=True)
    scope = resolve_scope(conn, ensure_operator(conn), ["graph-x", "graph"])
    _, every = graph.find_callers(conn, scope, "f")
    assert [(s.repository, s.path, s.line) for s in every] == [
        ("graph", "a.py", 5),
        ("graph", "a.py", 5),
        ("graph", "b.py", 5),
        ("graph-x", "a.py", 5),
        ("graph-x", "a.py", 5),
        ("graph-x", "b.py", 5),
    ]
    monkeypatch.setattr(graph, "MAX_EDGES", 4)
    _, first = graph.find_callers(conn, scope, "f")
    assert first.more and first.calls == 6
    assert [(s.repository, s.path) for s in first] == [
        ("graph", "a.py"),
        ("graph", "a.py"),
        ("graph", "b.py"),
        ("graph-x", "a.py"),
    ]
    conn.close()
