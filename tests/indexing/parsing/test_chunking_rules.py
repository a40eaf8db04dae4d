"""Chunking rules on small, hand-written sources: what is a symbol, what each chunk holds."""

from __future__ import annotations

import dataclasses
import hashlib

from indexing.parsing.parser import PARSER_VERSION, parse_file

from .invariants import problems

PYTHON = b'''"""Module doc."""
import os


class Outer(Base):
    """Outer doc."""

    LIMIT = 3

    @property
    def size(self) -> int:
        def helper():
            return os.path.getsize(self.path)
        return helper()

    class Inner:
        value = 1

        def get(self):
            return self.value

    trailing_field = 2


@typing.overload
def parse(x: int) -> int: ...
@typing.overload
def parse(x: str) -> str: ...
def parse(x):
    return x
'''


def _by_name(parsed, qualified_name):
    return next(i for i, s in enumerate(parsed.symbols) if s.qualified_name == qualified_name)


def test_methods_and_nested_classes_are_symbols_but_closures_are_part_of_their_function():
    parsed = parse_file("m.py", PYTHON)
    names = [(s.qualified_name, s.kind) for s in parsed.symbols]
    assert ("Outer", "class") in names
    assert ("Outer.size", "method") in names
    assert ("Outer.Inner", "class") in names
    assert ("Outer.Inner.get", "method") in names
    assert not any("helper" in n for n, _ in names)
    inner = parsed.symbols[_by_name(parsed, "Outer.Inner.get")]
    assert parsed.symbols[inner.parent].qualified_name == "Outer.Inner"


def test_a_class_chunk_holds_header_and_fields_but_not_its_methods():
    parsed = parse_file("m.py", PYTHON)
    outer = _by_name(parsed, "Outer")
    own = [c for c in parsed.chunks if c.symbol == outer]
    assert own[0].content.split("\n", 1)[1].startswith('class Outer(Base):\n    """Outer doc."""')
    joined = "\n".join(c.content for c in own)
    assert "LIMIT = 3" in joined and "trailing_field = 2" in joined
    assert "def size" not in joined and "class Inner" not in joined.split("\n", 1)[1]


def test_a_decorated_method_chunk_starts_at_its_decorator_and_holds_its_closure():
    parsed = parse_file("m.py", PYTHON)
    chunk = next(c for c in parsed.chunks if c.qualified_name == "Outer.size")
    assert chunk.content.startswith("    @property\n    def size(self) -> int:")
    assert "def helper" in chunk.content
    assert (chunk.start_line, chunk.end_line) == (10, 14)
    call = next(e for e in parsed.edges if e.callee_name == "getsize")
    assert call.qualifier == "os.path" and call.line == 13
    assert parsed.symbols[call.caller].qualified_name == "Outer.size"


def test_overload_stubs_and_the_implementation_are_all_symbols():
    parsed = parse_file("m.py", PYTHON)
    overloads = [s for s in parsed.symbols if s.name == "parse"]
    assert len(overloads) == 3
    assert overloads[-1].signature == "def parse(x)"
    assert [s.start_line for s in overloads] == [25, 27, 29]


def test_the_file_chunk_holds_the_module_docstring_and_imports():
    parsed = parse_file("m.py", PYTHON)
    file_chunks = [c for c in parsed.chunks if c.kind == "file"]
    assert file_chunks[0].content == '"""Module doc."""\nimport os'
    assert (file_chunks[0].start_line, file_chunks[0].end_line) == (1, 2)
    assert not problems(PYTHON, parsed)


def test_a_large_function_is_split_into_pieces_under_its_signature():
    body = "".join(f"    if x == {i}:\n        total += compute({i}, x)\n" for i in range(60))
    source = f"def big(x):\n    total = 0\n{body}    return total\n".encode()
    parsed = parse_file("big.py", source, max_tokens=64)
    pieces = [c for c in parsed.chunks if c.symbol_name == "big"]
    assert len(pieces) > 3
    for n, piece in enumerate(pieces):
        header, rest = piece.content.split("\n", 1)
        assert header == "def big(x)"
        assert (piece.piece, piece.piece_count) == (n, len(pieces))
        assert rest.lstrip().startswith(("def big", "if x ==", "return total"))
    assert pieces[0].start_line == 1 and pieces[-1].end_line == 123
    assert not problems(source, parsed)


def test_an_oversized_statement_that_cannot_be_split_stays_whole():
    items = ", ".join(str(i) for i in range(400))
    source = f"def table():\n    return [\n        {items}\n    ]\n".encode()
    parsed = parse_file("t.py", source, max_tokens=32)
    chunks = [c for c in parsed.chunks if c.symbol_name == "table"]
    assert len(chunks) == 1 and chunks[0].end_line == 4


def test_the_token_counter_given_decides_where_to_split():
    source = b"def f():\n" + b"".join(b"    a%d = %d\n" % (i, i) for i in range(40))
    whole = parse_file("f.py", source, max_tokens=1000, count_tokens=len)
    split = parse_file("f.py", source, max_tokens=100, count_tokens=len)
    assert len(whole.chunks) == 1
    assert len(split.chunks) > 3


def test_the_content_hash_covers_the_parser_version_and_content():
    parsed = parse_file("a.go", b"package a\n\nfunc A() int { return 1 }\n")
    chunk = next(c for c in parsed.chunks if c.symbol_name == "A")
    expected = hashlib.sha256(f"{PARSER_VERSION}\0{chunk.content}".encode()).hexdigest()
    # 128 of its bits, as sql/migrations/015 cut the stored hashes
    assert chunk.content_hash == expected[:32]


