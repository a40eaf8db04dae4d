"""Reading the stack traces and diagnostics of every indexed language (`retrieval/trace_frames`)."""

# ruff: noqa: E501  (real traces hold lines longer than the code's)

from __future__ import annotations

import re

import pytest

from retrieval import trace_frames
from retrieval.issue_text import read_issue
from retrieval.trace_frames import MAX_FRAMES, Frame, dependency_path, read_traces


def _frames(text: str) -> list[tuple[str, int | None, str | None, bool]]:
    return [(f.path, f.line, f.function, f.dependency) for f in read_traces(text).frames]


def test_java_and_kotlin_frames_give_the_package_path_the_class_and_method():
    text = """\
Exception in thread "main" java.lang.IllegalStateException: queue closed
\tat com.acme.queue.Broker.publish(Broker.java:42)
\tat com.acme.queue.Broker$Worker.lambda$run$0(Broker.java:77)
\tat com.acme.queue.Broker.<init>(Broker.java:10)
\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1541)
\tat app//com.acme.cli.MainKt.main(Main.kt:5)
Caused by: com.acme.queue.ParseException: bad header
\tat com.acme.queue.parse.HeaderParser.parse(HeaderParser.java:120)
\tat org.junit.runners.ParentRunner.run(ParentRunner.java:363)
\tat com.acme.queue.Broker.fallback(Unknown Source)
\t... 12 more
"""
    frames = read_traces(text).frames
    assert _frames(text) == [
        ("com/acme/queue/Broker.java", 42, "Broker.publish", False),
        ("com/acme/queue/Broker.java", 77, "Worker.run", False),  # the lambda inside run
        ("com/acme/queue/Broker.java", 10, "Broker.Broker", False),  # a constructor
        ("java/util/ArrayList.java", 1541, "ArrayList.forEach", True),  # the JDK
        ("com/acme/cli/Main.kt", 5, "main", False),  # a Kotlin file's top-level function
        ("com/acme/queue/parse/HeaderParser.java", 120, "HeaderParser.parse", False),
        ("org/junit/runners/ParentRunner.java", 363, "ParentRunner.run", False),
    ]
    # a Java frame's path is its package's folders: matched whole, never by the name alone
    assert all(f.whole for f in frames)
    # a frame without a file still names its method
    assert "Broker.fallback" in read_traces(text).named


def test_go_panics_and_goroutine_dumps_pair_each_function_with_the_next_location():
    text = """\
panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]

goroutine 1 [running]:
github.com/acme/store/cache.(*LRU).Evict(0x0, {0x5c1a20, 0x3})
\t/home/u/go/src/github.com/acme/store/cache/lru.go:123 +0x1d
github.com/acme/store/cache.Load.func1()
\t/home/u/go/src/github.com/acme/store/cache/load.go:40 +0x25
github.com/pkg/errors.Wrap(...)
\t/root/go/pkg/mod/github.com/pkg/errors@v0.9.1/errors.go:184
panic({0x4a2d60, 0xc000012345})
\t/usr/local/go/src/runtime/panic.go:914 +0x21f
main.main()
\t/app/cmd/store/main.go:10 +0x25
created by net/http.(*Server).Serve in goroutine 1
\t/usr/lib/go-1.21/src/net/http/server.go:3086 +0x5cb
"""
    assert _frames(text) == [
        ("home/u/go/src/github.com/acme/store/cache/lru.go", 123, "LRU.Evict", False),
        ("home/u/go/src/github.com/acme/store/cache/load.go", 40, "cache.Load", False),
        ("errors.go", 184, "errors.Wrap", True),  # the module cache: the path in its module
        ("runtime/panic.go", 914, None, True),  # GOROOT
        ("app/cmd/store/main.go", 10, None, False),  # main.main: the line says which function
        ("net/http/server.go", 3086, "Server.Serve", True),
    ]


