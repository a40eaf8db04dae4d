"""read_symbol, file_outline and the call graph on a real indexed repository."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from tests.retrieval import sample_code


@contextmanager
def _indexed(database_url: str, git_repo, name: str, files: dict[str, str]):
    """A connection and the operator's scope over `files`, committed and indexed as `name`."""
    from core.database import connection
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from tests.retrieval.indexing import fake_embedder, index_repository

    for path, text in files.items():
        git_repo.write(path, text)
    git_repo.commit(name)
    index_repository(database_url, git_repo.path, name, embedder=fake_embedder())
    with connection(database_url, autocommit=True) as conn:
        yield conn, resolve_scope(conn, ensure_operator(conn), [name])


def test_read_symbol_returns_the_complete_source_of_a_split_symbol_without_piece_headers(
    conn, operator_scope
):
    from retrieval.reading import read_symbol

    [source] = read_symbol(conn, operator_scope, name="shipping_cost", max_lines=1000)
    original = sample_code.long_function().splitlines()
    assert source.code.splitlines() == original[3:]
    assert (source.start_line, source.end_line, source.truncated) == (4, 77, False)


def test_read_symbol_of_a_class_includes_its_methods(conn, operator_scope):
    from retrieval.reading import read_symbol

    [source] = read_symbol(conn, operator_scope, name="InvoiceBuilder")
    lines = sample_code.BILLING.splitlines()
    assert source.code.splitlines() == lines[source.start_line - 1 : source.end_line]
    assert "def render(self):" in source.code


def test_read_symbol_cuts_long_symbols_and_continues_from_a_line(conn, operator_scope):
    from retrieval.reading import read_symbol

    [first] = read_symbol(conn, operator_scope, name="shipping_cost", max_lines=10)
    assert first.truncated and first.code_end_line == 13
    [rest] = read_symbol(conn, operator_scope, name="shipping_cost", from_line=14, max_lines=1000)
    assert rest.code_start_line == 14 and not rest.truncated


def test_read_symbol_by_path_and_line_finds_the_innermost_symbol(conn, operator_scope):
    from retrieval.reading import read_symbol

    [source] = read_symbol(conn, operator_scope, path="shop/billing.py", start_line=22)
    assert source.symbol == "InvoiceBuilder.add_line"


@pytest.mark.parametrize("bad", ["/etc/passwd", "../secrets.py", "shop/../../x.py", "a\\b.py"])
def test_paths_that_escape_the_repository_are_refused(conn, operator_scope, bad):
    from retrieval.reading import InvalidPathError, file_outline

    with pytest.raises(InvalidPathError):
        file_outline(conn, operator_scope, bad)


def test_file_outline_lists_symbols_in_order_with_nesting(conn, operator_scope):
    from retrieval.reading import file_outline

    outline = file_outline(conn, operator_scope, "shop/billing.py")
    assert [(s.symbol, s.depth) for s in outline] == [
        ("is_eligible_for_refund", 0),
        ("InvoiceBuilder", 0),
        ("InvoiceBuilder.__init__", 1),
        ("InvoiceBuilder.add_line", 1),
        ("InvoiceBuilder.total", 1),
        ("InvoiceBuilder.render", 1),
    ]


def test_callers_resolve_imports_and_same_file_calls_as_certain(conn, operator_scope):
    from retrieval.graph import find_callers

    definitions, sites = find_callers(conn, operator_scope, "round_cents")
    assert [d.path for d in definitions] == ["shop/money.py"]
    found = {(s.path, s.caller, s.certainty) for s in sites}
    assert found == {
        ("shop/billing.py", "InvoiceBuilder.add_line", "certain"),
        ("shop/billing.py", "InvoiceBuilder.total", "certain"),
        ("shop/money.py", "convert_currency", "certain"),
    }


def test_callers_of_a_method_through_self_are_certain(conn, operator_scope):
    from retrieval.graph import find_callers

    _defs, sites = find_callers(conn, operator_scope, "InvoiceBuilder.total")
    assert [(s.caller, s.certainty, s.callee) for s in sites] == [
        ("InvoiceBuilder.render", "certain", "self.total")
    ]