def test_a_javascript_docblock_separated_by_one_blank_line_is_still_attached():
    source = b"'use strict';\n\n/**\n * Adds.\n */\n\nfunction add(a, b) {\n  return a + b;\n}\n"
    parsed = parse_file("a.js", source)
    chunk = next(c for c in parsed.chunks if c.symbol_name == "add")
    assert chunk.content.startswith("/**") and chunk.start_line == 3


def test_a_license_header_is_not_glued_to_the_first_function():
    source = b"/* Copyright 2024 */\n\nint main(void) { return 0; }\n"
    parsed = parse_file("a.c", source)
    chunk = next(c for c in parsed.chunks if c.symbol_name == "main")
    assert chunk.start_line == 3


def test_the_invariant_checker_notices_a_chunk_that_lies_about_its_source():
    parsed = parse_file("m.py", PYTHON)
    broken = parsed.chunks[1]
    parsed.chunks[1] = dataclasses.replace(broken, start_line=broken.start_line + 1)
    parsed.chunks.append(dataclasses.replace(broken, content="x", symbol=None))
    found = problems(PYTHON, parsed)
    assert any("lines do not match" in p for p in found)
    assert any("content differs" in p for p in found)
    assert any("overlap" in p for p in found)


RUST_MACROS = b"""impl Parser {
    fn parse(&mut self) -> Result<(), Error> {
        let matched = ok!(self.react(arg));
        tri!(parse_escape(self, validate));
        assert_eq!(did_you_mean("tst", values), Some("test"));
        Ok(())
    }
}
"""


def test_calls_inside_rust_macro_arguments_are_edges_with_their_receiver():
    parsed = parse_file("parser.rs", RUST_MACROS)
    calls = {(e.callee_name, e.qualifier, e.line) for e in parsed.edges if e.kind == "call"}
    assert {("react", "self", 3), ("parse_escape", None, 4), ("did_you_mean", None, 5)} <= calls
    assert {("ok", None, 3), ("tri", None, 4)} <= calls  # the macros themselves too
    caller = parsed.symbols[next(e.caller for e in parsed.edges if e.callee_name == "react")]
    assert caller.qualified_name == "Parser::parse"


CPP_SPECIALIZATIONS = b"""namespace fmt {
template <typename TupleT, typename Char>
struct formatter<TupleT, Char,
                 enable_if_t<is_tuple_like<TupleT>::value>> {
  auto parse(int ctx) -> int { return ctx; }
};

template <> struct formatter<char> {
  auto format(char c) -> int { return c; }
};

auto formatter<bool>::format(bool b) -> int { return b; }

bool operator<(int a, int b) { return a < b; }
}
"""


def test_cpp_template_arguments_are_not_part_of_qualified_names():
    parsed = parse_file("fmt/ranges.h", CPP_SPECIALIZATIONS)
    names = {s.qualified_name for s in parsed.symbols}
    assert {
        "fmt::formatter",
        "fmt::formatter::parse",
        "fmt::formatter::format",
    } <= names
    assert not [n for n in names if "<" in n and "operator" not in n]
    assert any(s.name.startswith("operator") for s in parsed.symbols)


# the macros are defined in another header, as in fmt and nlohmann/json
CPP_MACROS = b"""template <typename ErrorHandler> class width_checker {
 public:
  explicit FMT_CONSTEXPR width_checker(ErrorHandler& eh) : handler_(eh) {}
  ErrorHandler& handler_;
};

class basic_json {
  public:
    JSON_HEDLEY_WARN_UNUSED_RESULT
    static basic_json meta()
    {
        return basic_json();
    }
};
"""


def test_cpp_a_declaration_behind_a_macro_is_named_by_its_declarator():
    parsed = parse_file("fmt/format.h", CPP_MACROS)
    names = {s.qualified_name for s in parsed.symbols}
    assert not [n for n in names if " " in n]
    assert "width_checker::width_checker" in names


CSHARP_DIRECTIVES = b"""namespace Shop.Orders
{
    public class Basket : IEnumerable<Item>
#if !PORTABLE
        , ICloneable
#endif
    {
        public void Add(Item item)
        {
#if NET20
            if (item is LegacyItem)
                AddLegacy(item);
            else
#endif
            {
                Store(item);
            }
        }

        public void Clear() { Reset(); }
    }
}
"""


def test_csharp_conditional_directives_cutting_through_a_declaration_keep_its_members():
    parsed = parse_file("Basket.cs", CSHARP_DIRECTIVES)
    names = {s.qualified_name: s for s in parsed.symbols}
    assert not parsed.has_syntax_errors
    assert {"Shop.Orders.Basket.Add", "Shop.Orders.Basket.Clear"} <= set(names)
    assert (names["Shop.Orders.Basket"].start_line, names["Shop.Orders.Basket"].end_line) == (3, 21)
    calls = {(e.callee_name, parsed.symbols[e.caller].qualified_name) for e in parsed.edges}
    assert {("AddLegacy", "Shop.Orders.Basket.Add"), ("Store", "Shop.Orders.Basket.Add")} <= calls
    assert "#if !PORTABLE" in next(c.content for c in parsed.chunks if c.symbol_name == "Basket")
    assert not problems(CSHARP_DIRECTIVES, parsed)