def test_rust_panics_and_backtraces_read_the_functions_of_both_formats():
    text = """\
thread 'main' panicked at src/parser/lexer.rs:88:17:
index out of bounds: the len is 3 but the index is 3
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs:645:5
   3: tinyql::parser::lexer::Lexer::next_token
             at ./src/parser/lexer.rs:88:17
   4:     0x55d4c0a1b2c3 - <tinyql::ast::Expr as core::fmt::Display>::fmt::h0123456789abcdef
             at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.188/src/ser.rs:12:9
   5: tinyql::run::{{closure}}
             at src/run.rs:5:9
thread 'worker' panicked at 'called `Option::unwrap()` on a `None` value', src/pool.rs:31:40
"""
    assert _frames(text) == [
        ("src/parser/lexer.rs", 88, None, False),
        ("library/std/src/panicking.rs", 645, "rust_begin_unwind", True),
        ("src/parser/lexer.rs", 88, "Lexer.next_token", False),
        ("src/ser.rs", 12, "Expr.fmt", True),  # a crate of ~/.cargo: the path in the crate
        ("src/run.rs", 5, "tinyql.run", False),  # a closure is its function's
        ("src/pool.rs", 31, None, False),  # the panic message of Rust before 1.73
    ]


def test_node_and_browser_frames_read_their_locations_through_urls_and_bundler_schemes():
    text = """\
TypeError: Cannot read properties of undefined (reading 'id')
    at Object.<anonymous> (/app/src/routes/users.js:10:15)
    at UserStore.find [as lookup] (webpack:///./src/store/users.ts?:3:7)
    at async Promise.all (index 0)
    at Module._compile (node:internal/modules/cjs/loader:1105:14)
    at Layer.handle (/app/node_modules/express/lib/router/layer.js:95:5)
    at new Session (file:///app/src/session.mjs:4:11)
    at /app/src/index.js:3:1
render@http://localhost:3000/static/js/main.chunk.js:120:9
Widget/<@webpack:///src/components/Widget.vue:4:5
"""
    assert _frames(text) == [
        ("app/src/routes/users.js", 10, None, False),
        ("src/store/users.ts", 3, "UserStore.find", False),
        ("lib/router/layer.js", 95, "Layer.handle", True),  # the path inside its package
        ("app/src/session.mjs", 4, "Session", False),
        ("app/src/index.js", 3, None, False),
        ("static/js/main.chunk.js", 120, "render", False),
        ("src/components/Widget.vue", 4, "Widget", False),
    ]


def test_gdb_sanitizer_and_valgrind_frames_read_qualified_cpp_names():
    text = """\
Program received signal SIGSEGV, Segmentation fault.
#0  0x0000555555555189 in geo::Polygon::area (this=0x0) at src/geo/polygon.cc:42
#1  geo::total_area (shapes=std::vector of length 2) at src/geo/area.cc:17
#2  0x00007ffff7829d90 in __libc_start_main () from /lib/x86_64-linux-gnu/libc.so.6
==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010
    #0 0x4c3a2b in buf_append /home/ci/work/lib/buf.c:33:5
    #1 0x4c3b11 in net::Conn<int, std::allocator<int> >::flush(int) /home/ci/work/net/conn.cc:88:3
    #2 0x7f1a in __interceptor_free (/lib/x86_64-linux-gnu/libasan.so.6+0xb1a)
lib/hash.c:12:3: runtime error: signed integer overflow
==123==    at 0x4C2B0E: parse_line (reader.c:33)
==123==    by 0x4005F4: main (main.c:10)
"""
    assert _frames(text) == [
        ("src/geo/polygon.cc", 42, "Polygon.area", False),
        ("src/geo/area.cc", 17, "geo.total_area", False),
        ("home/ci/work/lib/buf.c", 33, "buf_append", False),
        ("home/ci/work/net/conn.cc", 88, "Conn.flush", False),
        ("reader.c", 33, "parse_line", False),
        ("main.c", 10, "main", False),
        ("lib/hash.c", 12, None, False),  # UBSan, read as a diagnostic
    ]