def test_callees_of_a_function_point_at_their_definitions(conn, operator_scope):
    from retrieval.graph import find_callees

    _defs, sites = find_callees(conn, operator_scope, "convert_currency")
    assert [(s.callee, s.resolved_to) for s in sites] == [("round_cents", "shop/money.py:4")]


INLINE_PHP = """<?php
class Inline
{
    public static function dump($value)
    {
        if (is_array($value)) {
            return self::dumpArray($value);
        }
        return (string) $value;
    }

    public function quote($value)
    {
        return "'" . $value . "'";
    }

    private static function dumpArray(array $value)
    {
        return implode(', ', array_map(fn ($v) => self::dump($v), $value));
    }
}
"""

DUMPER_PHP = """<?php
class Dumper
{
    public function dump($input, int $depth = 0)
    {
        if ($depth > 0) {
            return $this->dump($input, $depth - 1);
        }
        return Inline::dump($input);
    }
}
"""


CONSOLE_PHP = """<?php
class Console
{
    public function show($formatter, $value)
    {
        return $formatter->dump($value);
    }

    public function inline(Inline $inline, $value)
    {
        return $inline->dump($value);
    }
}
"""

STOPWATCH_PHP = """<?php
class Stopwatch
{
    public function lap($event)
    {
        return $event->dump() . $event->quote();
    }
}
"""


def test_php_callers_know_this_and_leave_out_calls_of_another_same_named_method(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "src/Inline.php": INLINE_PHP,
        "src/Dumper.php": DUMPER_PHP,
        "src/Console.php": CONSOLE_PHP,
        "src/Stopwatch.php": STOPWATCH_PHP,
    }
    with _indexed(database_url, git_repo, "yaml", files) as (conn, scope):
        _defs, sites = find_callers(conn, scope, "dump", path="src/Inline.php")
        # `->dump()` through an object is only a guess: kept in files that name Inline at all
        # (Console), left out where nothing points at it (Stopwatch)
        assert {(s.path, s.line, s.caller, s.certainty) for s in sites} == {
            ("src/Inline.php", 19, "Inline.dumpArray", "certain"),
            ("src/Dumper.php", 9, "Dumper.dump", "certain"),
            ("src/Console.php", 6, "Console.show", "ambiguous"),
            ("src/Console.php", 11, "Console.inline", "ambiguous"),
        }
        # a name no other class defines: a call through any object may reach it, and is kept
        _defs, sites = find_callers(conn, scope, "quote")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("src/Stopwatch.php", "Stopwatch.lap", "ambiguous")
        }
        # `$this->dump()` inside Dumper reaches Dumper.dump, itself
        _defs, sites = find_callers(conn, scope, "dump", path="src/Dumper.php")
        assert {(s.path, s.line, s.certainty) for s in sites} == {("src/Dumper.php", 7, "certain")}


HISTORY_JAVA = """package console;

public class History {
    public void showHistoryLine() {
        render(lines.get(index));
    }

    public void back() {
        index--;
        showHistoryLine();
    }
}
"""
AWT_JAVA = """package console;

public class AwtConsole {
    private void showHistoryLine() {
        text.setText(history.line());
    }

    public void keyPressed(int key) {
        showHistoryLine();
    }
}
"""
TOOLBAR_PY = """from console import show_history_line


class Toolbar:
    def show_history_line(self):
        return None

    def click(self):
        show_history_line()
"""


def test_a_bare_call_reaches_its_own_classs_method_where_the_language_needs_no_receiver(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "console/History.java": HISTORY_JAVA,
        "console/AwtConsole.java": AWT_JAVA,
        "console/toolbar.py": TOOLBAR_PY,
        "console/__init__.py": "def show_history_line():\n    return 1\n",
    }
    with _indexed(database_url, git_repo, "console", files) as (conn, scope):
        # Java: `showHistoryLine()` in AwtConsole is AwtConsole's own method, not History's
        _defs, sites = find_callers(conn, scope, "History.showHistoryLine")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("console/History.java", "console.History.back", "certain")
        }
        # Python needs `self.`: a bare call in a method is the imported function's
        _defs, sites = find_callers(conn, scope, "show_history_line", path="console/__init__.py")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("console/toolbar.py", "Toolbar.click", "certain")
        }