CSHARP_MEMBERS = b"""namespace Shop;

public sealed class Money<TUnit> : IEquatable<Money<TUnit>>
{
    public decimal Amount { get; }
    public bool IsZero { get { return Check(Amount); } }
    public string Label => Format(Amount);
    public decimal this[int cents] => Scale(cents);

    public Money(decimal amount) { Amount = amount; }
    ~Money() { Release(); }

    public static Money<TUnit> operator +(Money<TUnit> a, Money<TUnit> b) => a.Add(b);
    public static bool operator true(Money<TUnit> m) => !m.IsZero;
    public static explicit operator List<decimal>(Money<TUnit> m) => m.Split();

    public void Pay(Wallet wallet)
    {
        wallet?.Debit(this);
        wallet?.Owner.Notify<Money<TUnit>>(this);
    }
}
"""


def test_csharp_properties_indexers_operators_and_destructors_are_named_members():
    parsed = parse_file("Money.cs", CSHARP_MEMBERS)
    kinds = {s.qualified_name: s.kind for s in parsed.symbols}
    assert kinds == {
        "Shop.Money": "class",
        "Shop.Money.IsZero": "property",
        "Shop.Money.Label": "property",
        "Shop.Money.this": "property",
        "Shop.Money.Money": "constructor",
        "Shop.Money.~Money": "method",
        "Shop.Money.operator+": "method",
        "Shop.Money.operator true": "method",
        "Shop.Money.operator List": "method",
        "Shop.Money.Pay": "method",
    }  # an auto-property (`Amount`) is a field of the class's chunk
    assert "decimal Amount { get; }" in parsed.chunks[1].content
    calls = {(e.callee_name, e.qualifier, parsed.symbols[e.caller].name) for e in parsed.edges}
    assert {
        ("Check", None, "IsZero"),
        ("Format", None, "Label"),
        ("Scale", None, "this"),
        ("Release", None, "~Money"),
        ("Add", "a", "operator+"),
        ("Split", "m", "operator List"),
    } <= calls
    # null-conditional calls
    assert {("Debit", "wallet", "Pay"), ("Notify", "wallet?.Owner", "Pay")} <= calls
    assert not problems(CSHARP_MEMBERS, parsed)


KOTLIN = b"""package shop.cart

import shop.money.Price

/**
 * A cart of items.
 */
@Serializable
class Cart<T : Item>(private val items: MutableList<T>) {
    fun total(): Price = items.sumOf { it.price } plus Price.ZERO

    companion object Factory {
        fun empty(): Cart<Item> = Cart(mutableListOf())
    }
}

internal typealias Items<T> = List<T>

object Registry {
    fun lookup(id: String) = Cart.empty()
}
"""


def test_a_kotlin_kdoc_after_the_imports_is_part_of_the_first_declaration():
    # tree-sitter-kotlin nests the comments that follow the last import (or the package line)
    # inside the import list: they are still the declaration's leading comments
    parsed = parse_file("Cart.kt", KOTLIN)
    cart = parsed.symbols[_by_name(parsed, "shop.cart.Cart")]
    assert cart.start_line == 5
    chunk = next(c for c in parsed.chunks if c.symbol_name == "Cart")
    assert chunk.content.startswith("/**\n * A cart of items.")
    head = next(c for c in parsed.chunks if c.kind == "file")
    assert "A cart" not in head.content
    no_imports = parse_file("Cart.kt", b"package shop\n\n/** Doc. */\nfun main() = Unit\n")
    assert no_imports.symbols[0].start_line == 3
    assert not problems(KOTLIN, parsed)


def test_kotlin_companion_members_are_named_by_their_class_as_kotlin_calls_them():
    # `Cart.empty()`, like a Java static method `shop.cart.Cart.empty`; a named companion
    # (`companion object Factory`) is named by its name
    parsed = parse_file("Cart.kt", KOTLIN)
    names = {s.qualified_name: s.kind for s in parsed.symbols}
    assert names["shop.cart.Cart.Factory"] == "class"
    empty = parsed.symbols[_by_name(parsed, "shop.cart.Cart.empty")]
    assert empty.kind == "method"
    assert parsed.symbols[empty.parent].qualified_name == "shop.cart.Cart.Factory"
    unnamed = parse_file("A.kt", b"class A {\n  companion object {\n    fun of() = A()\n  }\n}\n")
    assert [s.qualified_name for s in unnamed.symbols] == ["A", "A.Companion", "A.of"]


def test_a_kotlin_typealias_is_a_type_symbol_named_without_its_type_parameters():
    parsed = parse_file("Cart.kt", KOTLIN)
    items = parsed.symbols[_by_name(parsed, "shop.cart.Items")]
    assert (items.kind, items.start_line, items.end_line) == ("type", 17, 17)
    assert items.signature == "internal typealias Items<T> = List<T>"


def test_a_kotlin_infix_call_is_a_call_with_its_left_operand_as_receiver():
    parsed = parse_file("Cart.kt", KOTLIN)
    calls = {(e.callee_name, e.qualifier, e.line) for e in parsed.edges if e.kind == "call"}
    assert ("plus", "items.sumOf{it.price}", 10) in calls
    assert {("sumOf", "items", 10), ("empty", "Cart", 20)} <= calls
    # the operands themselves are not calls
    assert not {n for n, _, line in calls if line == 10} & {"items", "Price", "ZERO", "it"}