def test_visual_studio_and_windbg_call_stacks_read_their_functions_and_files():
    text = r"""
node.exe!__report_gsfailure(unsigned __int64 stack_cookie) Line 220
at D:\a\_work\1\s\src\vctools\crt\vcstartup\src\gs\gs_report.c(220)
[Inline Frame] node.exe!uv_tcp_keepalive_ex(uv_tcp_s * handle, int on) Line 1406
at E:\node\deps\uv\src\win\tcp.c(1406)
node.exe!v8::internal::`anonymous namespace'::Invoke(v8::internal::Isolate * isolate) Line 463
at E:\node\deps\v8\src\execution\execution.cc(463)
00 000000aa`0c8ff5b8 00007ff6`1b2c3d4e node!node::TCPWrap::SetKeepAlive+0x25 [E:\node\src\tcp_wrap.cc @ 213]
"""
    assert _frames(text) == [
        (
            "a/_work/1/s/src/vctools/crt/vcstartup/src/gs/gs_report.c",
            220,
            "__report_gsfailure",
            False,
        ),
        ("node/deps/uv/src/win/tcp.c", 1406, "uv_tcp_keepalive_ex", False),
        ("node/deps/v8/src/execution/execution.cc", 463, "internal.Invoke", False),
        ("node/src/tcp_wrap.cc", 213, "TCPWrap.SetKeepAlive", False),
    ]


def test_csharp_frames_with_and_without_files():
    text = r"""
Unhandled exception. System.InvalidOperationException: Sequence contains no elements
   at System.Linq.ThrowHelper.ThrowNoElementsException()
   at Acme.Billing.InvoiceService.Total(Invoice invoice) in C:\src\Acme.Billing\InvoiceService.cs:line 42
   at Acme.Billing.InvoiceService.<SendAsync>d__5.MoveNext() in /src/Acme.Billing/InvoiceService.cs:line 77
   at Acme.Billing.Ledger.Post[T](T entry)
"""
    evidence = read_traces(text)
    assert _frames(text) == [
        ("src/Acme.Billing/InvoiceService.cs", 42, "InvoiceService.Total", False),
        ("src/Acme.Billing/InvoiceService.cs", 77, "InvoiceService.SendAsync", False),
    ]
    assert evidence.named == ["Ledger.Post"]  # the runtime's own frames name nothing


def test_ruby_frames_in_both_quotings_and_gems():
    text = """\
/srv/app/app/models/user.rb:12:in 'User#save': undefined method 'name' for nil (NoMethodError)
\tfrom /srv/app/app/services/signup.rb:30:in `block (2 levels) in call'
\tfrom /usr/local/bundle/gems/activerecord-7.1.0/lib/active_record/base.rb:3:in `transaction'
\tfrom /usr/lib/ruby/3.2.0/set.rb:511:in `each'
"""
    assert _frames(text) == [
        ("srv/app/app/models/user.rb", 12, "User.save", False),
        ("srv/app/app/services/signup.rb", 30, "call", False),
        ("lib/active_record/base.rb", 3, "transaction", True),
        ("set.rb", 511, "each", True),
    ]


def test_php_frames_name_the_callee_apart_from_the_line_that_called_it():
    text = """\
PHP Fatal error:  Uncaught InvalidArgumentException: empty cart in /var/www/src/Cart/Checkout.php:20
Stack trace:
#0 /var/www/src/Http/CartController.php(12): App\\Cart\\Checkout->submit()
#1 /var/www/vendor/laravel/framework/src/Illuminate/Routing/Controller.php(54): App\\Http\\CartController->store()
#2 [internal function]: Closure->__invoke()
#3 {main}
  thrown in /var/www/src/Cart/Checkout.php on line 20
"""
    evidence = read_traces(text)
    assert _frames(text) == [
        ("var/www/src/Cart/Checkout.php", 20, None, False),
        # a PHP frame names the function called at that line, not the one holding it: the line
        # picks the function, the callee is a name
        ("var/www/src/Http/CartController.php", 12, None, False),
        ("src/Illuminate/Routing/Controller.php", 54, None, True),  # composer's vendor/
        ("var/www/src/Cart/Checkout.php", 20, None, False),
    ]
    assert evidence.named[:2] == ["Checkout.submit", "CartController.store"]