UTILS_RB = """module Rack
  module Utils
    def secure_compare(a, b)
      a == b
    end

    def check(token)
      secure_compare(token, "x")
    end
  end
end
"""
PROTECTION_RB = """module Rack
  module Protection
    class Base
      def secure_compare(a, b)
        a.bytesize == b.bytesize && a == b
      end
    end

    class AuthenticityToken < Base
      def accepts?(token)
        secure_compare(token, real_token)
      end
    end
  end
end
"""
XTHIS_JAVA = """package bsh;

public class XThis {
    public String toString() {
        return "XThis";
    }
}
"""
CONSOLE_JAVA = """package bsh;

public class Console {
    public String line(StringBuilder s) {
        return s.toString();
    }

    public String name(XThis x) {
        return XThis.toString();
    }
}
"""


def test_a_call_reaches_an_inherited_method_and_a_receiver_must_name_the_class(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "lib/rack/utils.rb": UTILS_RB,
        "lib/rack/protection.rb": PROTECTION_RB,
        "bsh/XThis.java": XTHIS_JAVA,
        "bsh/Console.java": CONSOLE_JAVA,
    }
    with _indexed(database_url, git_repo, "rack", files) as (conn, scope):
        # Ruby: a bare call in a subclass reaches the method its base class defines
        _defs, sites = find_callers(conn, scope, "secure_compare", path="lib/rack/utils.rb")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("lib/rack/utils.rb", "Rack::Utils.check", "certain")
        }
        _defs, sites = find_callers(conn, scope, "secure_compare", path="lib/rack/protection.rb")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("lib/rack/protection.rb", "Rack::Protection::AuthenticityToken.accepts?", "certain")
        }
        # Java: `s.toString()` is not XThis's although "XThis" ends with "s"; `XThis.` is
        _defs, sites = find_callers(conn, scope, "toString", path="bsh/XThis.java")
        assert {(s.line, s.certainty) for s in sites if s.certainty == "certain"} == {
            (9, "certain")
        }


TREE_GO = """package chi

func (n *node) addChild(child *node) *node {
	n.children = append(n.children, child)
	return n.addChild(child.next)
}

func walk(r Routes, fn WalkFunc) error {
	return walk(r.Sub, fn)
}
"""
MUX_GO = """package chi

func (mx *Mux) Routes() error {
	var tree *node = mx.tree
	tree.addChild(nil)
	return walk(mx, nil)
}

func (mx *Mux) Walk() {
	mx.walk()
}

func (mx *Mux) Clean(p string) string {
	return clean(p)
}
"""
PATH_UNIX_GO = """package chi

func clean(p string) string {
	return p
}
"""
PATH_WINDOWS_GO = """package chi

func clean(p string) string {
	return strings.ReplaceAll(p, "\\\\", "/")
}
"""
GIN_GO = """package gin

func (n *node) addChild(child *node) {
	n.children = append(n.children, child)
}

func (engine *Engine) addRoute() {
	engine.root.addChild(nil)
}
"""


def test_go_lower_case_names_are_reached_only_from_their_own_package(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "chi/tree.go": TREE_GO,
        "chi/mux.go": MUX_GO,
        "gin/tree.go": GIN_GO,
        "chi/path_unix.go": PATH_UNIX_GO,
        "chi/path_windows.go": PATH_WINDOWS_GO,
    }
    with _indexed(database_url, git_repo, "routers", files) as (conn, scope):
        # gin's `addChild` calls are gin's own: no other package can call chi's
        _defs, sites = find_callers(conn, scope, "node.addChild", path="chi/tree.go")
        assert {(s.path, s.line) for s in sites} == {("chi/tree.go", 5), ("chi/mux.go", 5)}
        # a bare call in the package reaches the function, a call through a value does not
        _defs, sites = find_callers(conn, scope, "chi.walk")
        assert {(s.path, s.line, s.certainty) for s in sites} == {
            ("chi/tree.go", 9, "certain"),
            ("chi/mux.go", 6, "certain"),
        }
        # one function per platform file: a package's call may reach either
        _defs, sites = find_callers(conn, scope, "clean", path="chi/path_unix.go")
        assert {(s.path, s.line, s.certainty) for s in sites} == {("chi/mux.go", 14, "ambiguous")}