def test_kotlin_generic_and_delegated_supertypes_are_extends_and_implements_edges():
    source = b"class Lines : Base<String>(), Sink<Int>, io.Closeable by closer, p.Named<T>\n"
    parsed = parse_file("Lines.kt", source)
    heritage = {(e.kind, e.callee_name, e.qualifier) for e in parsed.edges if e.kind != "call"}
    assert heritage == {
        ("extends", "Base", None),
        ("implements", "Sink", None),
        ("implements", "Closeable", "io"),
        ("implements", "Named", "p"),
    }


C_MACRO_WITH_COMMENT = b"""#define RESET(p) do {   \\
    (p)->n = 0; /* empty */ \\
    (p)->head = NULL;       \\
} while (0)

int queue_len(const struct queue *q) {
    return q->n;
}
"""


def test_c_a_comment_inside_a_multiline_macro_does_not_swallow_the_next_function():
    parsed = parse_file("queue.c", C_MACRO_WITH_COMMENT)
    assert not parsed.has_syntax_errors
    chunk = next(c for c in parsed.chunks if c.symbol_name == "queue_len")
    assert chunk.content.startswith("int queue_len(") and chunk.start_line == 6
    # the function-like macro is a symbol of its own, its text as written
    [reset] = [c for c in parsed.chunks if c.symbol_name == "RESET"]
    assert "/* empty */" in reset.content and (reset.start_line, reset.end_line) == (1, 4)
    assert not problems(C_MACRO_WITH_COMMENT, parsed)


C_ATTRIBUTE_MACROS = b"""API int (*plugin_open)(const char *name, int (*cb)(void *)) API_ATTR;
API int (*plugin_close)(int fd) API_ATTR;
str str_fmt(const char *fmt, ...) PRINTF_LIKE(1, 2);
static LOG_LIKE(2, 3) void log_to(int level, const char *fmt, ...) {
    emit(level, fmt);
}

static int plugin_init(void) {
    int n = (int) MAX_PLUGINS;
    return n;
}
"""


def test_c_attribute_macros_around_declarations_keep_their_names_and_what_follows():
    parsed = parse_file("plugin.h", C_ATTRIBUTE_MACROS)
    kinds = {s.name: s.kind for s in parsed.symbols}
    assert (kinds["str_fmt"], kinds["log_to"], kinds["plugin_init"]) == (
        "prototype",
        "function",
        "function",
    )
    log_to = next(s for s in parsed.symbols if s.name == "log_to")
    assert log_to.signature.startswith("static LOG_LIKE(2, 3) void log_to(")
    assert ("emit", None) in [(e.callee_name, e.qualifier) for e in parsed.edges]
    assert not problems(C_ATTRIBUTE_MACROS, parsed)


C_CONDITIONALS = b"""#ifdef __cplusplus
extern "C" {
#endif

#ifdef USE_FAST
static int pick(int a) { return a; }
#else
static int pick(int a) { return -a; }
#endif

static double
scale
#ifdef OLD_STYLE
  (x) double x;
#else
  (double x)
#endif
{
  return pick((int) x) * 2.0;
}

int after_scale(void) { return 1; }

#ifdef __cplusplus
}
#endif
"""


def test_c_conditionals_cutting_through_a_function_leave_it_and_what_follows_a_symbol():
    parsed = parse_file("scale.c", C_CONDITIONALS)
    functions = [s.name for s in parsed.symbols if s.kind == "function"]
    # a conditional around whole definitions keeps both branches; one cutting through a
    # function's head is read with its first branch; a C compiler never sees __cplusplus code
    assert functions == ["pick", "pick", "scale", "after_scale"]
    scale = next(s for s in parsed.symbols if s.name == "scale")
    assert (scale.start_line, scale.end_line) == (11, 20)
    assert ("pick", None) in [
        (e.callee_name, e.qualifier) for e in parsed.edges if e.caller == functions.index("scale")
    ]
    assert not problems(C_CONDITIONALS, parsed)


STORE_JS = b"""import { request } from './http';

/** Talks to the server. */
export const client = {
  load(id) {
    return request('GET', id);
  },
  save: async (item) => {
    return request('PUT', item);
  },
  hooks: {
    before: function () { return audit(); },
  },
};

module.exports = { ping: () => request('HEAD') };

export const Row = memo(function Row(props) {
  return format(props);
});

export const Field = memo(
  forwardRef((props, ref) => {
    return render(props, ref);
  }),
);

export default () => {
  return start();
};

export class Panel extends Base {
  #count = 0;
  onClick = (event) => {
    this.toggle(event);
  };
  #reset = () => { this.#count = 0; };
  toggle(event) {}
}
"""


def test_javascript_object_literal_members_are_methods_named_by_their_object():
    for path in ("store.js", "store.ts"):
        parsed = parse_file(path, STORE_JS)
        kinds = {s.qualified_name: s.kind for s in parsed.symbols}
        assert kinds["client.load"] == kinds["client.save"] == "method", path
        assert kinds["client.hooks.before"] == "method", path
        assert kinds["module.exports.ping"] == "method", path
        call = next(e for e in parsed.edges if e.line == 9 and e.callee_name == "request")
        assert parsed.symbols[call.caller].qualified_name == "client.save", path
        assert not problems(STORE_JS, parsed)