def test_compiler_diagnostics_of_every_toolchain_are_path_and_line():
    text = """\
src/api/client.ts(12,5): error TS2345: Argument of type 'string' is not assignable.
Services/Mailer.cs(88,13): error CS0103: The name 'smtp' does not exist
src/lexer.c:41:9: error: expected ';' before '}' token
src/Parser.java:57: error: cannot find symbol
error[E0308]: mismatched types
  --> src/eval.rs:130:22
./internal/store/store.go:12:3: printf: Sprintf format %d has arg of wrong type
    store_test.go:42: expected 1, got 2
"""
    assert _frames(text) == [
        ("src/api/client.ts", 12, None, False),
        ("Services/Mailer.cs", 88, None, False),
        ("src/lexer.c", 41, None, False),
        ("src/Parser.java", 57, None, False),
        ("src/eval.rs", 130, None, False),
        ("internal/store/store.go", 12, None, False),
        ("store_test.go", 42, None, False),
    ]


def test_python_frames_and_their_installed_packages():
    text = """\
Traceback (most recent call last):
  File "/home/u/proj/src/tool/cli.py", line 8, in main
  File "/opt/venv/lib/python3.11/site-packages/django/db/models/query.py", line 1400, in get
  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode
"""
    assert _frames(text) == [
        ("home/u/proj/src/tool/cli.py", 8, "main", False),
        ("django/db/models/query.py", 1400, "get", True),
        ("json/decoder.py", 355, "raw_decode", True),
    ]


def test_pytest_tracebacks_name_each_frames_function():
    text = """\
    def test_parse():
>       parse_expr("x")

sympy/parsing/tests/test_parser.py:14:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
sympy/parsing/sympy_parser.py:1011: in parse_expr
    return eval_expr(code, local_dict, global_dict)
sympy/core/expr.py:124: in __eq__
    other = _sympify(other)
E   AttributeError: 'Symbol' object has no attribute 'x'
/opt/venv/lib/python3.11/site-packages/_pytest/python.py:194: in pytest_pyfunc_call
"""
    assert _frames(text) == [
        ("sympy/parsing/sympy_parser.py", 1011, "parse_expr", False),
        ("sympy/core/expr.py", 124, "__eq__", False),
        ("_pytest/python.py", 194, "pytest_pyfunc_call", True),
        ("sympy/parsing/tests/test_parser.py", 14, None, False),  # a location, no function
    ]
    assert [f.kind for f in read_traces(text).frames] == ["python"] * 3 + ["diagnostic"]


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("opt/venv/lib/python3.11/site-packages/requests/sessions.py", "requests/sessions.py"),
        (
            "lib/python3.9/site-packages/astropy-4.3-py3.9.egg/astropy/io/card.py",
            "astropy/io/card.py",
        ),
        ("app/node_modules/a/node_modules/@scope/b/dist/index.js", "dist/index.js"),
        ("root/go/pkg/mod/golang.org/x/net@v0.17.0/http2/frame.go", "http2/frame.go"),
        ("usr/local/go/src/net/http/server.go", "net/http/server.go"),
        ("home/u/go/src/github.com/acme/app/main.go", None),  # a GOPATH checkout: own code
        ("rustc/abc123/library/core/src/option.rs", "library/core/src/option.rs"),
        ("var/www/vendor/acme/lib/src/Lib.php", "src/Lib.php"),
        ("vendor/github.com/x/y/z.go", "github.com/x/y/z.go"),
        ("usr/include/c++/12/bits/stl_vector.h", "c++/12/bits/stl_vector.h"),
        ("srv/app/lib/parser.rb", None),
        ("src/main/java/com/acme/App.java", None),
    ],
)
def test_dependency_paths_keep_the_path_inside_their_package(path, inside):
    assert dependency_path(path) == inside