CORE_RS = """pub(crate) fn display_width(text: &str) -> usize {
    text.chars().count()
}
"""
TEMPLATE_RS = """pub(crate) struct Template {}

impl Template {
    pub(crate) fn write(&self, help: &StyledStr, raw: &str) -> usize {
        let styled = help.display_width();
        let plain = crate::output::display_width(raw);
        styled + plain
    }
}
"""


def test_rust_method_syntax_never_reaches_a_free_function(settings_env, database_url, git_repo):
    from retrieval.graph import find_callers

    files = {
        "src/output/core.rs": CORE_RS,
        "src/output/template.rs": TEMPLATE_RS,
    }
    with _indexed(database_url, git_repo, "clap", files) as (conn, scope):
        # `help.display_width()` is a method's call; the path `crate::output::` may be the function
        _defs, sites = find_callers(conn, scope, "display_width")
        assert {(s.path, s.line, s.callee) for s in sites} == {
            ("src/output/template.rs", 6, "crate::output.display_width")
        }


PARSER_RS = """pub struct Parser {}

impl Parser {
    pub fn parse_userinfo(&mut self) -> bool {
        true
    }
}
"""
PROCESS_PHP = """<?php
namespace Symfony\\Component\\Process;

class Process
{
    public function stop(float $timeout = 10)
    {
        return $timeout;
    }
}
"""


@pytest.mark.parametrize(
    ("asked", "found", "match"),
    [
        ("Parser::parse_userinfo", "Parser::parse_userinfo", "exact"),
        ("Parser.parse_userinfo", "Parser::parse_userinfo", "exact"),
        (
            "Symfony\\Component\\Process\\Process::stop",
            "Symfony\\Component\\Process\\Process.stop",
            "exact",
        ),
        ("Process::stop", "Symfony\\Component\\Process\\Process.stop", "suffix"),
        ("Process->stop()", "Symfony\\Component\\Process\\Process.stop", "suffix"),
        ("Utils.secure_compare", "Rack::Utils.secure_compare", "suffix"),
        ("Rack::Utils#secure_compare", "Rack::Utils.secure_compare", "exact"),
    ],
)
def test_a_qualified_name_is_found_whatever_separators_its_language_writes(
    settings_env, database_url, git_repo, asked, found, match
):
    from retrieval.symbols import exact_symbols

    files = {
        "src/parser.rs": PARSER_RS,
        "src/Process.php": PROCESS_PHP,
        "lib/rack/utils.rb": UTILS_RB,
    }
    with _indexed(database_url, git_repo, "mixed", files) as (conn, scope):
        assert [(m.symbol, m.match) for m in exact_symbols(conn, scope, asked)] == [(found, match)]


SHAPES_CPP = """namespace geo {

class Shape {
public:
    void log() {}
};

class Circle : public Shape {
public:
    void draw() {
        log();
    }
};

class Printer {
public:
    void log() {}
    void flush() {
        log();
    }
};

}
"""


def test_cpp_a_bare_call_in_a_subclass_reaches_the_inherited_method(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "src/shapes.hpp": SHAPES_CPP,
    }
    with _indexed(database_url, git_repo, "geo", files) as (conn, scope):
        _defs, sites = find_callers(conn, scope, "Shape::log")
        assert {(s.line, s.caller, s.certainty) for s in sites} == {
            (11, "geo::Circle::draw", "certain")
        }
        _defs, sites = find_callers(conn, scope, "Printer::log")
        assert {(s.line, s.caller, s.certainty) for s in sites} == {
            (19, "geo::Printer::flush", "certain")
        }