def test_javascript_functions_wrapped_by_a_call_and_anonymous_default_exports_are_symbols():
    for path in ("view.jsx", "view.tsx"):
        parsed = parse_file(path, STORE_JS)
        by_name = {s.qualified_name: s for s in parsed.symbols}
        assert by_name["Row"].kind == by_name["Field"].kind == "function", path
        assert (by_name["Field"].start_line, by_name["Field"].end_line) == (22, 26), path
        assert by_name["default"].kind == "function", path
        callers = {e.callee_name: e.caller for e in parsed.edges if e.kind == "call"}
        assert parsed.symbols[callers["render"]].qualified_name == "Field", path
        assert parsed.symbols[callers["start"]].qualified_name == "default", path


def test_javascript_class_fields_holding_functions_are_methods_of_their_class():
    for path in ("panel.js", "panel.ts"):
        parsed = parse_file(path, STORE_JS)
        members = {(s.qualified_name, s.kind) for s in parsed.symbols}
        assert {("Panel.onClick", "method"), ("Panel.#reset", "method")} <= members, path
        assert not any(n == "Panel.#count" for n, _ in members), path
        call = next(e for e in parsed.edges if e.callee_name == "toggle")
        assert (call.qualifier, parsed.symbols[call.caller].qualified_name) == (
            "this",
            "Panel.onClick",
        ), path


def test_commonjs_requires_are_imports_of_the_names_they_bind():
    source = b"const { parse, format: fmt } = require('./text');\nconst io = require('../io');\n"
    for path in ("a.js", "a.ts"):
        parsed = parse_file(path, source)
        imports = {(e.callee_name, e.qualifier) for e in parsed.edges if e.kind == "import"}
        assert {("parse", "./text"), ("format", "./text"), ("io", "../io")} <= imports, path


def test_a_component_called_through_a_bracket_on_its_own_line_is_split_and_jsx_between_children():
    rows = "".join(f"      <Cell key={{{i}}} value={{props.v{i}}} />\n" for i in range(40))
    checks = "".join(f"    if (props.a{i}) {{\n      log({i});\n    }}\n" for i in range(30))
    source = (
        "export const Table = forwardRef(\n"
        "  function Table(props, ref) {\n"
        f"{checks}"
        "    return (\n"
        "      <Grid ref={ref}>\n"
        f"{rows}"
        "      </Grid>\n"
        "    );\n"
        "  },\n"
        ");\n"
    ).encode()
    parsed = parse_file("table.jsx", source, max_tokens=128)
    pieces = [c for c in parsed.chunks if c.symbol_name == "Table"]
    assert len(pieces) > 3
    lines = source.decode().split("\n")
    for piece in pieces[1:]:
        first = lines[piece.start_line - 1].strip()
        assert first.startswith(("if (", "<Cell", "return (")), first
    assert not problems(source, parsed)


SWIFT = b"""import Foundation
import struct Shop.Price

/// A cart of items.
@objc(SHCart)
public final class Cart: NSObject, Pricing {
  var items: [Int] = []

  /// The sum of the items.
  var total: Int {
    return items.reduce(0, +)
  }

  init(items: [Int]) {
    self.items = items
    super.init()
  }

  @available(iOS 13, *)
  func add(_ item: Int, at index: Int) {
    self.items.insert(item, at: index)
    recount()
    let first = items[0]
    Store.shared.save(cart: self, first: first)
  }
}

protocol Pricing: AnyObject {
  func recount()
}

extension Shop.Cart {
  func recount() {
    notify()
  }
}

struct Line: Equatable {
  let id: Int
}

enum Kind: String {
  case book
  func label() -> String { rawValue }
}

func notify() {
  DispatchQueue.main.async { log("changed") }
}
"""


def test_swift_types_members_and_extensions_are_symbols_named_as_swift_calls_them():
    parsed = parse_file("Cart.swift", SWIFT)
    assert not parsed.has_syntax_errors
    kinds = {s.qualified_name: s.kind for s in parsed.symbols}
    assert kinds == {
        "Cart": "class",
        "Cart.total": "property",
        "Cart.init": "constructor",
        "Cart.add": "method",
        "Pricing": "interface",
        "Pricing.recount": "method",
        "Shop.Cart": "extension",
        "Shop.Cart.recount": "method",
        "Line": "struct",
        "Kind": "enum",
        "Kind.label": "method",
        "notify": "function",
    }
    recount = parsed.symbols[_by_name(parsed, "Shop.Cart.recount")]
    assert parsed.symbols[recount.parent].qualified_name == "Shop.Cart"
    assert not problems(SWIFT, parsed)


def test_swift_doc_comments_and_attributes_belong_to_the_symbol():
    parsed = parse_file("Cart.swift", SWIFT)
    cart = next(c for c in parsed.chunks if c.qualified_name == "Cart")
    assert cart.content.startswith("/// A cart of items.\n@objc(SHCart)\npublic final class Cart")
    assert "var items" in cart.content and "func add" not in cart.content
    add = parsed.symbols[_by_name(parsed, "Cart.add")]
    assert (add.start_line, add.end_line) == (19, 25)
    assert add.signature == "@available(iOS 13, *) func add(_ item: Int, at index: Int)"
    total = parsed.symbols[_by_name(parsed, "Cart.total")]
    assert (total.start_line, total.end_line) == (9, 12)


