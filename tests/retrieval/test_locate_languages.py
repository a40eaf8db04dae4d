"""`locate` on the traces of Go, Java, Rust and JavaScript, and file roles read from content:
a small polyglot repository indexed for real (git, tree-sitter, PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.locate import locate
from tests.retrieval.indexing import fake_embedder, index_repository

GO_LRU = """\
package cache

// LRU keeps the most recently used entries of a cache.
type LRU struct {
\tentries map[string]*entry
\torder   []string
}

// Queue keeps entries in arrival order.
type Queue struct {
\titems []string
}

// Evict drops the least recently used entry of the cache.
func (c *LRU) Evict() {
\toldest := c.order[0]
\tc.order = c.order[1:]
\tdelete(c.entries, oldest)
}

// Evict drops the oldest entry of the queue.
func (q *Queue) Evict() {
\tq.items = q.items[1:]
}
"""

GO_STORE = """\
package cache

// Store writes cache entries through to disk.
type Store struct {
\tpath string
}

// Flush writes every dirty entry to disk.
func (s *Store) Flush() error {
\treturn nil
}
"""

GO_ERRORS = """\
package errors

// Wrap annotates an error with a message.
func Wrap(err error, message string) error {
\treturn err
}
"""

JAVA_DISPATCHER = """\
package com.acme.fleet;

public class Dispatcher {
    private final Router router;

    public Dispatcher(Router router) {
        this.router = router;
    }

    public void dispatch(Truck truck) {
        String depot = router.depotOf(truck.region());
        truck.sendTo(depot.trim());
    }

    public void retry(Truck truck) {
        dispatch(truck);
    }
}
"""

JAVA_ROUTE_DISPATCHER = """\
package com.acme.fleet.route;

public class Dispatcher {
    public void dispatch(String route) {
        System.out.println(route);
    }
}
"""

RUST_LEXER = """\
pub struct Lexer {
    input: Vec<char>,
    pos: usize,
}

impl Lexer {
    pub fn new(text: &str) -> Self {
        Lexer { input: text.chars().collect(), pos: 0 }
    }

    pub fn next_token(&mut self) -> Option<char> {
        let token = self.input[self.pos];
        self.pos += 1;
        Some(token)
    }

    pub fn peek(&self) -> Option<char> {
        self.input.get(self.pos).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_token_reads_past_the_end_of_the_input() {
        let mut lexer = Lexer::new("a");
        lexer.next_token();
        assert_eq!(lexer.next_token(), None);
    }
}
"""

RUST_PARSER = """\
pub mod lexer;

pub fn parse(text: &str) -> usize {
    let mut lexer = lexer::Lexer::new(text);
    let mut n = 0;
    while lexer.peek().is_some() {
        lexer.next_token();
        n += 1;
    }
    n
}
"""

JS_STORE = """\
class UserStore {
  constructor(users) {
    this.users = users;
  }

  find(id) {
    return this.users.get(id).profile;
  }

  remove(id) {
    this.users.delete(id);
  }
}

module.exports = { UserStore };
"""

JS_ROUTES = """\
const { UserStore } = require('../store/users');

function showUser(request, response) {
  const store = new UserStore(request.app.users);
  response.json(store.find(request.params.id));
}

module.exports = { showUser };
"""

# the project's tests of the user store, in a folder no path rule lists
JS_CHECKS = """\
const { UserStore } = require('../src/store/users');

describe('UserStore', () => {
  it('finds a user profile by id in the user store', () => {
    const store = new UserStore(new Map([[1, { profile: 'a' }]]));
    expect(store.find(1)).toBe('a');
  });

  it('finds no user profile for an unknown user id', () => {
    const store = new UserStore(new Map());
    expect(() => store.find(2)).toThrow();
  });

  it('removes a user from the user store', () => {
    const store = new UserStore(new Map([[1, { profile: 'a' }]]));
    store.remove(1);
    expect(store.users.size).toBe(0);
  });
});
"""

# a bundled library (its banner says which), shipped in a folder no path rule lists
VENDORED_JQUERY = (
    "/*!\n * jQuery JavaScript Library v3.5.1\n * https://jquery.com/\n */\n"
    + "\n".join(
        f"jQuery.fn.findUser{i} = function (store, id) {{ return store.find(id).profile; }};"
        for i in range(30)
    )
    + "\n"
)

GO_REPORT = """\
LRU cache panics on eviction when the cache is empty

Calling Evict on a fresh cache crashes the fleet daemon:

panic: runtime error: index out of range [0] with length 0

goroutine 1 [running]:
github.com/acme/fleet/go/cache.(*LRU).Evict(0xc000010000)
\t/home/u/go/src/github.com/acme/fleet/go/cache/lru.go:16 +0x1d
github.com/pkg/errors.Wrap(...)
\t/root/go/pkg/mod/github.com/pkg/errors@v0.9.1/errors.go:184
main.main()
\t/usr/local/go/src/runtime/proc.go:267 +0x2bb
"""

JAVA_REPORT = """\
NullPointerException when dispatching a truck without a region

Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.trim()"
\tat com.acme.fleet.Dispatcher.dispatch(Dispatcher.java:12)
\tat com.acme.fleet.Dispatcher.retry(Dispatcher.java:16)
\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1541)
"""

RUST_REPORT = """\
Lexer panics at the end of the input