WRITER_CS = """namespace Shop.IO
{
    public class Writer
    {
        public virtual void Flush() { }
    }
}
"""
BUFFERED_WRITER_CS = """namespace Shop.IO
{
    public class BufferedWriter : Writer
    {
        public override void Flush()
        {
            base.Flush();
        }

        public int Pending { get { return Count(); } }

        private int Count() => 0;
    }
}
"""


def test_csharp_base_reaches_the_overridden_method_and_a_property_calls_its_class(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {"IO/Writer.cs": WRITER_CS, "IO/BufferedWriter.cs": BUFFERED_WRITER_CS}
    with _indexed(database_url, git_repo, "shop", files) as (conn, scope):
        # `base.Flush()` in an override is the base class's method, not the override itself
        _defs, sites = find_callers(conn, scope, "Writer.Flush")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("IO/BufferedWriter.cs", "Shop.IO.BufferedWriter.Flush", "certain")
        }
        _defs, sites = find_callers(conn, scope, "BufferedWriter.Flush")
        assert sites == []
        # a bare call in a property's getter reaches its class's method
        _defs, sites = find_callers(conn, scope, "BufferedWriter.Count")
        assert {(s.line, s.caller, s.certainty) for s in sites} == {
            (10, "Shop.IO.BufferedWriter.Pending", "certain")
        }


SETTINGS_JAVA = """package shop;

public class Settings {
    public String toString() {
        return "settings " + super.toString();
    }
}
"""

NODES_JS = """class Node {
  remove() {
    return this.parent.detach(this);
  }
  children() {
    return [];
  }
  siblings(parent) {
    return parent.children();
  }
}
"""


def test_super_of_a_class_whose_base_is_not_in_the_repository_reaches_none_of_its_methods(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {"src/shop/Settings.java": SETTINGS_JAVA, "web/nodes.js": NODES_JS}
    with _indexed(database_url, git_repo, "shop", files) as (conn, scope):
        # `super.toString()` is Object's: neither this override nor any other toString
        _defs, sites = find_callers(conn, scope, "toString")
        assert sites == []
        # outside PHP, `parent` is a variable's name, not the base class
        _defs, sites = find_callers(conn, scope, "children")
        assert [(s.path, s.line) for s in sites] == [("web/nodes.js", 9)]


CART_KT = """package shop

open class Cart<T> {
    fun reset() {
        items = empty().items
    }

    companion object {
        fun empty(): Cart<Any> = Cart()
    }
}
"""
CHECKOUT_KT = """package shop

class BigCart : Cart<Int>() {
    fun refill() {
        empty()
    }
}

fun checkout() {
    val cart = Cart.empty()
}
"""
BASKET_KT = """package shop

class Basket {
    fun clear() {
        empty()
    }

    companion object {
        fun empty(): Basket = Basket()
    }
}
"""


def test_kotlin_calls_reach_a_companion_objects_method_through_its_class(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {"shop/Cart.kt": CART_KT, "shop/Checkout.kt": CHECKOUT_KT, "shop/Basket.kt": BASKET_KT}
    with _indexed(database_url, git_repo, "shop", files) as (conn, scope):
        # `empty()` inside Cart and its subclass, and `Cart.empty()`; Basket's own is its own
        _defs, sites = find_callers(conn, scope, "Cart.empty")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("shop/Cart.kt", "shop.Cart.reset", "certain"),
            ("shop/Checkout.kt", "shop.BigCart.refill", "certain"),
            ("shop/Checkout.kt", "shop.checkout", "certain"),
        }


JOB_KT = """package jobs

interface Job {
    fun cancel()
}

suspend fun <T : Job> T.cancelAndJoin() {
    cancel()
}

fun Context.cancel() {
    this[Job]?.cancel()
}

fun stopAll(context: Context) {
    context.cancel()
}
"""


def test_a_bare_call_in_a_kotlin_extension_function_is_not_pinned_to_the_files_function(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    with _indexed(database_url, git_repo, "jobs", {"jobs/Job.kt": JOB_KT}) as (conn, scope):
        # `cancel()` in `fun T.cancelAndJoin()` may be its receiver's `Job.cancel`: not certainly
        # the file's `Context.cancel` extension, and still a possible caller of `Job.cancel`
        _defs, sites = find_callers(conn, scope, "jobs.cancel")
        assert ("jobs.cancelAndJoin", "certain") not in {(s.caller, s.certainty) for s in sites}
        _defs, sites = find_callers(conn, scope, "Job.cancel")
        assert ("jobs.cancelAndJoin", 8) in {(s.caller, s.line) for s in sites}


FORMAT_TS = """export function formatPrice(cents: number): string {
  return (cents / 100).toFixed(2);
}
"""

CART_TSX = """import { formatPrice } from '../lib/format.js';
import * as money from '../lib/format';

export function Total({ cents }: { cents: number }) {
  return <b>{formatPrice(cents)}</b>;
}

export function Tax({ cents }: { cents: number }) {
  return <i>{money.formatPrice(cents / 5)}</i>;
}
"""

LEGACY_JS = """const { formatPrice } = require('./legacy/format');

exports.label = (c) => formatPrice(c);
"""

OTHER_FORMAT_JS = """exports.formatPrice = function (c) {
  return '$' + c;
};
"""

ORDERS_JS = """import { formatPrice } from 'some-package';

export const show = (c) => formatPrice(c);
"""


def test_relative_javascript_imports_resolve_to_their_files(settings_env, database_url, git_repo):
    from retrieval.graph import find_callers

    files = {
        "src/lib/format.ts": FORMAT_TS,
        "src/cart/Cart.tsx": CART_TSX,
        "src/legacy.js": LEGACY_JS,
        "src/legacy/format.js": OTHER_FORMAT_JS,
        "src/orders.js": ORDERS_JS,
    }
    with _indexed(database_url, git_repo, "shopjs", files) as (conn, scope):
        _defs, sites = find_callers(conn, scope, "formatPrice", path="src/lib/format.ts")
        # `./x.js` names the compiled `x.ts`, `import * as money` the module; the CommonJS
        # require reaches the other definition (left out); a package's import stays a guess
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("src/cart/Cart.tsx", "Total", "certain"),
            ("src/cart/Cart.tsx", "Tax", "certain"),
            ("src/orders.js", "show", "ambiguous"),
        }
        _defs, sites = find_callers(conn, scope, "exports.formatPrice")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("src/legacy.js", "exports.label", "certain"),
            ("src/orders.js", "show", "ambiguous"),
        }