def test_swift_calls_keep_their_receiver_and_subscripts_are_not_calls():
    parsed = parse_file("Cart.swift", SWIFT)
    calls = {
        (e.callee_name, e.qualifier, parsed.symbols[e.caller].qualified_name)
        for e in parsed.edges
        if e.kind == "call" and e.caller is not None
    }
    assert {
        ("reduce", "items", "Cart.total"),
        ("init", "super", "Cart.init"),
        ("insert", "self.items", "Cart.add"),
        ("recount", None, "Cart.add"),
        ("save", "Store.shared", "Cart.add"),
        ("notify", None, "Shop.Cart.recount"),
        ("async", "DispatchQueue.main", "notify"),
        ("log", None, "notify"),
    } <= calls
    assert not any(name == "items" for name, _, _ in calls)  # `items[0]`
    others = {(e.kind, e.callee_name, e.qualifier) for e in parsed.edges if e.kind != "call"}
    assert others == {
        ("import", "Foundation", None),
        ("import", "Price", "Shop"),
        ("extends", "NSObject", None),
        ("extends", "Pricing", None),
        ("extends", "AnyObject", None),
        ("extends", "Equatable", None),
        ("extends", "String", None),
    }


def test_a_long_swift_function_is_split_between_statements_and_switch_cases():
    cases = "".join(f"  case .k{i}:\n    let v{i} = f(x, {i})\n    log(v{i})\n" for i in range(30))
    checks = "".join(f"  if flag{i} {{\n    update({i})\n  }}\n" for i in range(20))
    switch = f"  switch x {{\n{cases}  default:\n    break\n  }}\n"
    source = f"func handle(_ x: Kind) {{\n{checks}{switch}}}\n"
    parsed = parse_file("Handle.swift", source.encode(), max_tokens=128)
    pieces = [c for c in parsed.chunks if c.symbol_name == "handle"]
    assert len(pieces) > 4
    lines = source.split("\n")
    for piece in pieces[1:]:
        first = lines[piece.start_line - 1].strip()
        assert first.startswith(("if flag", "case .k", "switch x", "default:")), first
    assert not problems(source.encode(), parsed)


SWIFT_6 = b"""final class Box {
  nonisolated(unsafe) static var shared = Box()

  func emit<P>(_ value: sending P) {
    switch consume value {
    #if os(iOS)
    case let p: show(p)
    #endif
    }
  }

  func keep() {}
}
"""


def test_swift_6_words_and_conditionals_the_grammar_cannot_read_do_not_swallow_the_class():
    parsed = parse_file("Box.swift", SWIFT_6)
    assert not parsed.has_syntax_errors
    names = [s.qualified_name for s in parsed.symbols]
    assert names == ["Box", "Box.emit", "Box.keep"]
    assert "nonisolated(unsafe) static var shared" in parsed.chunks[0].content
    assert not problems(SWIFT_6, parsed)


OBJC = b"""#import <UIKit/UIKit.h>
#import "SHCart.h"
@import Foundation;

typedef NS_ENUM(NSInteger, SHKind) {
  SHKindBook,
  SHKindGame,
};

NS_ASSUME_NONNULL_BEGIN

/**
 * A cart of items.
 */
@interface SHCart : NSObject <SHPricing, NSCopying>
@property (nonatomic, copy) NSArray *items;
- (void)addItem:(id)item atIndex:(NSUInteger)index NS_SWIFT_NAME(add(_:at:));
+ (instancetype)shared;
@end

@protocol SHPricing <NSObject>
- (void)recount;
@end

NS_ASSUME_NONNULL_END

@interface SHCart () <UITableViewDelegate>
@end

@implementation SHCart {
  NSUInteger _count;
}

// Inserts an item.
- (void)addItem:(id)item atIndex:(NSUInteger)index
{
  [self.items insertObject:item atIndex:index];
  [self recount];
  [[SHStore shared] saveCart:self first:item];
  sh_log(@"added");
}

+ (instancetype)shared
{
  return [[self alloc] init];
}

- (void)recount {
  [super recount];
}
@end

@implementation SHCart (Pricing)
- (NSInteger)total { return 0; }
@end

static void sh_log(NSString *text) { NSLog(@"%@", text); }
"""


def test_objective_c_classes_categories_and_methods_are_named_by_class_and_first_keyword():
    parsed = parse_file("SHCart.m", OBJC)
    assert not parsed.has_syntax_errors
    symbols = [(s.qualified_name, s.kind) for s in parsed.symbols]
    assert symbols == [
        ("SHKind", "enum"),
        ("SHCart", "class"),
        ("SHCart.addItem", "method"),
        ("SHCart.shared", "method"),
        ("SHPricing", "interface"),
        ("SHPricing.recount", "method"),
        ("SHCart", "extension"),
        ("SHCart", "class"),
        ("SHCart.addItem", "method"),
        ("SHCart.shared", "method"),
        ("SHCart.recount", "method"),
        ("SHCart", "extension"),
        ("SHCart.total", "method"),
        ("sh_log", "function"),
    ]
    cart = parsed.symbols[1]
    assert cart.start_line == 12
    assert cart.signature == "@interface SHCart : NSObject <SHPricing, NSCopying>"
    add = parsed.symbols[8]
    assert (add.start_line, add.end_line) == (34, 41)
    assert add.signature == "- (void)addItem:(id)item atIndex:(NSUInteger)index"
    assert not problems(OBJC, parsed)