def test_a_report_names_the_functions_its_traces_name_as_qualified_identifiers():
    report = """\
The LRU cache panics when evicting from an empty cache.

goroutine 1 [running]:
github.com/acme/store/cache.(*LRU).Evict(0x0)
\t/home/u/go/src/github.com/acme/store/cache/lru.go:123 +0x1d
#0 /var/www/src/Http/CartController.php(12): App\\Cart\\Checkout->submit()
"""
    evidence = read_issue(report)
    assert "LRU.Evict" in evidence.identifiers
    assert "Checkout.submit" in evidence.identifiers
    assert Frame("home/u/go/src/github.com/acme/store/cache/lru.go", 123, "LRU.Evict") in (
        evidence.frames
    )
    # a Python frame's function is read as it always was: not added as an identifier
    python = read_issue('Traceback:\n  File "/x/pkg/mod.py", line 3, in frobnicate\n')
    assert "frobnicate" not in python.identifiers


def test_at_most_max_frames_are_read_from_a_long_trace():
    text = "\n".join(f"\tat com.acme.Deep.recurse(Deep.java:{n})" for n in range(5000))
    assert len(read_traces(text).frames) == MAX_FRAMES


# one pathological shape per pattern family: long runs of the characters each pattern repeats
_PATHOLOGICAL = [
    "at " + "a." * 20000,
    "at " + "(" * 20000,
    "#1 0x1 in " + "a::" * 15000,
    "a/" * 30000 + "x",
    "File " + '"' + "a/" * 20000,
    "x" * 60000 + ".py:",
    ("github.com/x.(" * 5000) + ")",
    "thread '" + "', " * 20000,
    "at x (" + "?" * 30000 + ")",
    "a.rb:1:in `" + "`" * 30000,
    "@" + "?:" * 30000,
    "#0 " + "x.php(" * 8000,
    ":1" * 30000,
    ("at 0x1: " + " (" * 3000 + "\n") * 10,
]


@pytest.mark.parametrize("text", _PATHOLOGICAL, ids=range(len(_PATHOLOGICAL)))
def test_64_kib_of_pathological_text_is_read_in_bounded_work(text, monkeypatch):
    """Each line is cut at MAX_LINE characters before any pattern sees it, and the patterns
    start only where a token starts: the characters the patterns are given stay within a
    small multiple of the text's length (no pattern sees the same long line twice per start)."""
    text = (text * (65536 // len(text) + 1))[:65536]
    seen = {"chars": 0}
    real = re.Pattern

    class Counting:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def __getattr__(self, name: str):
            method = getattr(self.pattern, name)
            if name not in ("match", "search", "fullmatch", "finditer", "sub"):
                return method

            def counted(*args, **kwargs):
                given = next((a for a in args if isinstance(a, str)), "")
                seen["chars"] += len(given)
                return method(*args, **kwargs)

            return counted

    for name, value in list(vars(trace_frames).items()):
        if isinstance(value, real):
            monkeypatch.setattr(trace_frames, name, Counting(value))
    read_traces(text)
    read_issue(text)
    assert seen["chars"] <= 40 * len(text)


def test_each_frame_says_which_form_it_was_read_from():
    text = "\n".join(
        [
            '  File "/x/pkg/a.py", line 3, in f',
            "\tat com.acme.A.f(A.java:1)",
            r"   at Acme.A.F() in C:\src\A.cs:line 2",
            "    at f (/app/src/a.js:1:2)",
            "f@http://host/static/a.js:1:2",
            "main.f()",
            "\t/app/a.go:3 +0x1",
            "thread 'main' panicked at src/a.rs:1:1:",
            "#0  0x1 in f (x=1) at src/a.cc:3",
            "==1==    at 0x4C2: f (a.c:3)",
            "app.exe!f(int x) Line 3",
            r"at C:\src\w.cpp(3)",
            "/srv/a.rb:1:in `f'",
            "#0 /var/www/A.php(3): B->c()",
            "src/b.c:1:2: error: expected ';'",
        ]
    )
    assert [f.kind for f in read_traces(text).frames] == list(trace_frames.KINDS)