PARSE_C = """#include "parse.h"

static int token(const char *s);

int parse(const char *s) {
    return token(s) + 1;
}

static int token(const char *s) {
    return *s == 'x';
}
"""
PARSE_H = """/* Parses s. */
int parse(const char *s);
"""
MAIN_C = """#include "parse.h"
int parse(const char *s);

int main(void) {
    return parse("x");
}
"""


def test_a_c_prototype_is_not_the_definition_a_call_reaches(settings_env, database_url, git_repo):
    from retrieval.graph import find_callers
    from retrieval.symbols import exact_symbols

    files = {"src/parse.c": PARSE_C, "src/parse.h": PARSE_H, "src/main.c": MAIN_C}
    with _indexed(database_url, git_repo, "c", files) as (conn, scope):
        kinds = {(m.path, m.kind) for m in exact_symbols(conn, scope, "parse")}
        assert kinds == {
            ("src/parse.c", "function"),
            ("src/parse.h", "prototype"),
            ("src/main.c", "prototype"),
        }
        # main.c declares parse itself; its call still reaches the definition of parse.c
        _defs, sites = find_callers(conn, scope, "parse", path="src/parse.c")
        assert [(s.path, s.line) for s in sites] == [("src/main.c", 5)]
        # a forward declaration and the definition of a static function: one function's callers
        _defs, sites = find_callers(conn, scope, "token", path="src/parse.c")
        assert [(s.path, s.line, s.certainty) for s in sites] == [("src/parse.c", 6, "certain")]


CART_SWIFT = """final class Cart {
  func add(_ item: Int) {
    recount()
  }

  func recount() {}
}

extension Cart {
  func clear() {
    self.recount()
  }
}

func recount() {}

func checkout(cart: Cart) {
  cart.recount()
  recount()
}
"""
BASKET_SWIFT = """final class Basket {
  func refresh() {
    recount()
  }

  func recount() {}
}
"""