def test_objective_c_messages_are_calls_of_their_first_keyword_with_their_receiver():
    parsed = parse_file("SHCart.m", OBJC)
    calls = {
        (e.callee_name, e.qualifier, parsed.symbols[e.caller].qualified_name, e.line)
        for e in parsed.edges
        if e.kind == "call"
    }
    assert {
        ("insertObject", "self.items", "SHCart.addItem", 37),
        ("recount", "self", "SHCart.addItem", 38),
        ("saveCart", "[SHStore shared]", "SHCart.addItem", 39),
        ("shared", "SHStore", "SHCart.addItem", 39),
        ("sh_log", None, "SHCart.addItem", 40),
        ("alloc", "self", "SHCart.shared", 45),
        ("init", "[self alloc]", "SHCart.shared", 45),
        ("recount", "super", "SHCart.recount", 49),
    } <= calls
    assert not any(name in ("atIndex", "first") for name, _, _, _ in calls)
    others = {(e.kind, e.callee_name, e.qualifier) for e in parsed.edges if e.kind != "call"}
    assert others == {
        ("import", "h", "UIKit/UIKit"),
        ("import", "h", "SHCart"),
        ("import", "Foundation", None),
        ("extends", "NSObject", None),
        ("implements", "SHPricing", None),
        ("implements", "NSCopying", None),
        ("implements", "UITableViewDelegate", None),
    }


def test_objective_c_macro_lines_attribute_macros_and_cpp_aliases_are_read_around():
    # tree-sitter-objc reads each of these as an error (a retry parses them blanked)
    header = (
        b"NS_ASSUME_NONNULL_BEGIN\n\n@interface SHBox : NSObject\n"
        b"- (instancetype)init NS_UNAVAILABLE;\n- (void)open API_AVAILABLE(ios(13.0));\n"
        b"- (void)close;\n@end\n\nNS_ASSUME_NONNULL_END\n"
    )
    parsed = parse_file("SHBox.h", header)
    assert parsed.language == "objc" and not parsed.has_syntax_errors
    assert [s.qualified_name for s in parsed.symbols] == [
        "SHBox",
        "SHBox.init",
        "SHBox.open",
        "SHBox.close",
    ]
    assert parsed.symbols[2].signature == "- (void)open API_AVAILABLE(ios(13.0))"
    assert not problems(header, parsed)
    mm = (
        b'#import "SHBox.h"\n\nnamespace react = facebook::react;\n\n'
        b"@implementation SHBox\n- (void)open\n{\n  [self close];\n}\n@end\n"
    )
    parsed = parse_file("SHBox.mm", mm)
    assert not parsed.has_syntax_errors
    assert [s.qualified_name for s in parsed.symbols] == ["SHBox", "SHBox.open"]
    assert not problems(mm, parsed)


SCALA = b"""package shop
package cart

import scala.collection.mutable
import shop.money.{Price, Currency => Cur}
import shop.util._

/** A cart of items.
  *
  * Holds them in order.
  */
class Cart[T](val items: List[T]) extends Base[T] with Logging with p.Ordered[Cart[T]] {
  val discount = (p: Price) => p.half

  /** The total, rounded. */
  def total(): Price = {
    def round(x: Int) = x / 100
    val sum = items.map(_.price).sum
    this.log(sum)
    sum max Price.zero
  }

  def this(item: T) = this(List(item))
}

/** Builds carts. */
object Cart {
  def empty[T]: Cart[T] = new Cart(Nil)
}

case class Item(name: String, price: Int)

trait Logging {
  def log(x: Any): Unit
}

enum Size:
  case Small, Large

  def label: String =
    describe(this)

  def short: String = label.take(1)
"""


def test_scala_classes_objects_traits_and_enums_hold_their_defs_and_a_companion_shares_the_name():
    # `object Cart`'s members are `Cart.empty`, as Scala calls them (and as Kotlin's companion
    # members are named); successive package clauses nest
    parsed = parse_file("Cart.scala", SCALA)
    names = [(s.qualified_name, s.kind) for s in parsed.symbols]
    assert names == [
        ("shop.cart.Cart", "class"),
        ("shop.cart.Cart.discount", "method"),
        ("shop.cart.Cart.total", "method"),
        ("shop.cart.Cart.this", "constructor"),
        ("shop.cart.Cart", "object"),
        ("shop.cart.Cart.empty", "method"),
        ("shop.cart.Item", "class"),
        ("shop.cart.Logging", "trait"),
        ("shop.cart.Logging.log", "method"),
        ("shop.cart.Size", "enum"),
        ("shop.cart.Size.label", "method"),
        ("shop.cart.Size.short", "method"),
    ]
    label = parsed.symbols[_by_name(parsed, "shop.cart.Size.label")]
    # a braceless body ends at its last line, not at the indentation of the next definition
    assert (label.start_line, label.end_line) == (40, 41)
    assert not problems(SCALA, parsed)


def test_a_scaladoc_is_part_of_its_definition():
    parsed = parse_file("Cart.scala", SCALA)
    cart = next(c for c in parsed.chunks if c.qualified_name == "shop.cart.Cart")
    assert cart.start_line == 8
    assert cart.piece == 0 and "\n/** A cart of items.\n  *\n" in f"\n{cart.content}"
    total = parsed.symbols[_by_name(parsed, "shop.cart.Cart.total")]
    assert total.start_line == 15
    head = next(c for c in parsed.chunks if c.kind == "file")
    assert "A cart" not in head.content and "import shop.util._" in head.content


