"""The call graph on a real indexed repository written for it: a call is certain when imports,
the class or its bases, or the package pin it to the asked definition; a call that reaches
another definition of the same name is left out; the rest are ambiguous."""

from __future__ import annotations

import pytest

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
    # the sites of the first two calls in path order, resolved as before, and a flag
    assert first.more and first.calls == 3
    assert _sites(first) == [
        ("app/jobs.py", 6, "nightly", "item.save", "ambiguous"),
        ("app/store.py", 8, "Child.run", "self.save", "certain"),
    ]