def test_a_bare_swift_call_in_a_method_reaches_its_own_types_method(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {"Shop/Cart.swift": CART_SWIFT, "Shop/Basket.swift": BASKET_SWIFT}
    with _indexed(database_url, git_repo, "shopswift", files) as (conn, scope):
        # `recount()` in Cart's method and `self.recount()` in its extension are Cart's; the
        # bare call in a function is the file's function, Basket's call is Basket's own
        _defs, sites = find_callers(conn, scope, "Cart.recount")
        assert {(s.caller, s.line, s.certainty) for s in sites} == {
            ("Cart.add", 3, "certain"),
            ("Cart.clear", 11, "certain"),
            ("checkout", 18, "ambiguous"),
        }
        _defs, sites = find_callers(conn, scope, "recount", path="Shop/Cart.swift")
        assert ("checkout", 19, "certain") in {(s.caller, s.line, s.certainty) for s in sites}


CART_M = """#import "SHCart.h"

@implementation SHCart
- (void)addItem:(id)item atIndex:(NSUInteger)index
{
  [self recount];
}

- (void)recount {}
@end
"""
STORE_M = """#import "SHCart.h"

@implementation SHStore
- (void)save:(SHCart *)cart
{
  [cart recount];
  [self recount];
}

- (void)recount {}
@end
"""


def test_objective_c_messages_to_self_reach_the_classs_own_method(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {"ios/SHCart.m": CART_M, "ios/SHStore.m": STORE_M}
    with _indexed(database_url, git_repo, "shopobjc", files) as (conn, scope):
        _defs, sites = find_callers(conn, scope, "SHCart.recount")
        assert {(s.path, s.caller, s.line, s.certainty) for s in sites} == {
            ("ios/SHCart.m", "SHCart.addItem", 6, "certain"),
            ("ios/SHStore.m", "SHStore.save", 6, "ambiguous"),
        }


CART_SCALA = """package shop

class Cart {
  def reset(): Unit = {
    val fresh = empty()
    this.audit()
  }
  def audit(): Unit = ()
}

object Cart {
  def empty(): Cart = new Cart
}
"""
CHECKOUT_SCALA = """package shop

trait Audited {
  def record(): Unit = ()
}

class BigCart extends Cart with Audited {
  def refill(): Unit = {
    empty()
    record()
  }
}

object Checkout {
  def run(): Cart = Cart.empty()
}
"""
BASKET_SCALA = """package shop

class Basket {
  def clear(): Unit = empty()
}

object Basket {
  def empty(): Basket = new Basket
}
"""


def test_scala_calls_reach_a_companion_objects_method_and_a_mixed_in_traits(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "shop/Cart.scala": CART_SCALA,
        "shop/Checkout.scala": CHECKOUT_SCALA,
        "shop/Basket.scala": BASKET_SCALA,
    }
    with _indexed(database_url, git_repo, "shopscala", files) as (conn, scope):
        # a bare `empty()` in Cart reaches its companion's, in a subclass the inherited one;
        # Basket's own `empty()` is Basket's
        _defs, sites = find_callers(conn, scope, "Cart.empty")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("shop/Cart.scala", "shop.Cart.reset", "certain"),
            ("shop/Checkout.scala", "shop.BigCart.refill", "certain"),
            ("shop/Checkout.scala", "shop.Checkout.run", "certain"),
        }
        _defs, sites = find_callers(conn, scope, "Audited.record")
        assert {(s.caller, s.certainty) for s in sites} == {("shop.BigCart.refill", "certain")}
        _defs, sites = find_callers(conn, scope, "Cart.audit")
        assert {(s.caller, s.certainty) for s in sites} == {("shop.Cart.reset", "certain")}


UTIL_LUA = """local util = {}

function util.log(msg)
  print(msg)
end

function util.warn(msg)
  util.log("warning: " .. msg)
end

return util
"""
CART_LUA = """local util = require("shop.util")

local M = {}

function M:add(item)
  util.log(item)
  self:check(item)
  check(item)
end

function M:check(item)
end

return M
"""
OTHER_LUA = """local util = {}

function util.log(msg)
end

function util.run()
  util.log(1)
end

return util
"""


def test_lua_module_tables_are_reached_through_require_and_only_in_their_own_file(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {"shop/util.lua": UTIL_LUA, "shop/cart.lua": CART_LUA, "other/util.lua": OTHER_LUA}
    with _indexed(database_url, git_repo, "shoplua", files) as (conn, scope):
        # every module calls its table `util` or `M`: the name reaches the file's own table,
        # other files reach it through `require("shop.util")`
        _defs, sites = find_callers(conn, scope, "util.log", path="shop/util.lua")
        assert {(s.path, s.caller, s.certainty) for s in sites} == {
            ("shop/util.lua", "util.warn", "certain"),
            ("shop/cart.lua", "M.add", "certain"),
        }
        # `self:check()` is the table's own; a bare `check()` is some global function
        _defs, sites = find_callers(conn, scope, "M.check")
        assert {(s.line, s.certainty) for s in sites} == {(7, "certain"), (8, "ambiguous")}


PARSER_JAVA = """package shop.io;

public abstract class Parser {
    protected void die(String why) {
        throw new IllegalStateException(why);
    }
}
"""
BYTE_PARSER_JAVA = """package shop.io;

public abstract class ByteParser extends Parser {
}
"""
ASYNC_PARSER_JAVA = """package shop.io;

public class AsyncParser extends ByteParser {
    public void feed(byte[] data) {
        if (data == null) {
            die("no data");
        }
    }
}
"""
OTHER_JAVA = """package shop.other;

public class Reader {
    protected void die(String why) {
    }
}
"""


def test_a_bare_call_reaches_a_method_inherited_through_packaged_bases(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers

    files = {
        "src/shop/io/Parser.java": PARSER_JAVA,
        "src/shop/io/ByteParser.java": BYTE_PARSER_JAVA,
        "src/shop/io/AsyncParser.java": ASYNC_PARSER_JAVA,
        "src/shop/other/Reader.java": OTHER_JAVA,
    }
    with _indexed(database_url, git_repo, "shop", files) as (conn, scope):
        # two levels up, through `extends ByteParser` written without its package
        _defs, sites = find_callers(conn, scope, "die", path="src/shop/io/Parser.java")
        assert [(s.path, s.line, s.certainty) for s in sites] == [
            ("src/shop/io/AsyncParser.java", 6, "certain")
        ]
        _defs, sites = find_callers(conn, scope, "die", path="src/shop/other/Reader.java")
        assert sites == []


QUEUE_H = """/* Empties the queue p. */
#define RESET(p) do { (p)->n = 0; (p)->head = NULL; } while (0)
#define LIMIT 64
"""
QUEUE_C = """#include "queue.h"

#define CLAMP(x) ((x) > LIMIT ? LIMIT : (x))

int queue_fill(struct queue *q, int n) {
    RESET(q);
    return CLAMP(n);
}
"""


def test_a_c_function_like_macro_is_a_symbol_and_its_calls_are_its_callers(
    settings_env, database_url, git_repo
):
    from retrieval.graph import find_callers
    from retrieval.symbols import exact_symbols

    files = {"src/queue.h": QUEUE_H, "src/queue.c": QUEUE_C}
    with _indexed(database_url, git_repo, "c", files) as (conn, scope):
        [reset] = exact_symbols(conn, scope, "RESET")
        assert (reset.kind, reset.path, reset.start_line, reset.end_line) == (
            "macro",
            "src/queue.h",
            1,  # its comment belongs to it
            2,
        )
        assert exact_symbols(conn, scope, "LIMIT") == []  # a constant, not called
        _defs, sites = find_callers(conn, scope, "CLAMP")
        assert [(s.path, s.line, s.certainty) for s in sites] == [("src/queue.c", 7, "certain")]
        _defs, sites = find_callers(conn, scope, "RESET")
        assert [(s.path, s.line) for s in sites] == [("src/queue.c", 6)]