def test_scala_calls_imports_and_parents_are_edges():
    parsed = parse_file("Cart.scala", SCALA)
    calls = {(e.callee_name, e.qualifier, e.line) for e in parsed.edges if e.kind == "call"}
    assert {
        ("map", "items", 18),
        ("log", "this", 19),
        ("max", "sum", 20),  # infix
        ("zero", "Price", 20),  # a method called without parentheses
        ("Cart", None, 28),  # `new Cart(Nil)`
        ("describe", None, 41),
        ("take", "label", 43),
    } <= calls
    assert not {n for n, _, _ in calls} & {"this", "round", "x"}
    others = {(e.kind, e.callee_name, e.qualifier) for e in parsed.edges if e.kind != "call"}
    assert others == {
        ("import", "mutable", "scala.collection"),
        ("import", "Price", "shop.money"),
        ("import", "Currency", "shop.money"),
        ("import", "util", "shop"),
        ("extends", "Base", None),
        ("extends", "Logging", None),
        ("extends", "Ordered", "p"),
    }
    round_call = next(e for e in parsed.edges if e.callee_name == "log")
    assert parsed.symbols[round_call.caller].qualified_name == "shop.cart.Cart.total"


def test_scala_unicode_arrows_parse_as_their_ascii_spelling():
    source = "object A {\n  def f(x: Int) = x match {\n    case 1 \u21d2 one()\n  }\n}\n".encode()
    parsed = parse_file("A.scala", source)
    assert not parsed.has_syntax_errors
    assert [s.qualified_name for s in parsed.symbols] == ["A", "A.f"]
    assert ("one", 3) in {(e.callee_name, e.line) for e in parsed.edges}
    assert not problems(source, parsed)


LUA = b"""--- Shopping carts.
-- @module cart
local util = require("shop.util")
local json = require "json"

local cart = {}

--- Adds an item.
-- @param item the item to add
function cart.add(self, item)
  table.insert(self.items, item)
  util.log("added")
end

function cart:remove(item)
  self:check(item)
  self.items[item] = nil
end

local function helper(x)
  return x * 2
end

cart.total = function(self)
  return helper(#self.items)
end

local handlers = {
  save = function(c) return json.encode(c) end,
}

local cache = {}
register { hook = function() end }

return cart
"""


def test_lua_module_tables_hold_the_functions_named_by_them():
    # `function cart:remove()` is `cart.remove`; a top-level table is a symbol when the file
    # returns it or it holds functions, and a table passed to a call holds none
    parsed = parse_file("cart.lua", LUA)
    names = [(s.qualified_name, s.kind) for s in parsed.symbols]
    assert names == [
        ("cart", "module"),
        ("cart.add", "method"),
        ("cart.remove", "method"),
        ("helper", "function"),
        ("cart.total", "method"),
        ("handlers", "module"),
        ("handlers.save", "method"),
    ]
    remove = parsed.symbols[_by_name(parsed, "cart.remove")]
    assert parsed.symbols[remove.parent].qualified_name == "cart"
    add = next(c for c in parsed.chunks if c.qualified_name == "cart.add")
    assert add.start_line == 8 and add.content.startswith("--- Adds an item.\n")
    assert not problems(LUA, parsed)


def test_lua_calls_have_their_receiver_and_requires_are_imports():
    parsed = parse_file("cart.lua", LUA)
    calls = {(e.callee_name, e.qualifier, e.line) for e in parsed.edges if e.kind == "call"}
    assert {
        ("insert", "table", 11),
        ("log", "util", 12),
        ("check", "self", 16),
        ("helper", None, 25),
        ("encode", "json", 29),
    } <= calls
    check = next(e for e in parsed.edges if e.callee_name == "check")
    assert parsed.symbols[check.caller].qualified_name == "cart.remove"
    imports = {(e.callee_name, e.qualifier) for e in parsed.edges if e.kind == "import"}
    assert imports == {("util", "shop"), ("json", None)}


def test_long_scala_and_lua_functions_are_split_between_statements():
    check = "    if (x == {0}) {{\n      total += compute({0}, x)\n    }}\n"
    checks = "".join(check.format(i) for i in range(40))
    cases = "".join(f"    case {i} =>\n      log({i})\n      {i}\n" for i in range(40))
    scala = (
        f"object Big {{\n  def big(x: Int): Int = {{\n    var total = 0\n{checks}"
        "    total\n  }\n\n"
        f"  def pick(x: Int): Int = x match {{\n{cases}  }}\n}}\n"
    ).encode()
    lua_check = "  if x == {0} then\n    total = total + compute({0}, x)\n  end\n"
    lua_checks = "".join(lua_check.format(i) for i in range(40))
    lua = f"function M.big(x)\n  local total = 0\n{lua_checks}  return total\nend\n".encode()
    for path, source, name, starts in (
        ("Big.scala", scala, "big", ("if (x ==", "total", "def big")),
        ("Big.scala", scala, "pick", ("case ", "def pick")),
        ("big.lua", lua, "big", ("if x ==", "return total", "function M.big")),
    ):
        parsed = parse_file(path, source, max_tokens=64)
        pieces = [c for c in parsed.chunks if c.symbol_name == name]
        assert len(pieces) > 3, (path, name)
        for piece in pieces:
            assert piece.content.split("\n", 1)[1].lstrip().startswith(starts), piece.content
        assert not problems(source, parsed)


def test_objective_c_reads_its_c_as_c_does_prototypes_and_macros_included():
    source = b"""#import <Foundation/Foundation.h>

#define CLAMP(x) ((x) < 0 ? 0 : (x))
int cart_total(int n);

@interface Cart : NSObject
- (int)total;
@end
"""
    parsed = parse_file("Cart.h", source)
    kinds = {s.name: s.kind for s in parsed.symbols}
    assert parsed.language == "objc"
    assert (kinds["CLAMP"], kinds["cart_total"], kinds["Cart"]) == ("macro", "prototype", "class")