thread 'main' panicked at src/parser/lexer.rs:13:21:
index out of bounds: the len is 1 but the index is 1
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs:645:5
   3: tinyql::parser::lexer::Lexer::next_token
             at ./src/parser/lexer.rs:13:21
   4: tinyql::parser::parse
             at ./src/parser/mod.rs:7:9
"""

JS_REPORT = """\
Finding a user that is not in the store crashes the profile page

TypeError: Cannot read properties of undefined (reading 'profile')
    at UserStore.find (/app/web/src/store/users.js:7:34)
    at showUser (/app/web/src/routes/users.js:5:22)
    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)
"""

WORDS_REPORT = (
    "Finding a user in the user store by id returns the wrong profile\n\n"
    "When the user store is asked to find a user profile by id, the profile of another user"
    " comes back. Finding the user works for the first id only; every other user id finds the"
    " first user profile of the store."
)


@pytest.fixture
def fleet(settings_env: Path, database_url: str, git_repo):
    """(connection, scope) over the polyglot repository, indexed."""
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    files = {
        "go/cache/lru.go": GO_LRU,
        "go/cache/store.go": GO_STORE,
        "go/internal/errors/errors.go": GO_ERRORS,
        "java/src/main/java/com/acme/fleet/Dispatcher.java": JAVA_DISPATCHER,
        "java/src/main/java/com/acme/fleet/route/Dispatcher.java": JAVA_ROUTE_DISPATCHER,
        "rust/src/parser/lexer.rs": RUST_LEXER,
        "rust/src/parser/mod.rs": RUST_PARSER,
        "web/src/store/users.js": JS_STORE,
        "web/src/routes/users.js": JS_ROUTES,
        "web/checks/user_store.js": JS_CHECKS,
        "web/public/lib/query.js": VENDORED_JQUERY,
    }
    for path, text in files.items():
        git_repo.write(path, text)
    git_repo.commit("fleet")
    index_repository(database_url, git_repo.path, "fleet", embedder=fake_embedder())
    conn = connect(database_url, autocommit=True)
    yield conn, resolve_scope(conn, ensure_operator(conn), ["fleet"])
    conn.close()


def _first(report) -> tuple[str, str]:
    first = report.files[0]
    return first.path, first.functions[0].symbol


def test_traces_of_go_java_rust_and_javascript_put_the_faulty_file_and_function_first(fleet):
    conn, scope = fleet
    go = locate(conn, scope, GO_REPORT)
    # the frame names LRU.Evict: of the file's two Evict methods, the LRU's leads
    assert _first(go) == ("go/cache/lru.go", "cache.LRU.Evict")
    # errors.go of a dependency (the Go module cache) is not this repository's errors.go
    assert all(
        "stack frame" not in " ".join(f.evidence)
        for f in go.files
        if f.path == "go/internal/errors/errors.go"
    )

    java = locate(conn, scope, JAVA_REPORT)
    # the package path picks com/acme/fleet/Dispatcher.java over route/Dispatcher.java
    assert _first(java) == (
        "java/src/main/java/com/acme/fleet/Dispatcher.java",
        "com.acme.fleet.Dispatcher.dispatch",
    )
    assert any(e.startswith("stack frame") for e in java.files[0].evidence)
    other = [f for f in java.files if f.path.endswith("route/Dispatcher.java")]
    assert not other or not any(e.startswith("stack frame") for e in other[0].evidence)

    rust = locate(conn, scope, RUST_REPORT)
    assert _first(rust) == ("rust/src/parser/lexer.rs", "Lexer::next_token")
    # the inline test that calls next_token comes after the function itself
    symbols = [u.symbol for u in rust.files[0].functions]
    if "tests::next_token_reads_past_the_end_of_the_input" in symbols:
        assert symbols.index("Lexer::next_token") < symbols.index(
            "tests::next_token_reads_past_the_end_of_the_input"
        )

    js = locate(conn, scope, JS_REPORT)
    assert _first(js) == ("web/src/store/users.js", "UserStore.find")


def test_tests_in_an_unlisted_folder_and_a_bundled_library_are_read_by_their_content(fleet):
    conn, scope = fleet
    report = locate(conn, scope, WORDS_REPORT)
    roles = {f.path: f.role for f in report.files}
    paths = [f.path for f in report.files]
    assert paths[0] == "web/src/store/users.js"
    assert roles["web/checks/user_store.js"] == "test"
    assert paths.index("web/checks/user_store.js") > paths.index("web/src/routes/users.js")
    # the library repeats the report's words more than any code, and comes after the code
    assert roles["web/public/lib/query.js"] == "vendored"
    assert paths.index("web/public/lib/query.js") > paths.index("web/src/routes/users.js")


def test_without_the_stored_roles_the_tests_and_the_library_would_rank_as_code(fleet):
    """The contrast: file versions indexed before roles were read (role NULL) fall back to the
    path rule, which reads both as code and lets their repeated words outrank the code."""
    conn, scope = fleet
    before = [f.path for f in locate(conn, scope, WORDS_REPORT).files]
    conn.execute("UPDATE file_versions SET role = NULL")
    after = locate(conn, scope, WORDS_REPORT)
    paths = [f.path for f in after.files]
    roles = {f.path: f.role for f in after.files}
    assert roles["web/checks/user_store.js"] == roles["web/public/lib/query.js"] == "code"
    assert paths[0] == "web/public/lib/query.js"
    assert paths.index("web/checks/user_store.js") < before.index("web/checks/user_store.js")
