"""The symbol table of one file: definitions from the tag query, nested and qualified.

Rules:
- A definition nested in a function (closures, local classes) is part of that function, not a
  symbol. Definitions nested in containers (class, interface, trait, enum, struct, module, impl,
  object) are symbols whose parent is that container.
- A symbol's range starts at the comments and attributes directly above it (no blank line between)
  and at decorators, `export`, `template<...>`; it is widened to whole lines where only blanks
  lie outside it.
- Qualified names: namespace/package, then the container path, then the name. Separators:
  PHP `Illuminate\\Support\\Str.camel`, C++ and Rust `ns::Class::method`, Ruby
  `Rack::Utils.escape`, every other language `.` (`com.foo.Bar.baz`, `Flask.make_response`).
  Go methods are qualified by their receiver type (`errors.withStack.Cause`) and their parent is
  that type when it is declared in the same file. The members of a Kotlin companion object are
  qualified by its class (`shop.Cart.empty`; the companion itself is `shop.Cart.Companion`, or
  its own name). JavaScript/TypeScript object-literal members (`fetchUser(id) {}`, `save: () =>
  ...`) are methods qualified by the object's variable or assignment target and the keys above
  them (`api.save`, `module.exports.get`, `config.hooks.init`); they have no parent symbol.
  A Swift extension (`extension Foo.Bar { func baz() }`) and an Objective-C category
  (`@implementation Foo (Cat)`) are `extension` symbols named by the type they extend, so their
  members are that type's (`Foo.Bar.baz`). Objective-C methods are named by their selector's
  first keyword (`doThing` for `- (void)doThing:(int)x with:(int)y`).
  A Scala companion `object Cart` names its members as its class does (`shop.Cart.empty`). Lua's
  `function M:f()` is `M.f`; a top-level table (`local M = {}`) is a `module` symbol when the file
  returns it or it holds functions, and is the parent of the `function M.f()` declared after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from indexing.parsing.grammars import (
    BLOCK_TYPES,
    CONTAINER_KINDS,
    FUNCTION_KINDS,
    LEADING_TYPES,
    NAMESPACE_SEPARATOR,
    NAMESPACE_TYPES,
    SWALLOWING_TYPES,
    WRAPPER_TYPES,
)
from indexing.parsing.source import Source

_CONSTRUCTOR_NAMES = {
    "python": "__init__",
    "javascript": "constructor",
    "typescript": "constructor",
    "tsx": "constructor",
    "php": "__construct",
    "ruby": "initialize",
    "swift": "init",
    "scala": "this",
}
_SIGNATURE_LIMIT = 400


@dataclass
class FoundSymbol:
    """A definition while the file is being parsed: its node, range and place in the tree."""

    node: Node
    name: str
    scope: list[str]  # scope written into the name itself (`Foo::bar` in C++, `A::B` in Ruby)
    kind: str
    start: int
    end: int
    parent: int | None = None  # logical parent (method -> class)
    enclosing: int | None = None  # innermost symbol whose range contains this one
    children: list[int] = field(default_factory=list)
    qualified_name: str = ""
    signature: str = ""


def find_symbols(language: str, root: Node, matches: list, source: Source) -> list[FoundSymbol]:
    """Symbols of a parsed file, in source order, with parents and qualified names."""
    found: dict[tuple[int, int], FoundSymbol] = {}
    for _, captures in matches:
        for capture, nodes in captures.items():
            if not capture.startswith("definition."):
                continue
            names = captures.get("name." + capture, [])
            kind = capture.split(".", 1)[1]
            symbol = _make_symbol(language, nodes[0], names[0] if names else None, kind, source)
            key = (symbol.start, symbol.end)
            if key not in found or found[key].kind == "type":
                found[key] = symbol
    ordered = sorted(found.values(), key=lambda s: (s.start, -s.end))
    if language == "lua":
        ordered = _lua_module_tables(root, ordered, source)
    kept = _nest(language, ordered)
    namespaces = _file_namespaces(language, root, source)
    for symbol in kept:
        file_ns = next((n for start, n in reversed(namespaces) if start <= symbol.start), "")
        _qualify(language, symbol, kept, file_ns, source)
    _attach_methods(language, kept)
    return kept


def _make_symbol(language: str, node: Node, name_node: Node | None, kind: str, source: Source):
    core = node
    while node.parent is not None and node.parent.type in WRAPPER_TYPES and _wraps(node):
        node = node.parent
    start = _leading_start(node, source)
    end = node.end_byte
    if language == "scala":
        # an indented (braceless) body ends after the newline and indentation that follow it
        while end > node.start_byte + 1 and source.data[end - 1 : end].isspace():
            end -= 1
    start, end = source.widen_to_lines(start, end)
    raw = source.text(name_node.start_byte, name_node.end_byte) if name_node else ""
    if name_node is not None and name_node.type == "method_index_expression":
        raw = raw.replace(":", ".")  # Lua's `function M:f()` is `M.f` with a `self` parameter
    name, scope = _split_name(raw, core, kind)
    if name_node is not None and name_node.parent is not None:
        owner = name_node.parent.child_by_field_name("object")
        if name_node.parent.type == "member_expression" and owner is not None:
            text = source.text(owner.start_byte, owner.end_byte).replace(".prototype", "")
            scope = [text] if text != "prototype" else []
    literal = core.parent if core.type in ("pair", "method_definition") else None
    if literal is not None and literal.type == "object":
        # a member of an object literal (`api = { save: async (u) => ... }`) is named by the
        # object's path, as it is called (`api.save()`)
        scope, kind = _object_path(literal, source), "method"
    if core.type == "field" and language == "lua":
        scope = _lua_table_path(core, source)
    symbol = FoundSymbol(core, name, scope, kind, start, end)
    head = core if node.type == "decorated_definition" else node
    symbol.signature = _signature(head, core, source)
    if kind == "class" and language == "kotlin":
        symbol.kind = _kotlin_class_kind(core)
    if kind == "class" and language == "objc" and any(c.type == "(" for c in core.children):
        symbol.kind = "extension"  # a category (`@interface Foo (Cat)`) or `@interface Foo ()`
    return symbol


_OBJECT_WRAPPERS = frozenset({"parenthesized_expression", "satisfies_expression", "as_expression"})
_OBJECT_OWNER = re.compile(r"^[\w$]+(?:\.[\w$]+)*$")


def _object_path(obj: Node, source: Source) -> list[str]:
    """The names an object literal is reached by: its variable or the target it is assigned to
    (`module.exports`, `Foo.prototype` as `Foo`), then the keys of the literals it is nested in
    (`config.hooks` for `const config = { hooks: { ... } }`); empty for an object passed to a
    call or exported anonymously."""
    path: list[str] = []
    node = obj
    while True:
        parent = node.parent
        while parent is not None and parent.type in _OBJECT_WRAPPERS:
            node, parent = parent, parent.parent
        if parent is None:
            return path
        if parent.type == "pair" and _is_field(parent, "value", node):
            key = parent.child_by_field_name("key")
            if key is None or key.type != "property_identifier" or parent.parent is None:
                return path
            path.insert(0, source.text(key.start_byte, key.end_byte))
            node = parent.parent
            continue
        if parent.type == "variable_declarator" and _is_field(parent, "value", node):
            target = parent.child_by_field_name("name")
        elif parent.type == "assignment_expression" and _is_field(parent, "right", node):
            target = parent.child_by_field_name("left")
        else:
            return path
        text = source.text(target.start_byte, target.end_byte) if target is not None else ""
        text = text.replace(".prototype", "")
        return [text, *path] if _OBJECT_OWNER.match(text) else path


def _lua_table_path(field: Node, source: Source) -> list[str]:
    """The table path a Lua table's function field is named by when the table is assigned to one
    (`M.handlers = { save = ... }`: `M.handlers`); a table held by a variable is a module symbol
    of its own and names its fields as their parent."""
    node = field.parent
    while node is not None and node.type != "assignment_statement":
        node = node.parent
    targets = node.named_children[0] if node is not None and node.named_children else None
    target = targets.named_children[0] if targets is not None and targets.named_children else None
    if target is None or target.type != "dot_index_expression":
        return []
    return source.text(target.start_byte, target.end_byte).split(".")


def _is_field(parent: Node, field: str, node: Node) -> bool:
    child = parent.child_by_field_name(field)
    return child is not None and child.id == node.id


def _wraps(node: Node) -> bool:
    parent = node.parent
    return parent is not None and not any(
        c.type == node.type and c.id != node.id for c in parent.named_children
    )


def _leading_start(node: Node, source: Source) -> int:
    start = node.start_byte
    current = node
    while True:
        prev = current.prev_named_sibling
        if prev is None:
            parent = current.parent
            if parent is not None and parent.start_byte == current.start_byte and parent.parent:
                current = parent
                continue
            return start
        if prev.type in SWALLOWING_TYPES:
            prev = _swallowed_comment(prev, source) or prev
        if prev.type not in LEADING_TYPES or _blank_lines_between(prev, start, source) > 0:
            return start
        if source.line_of(prev.end_byte - 1) == source.line_of(start) and prev.type.endswith(
            "comment"
        ):
            return start  # a trailing comment of the previous line's code
        start = prev.start_byte
        current = prev


def _swallowed_comment(node: Node, source: Source) -> Node | None:
    """The comment a grammar nested at the very end of `node` (see SWALLOWING_TYPES), when it
    starts a line of its own."""
    while node.type in SWALLOWING_TYPES and node.named_children:
        last = node.named_children[-1]
        if "comment" in last.type:
            before = last.prev_sibling
            if before is None or source.line_of(before.end_byte - 1) < source.line_of(
                last.start_byte
            ):
                return last
            return None
        node = last
    return None


def _blank_lines_between(prev: Node, start: int, source: Source) -> int:
    """Blank lines between a leading node and what follows; one is forgiven after a `/**` doc."""
    gap = source.data[prev.end_byte : start].count(b"\n")
    gap -= 0 if source.data[prev.end_byte - 1 : prev.end_byte] == b"\n" else 1
    is_doc = source.data[prev.start_byte : prev.start_byte + 3] == b"/**" and prev.start_byte > 0
    return max(gap - 1, 0) if is_doc else max(gap, 0)


def _split_name(raw: str, core: Node, kind: str) -> tuple[str, list[str]]:
    special = _member_name(raw.strip(), core)
    if special:
        return special, []
    if not raw:
        if core.type == "companion_object":
            return "Companion", []
        if core.type == "secondary_constructor":
            return "constructor", []
        return kind, []
    raw = _without_type_arguments(raw.strip()) or raw
    parts = [p for p in re.split(r"::|\.(?=\w)", raw) if p]
    name = parts[-1] if parts else raw
    if "operator" not in name and "`" not in name and name.split():
        # a C/C++ declaration behind a macro the grammar cannot expand (`FMT_CONSTEXPR
        # width_checker`, `JSON_HEDLEY_WARN_UNUSED_RESULT static basic_json meta`) or a
        # function-pointer member (`(*format)`): the name is the declarator's last word
        name = re.sub(r"[()*&]", "", name.split()[-1]) or name
    return name, parts[:-1]


def _member_name(raw: str, core: Node) -> str:
    """C#'s members named by their syntax, as C++ names them: `~Basket` (a destructor, never
    the constructor), `operator+`, `operator true`, `operator int` (a conversion, without the
    type's arguments: `operator List` of `operator List<T>`), `this` (an indexer)."""
    if core.type == "destructor_declaration" and raw:
        return "~" + raw
    if core.type == "operator_declaration" and raw:
        return f"operator {raw}" if raw[:1].isalpha() else f"operator{raw}"
    if core.type == "conversion_operator_declaration" and raw:
        return "operator " + re.sub(r"\s+", "", _strip_type_arguments(raw))
    if core.type == "indexer_declaration":
        return "this"
    return ""


def _strip_type_arguments(text: str) -> str:
    while (shorter := re.sub(r"<[^<>]*>", "", text)) != text:
        text = shorter
    return text


def _without_type_arguments(name: str) -> str:
    """`formatter` of `formatter<TupleT, Char, enable_if_t<...>>` and `formatter::format` of
    `formatter<bool>::format`: a template's or generic's arguments, nested or over several
    lines, are not part of its name (an operator's `<` is)."""
    if "operator" in name:
        return name
    stripped = _strip_type_arguments(name)
    return name if stripped == name else re.sub(r"\s+", "", stripped)


def _kotlin_class_kind(node: Node) -> str:
    types = {c.type for c in node.children}
    if "interface" in types:
        return "interface"
    if "enum_class_body" in types:
        return "enum"
    return "class"


def _nest(language: str, ordered: list[FoundSymbol]) -> list[FoundSymbol]:
    kept: list[FoundSymbol] = []
    stack: list[int] = []  # indexes into kept of open ranges
    for symbol in ordered:
        while stack and kept[stack[-1]].end <= symbol.start:
            stack.pop()
        if stack:
            outer = kept[stack[-1]]
            if symbol.end > outer.end or outer.kind not in CONTAINER_KINDS:
                continue  # inside a function (a closure) or a leaf: part of that symbol
            symbol.enclosing = symbol.parent = stack[-1]
            if symbol.kind == "function":
                symbol.kind = "method"
        if (
            symbol.kind in FUNCTION_KINDS
            and symbol.parent is not None
            and symbol.name in (_CONSTRUCTOR_NAMES.get(language), kept[symbol.parent].name)
        ):
            symbol.kind = "constructor"
        index = len(kept)
        kept.append(symbol)
        if symbol.enclosing is not None:
            kept[symbol.enclosing].children.append(index)
        stack.append(index)
    return kept


def _file_namespaces(language: str, root: Node, source: Source) -> list[tuple[int, str]]:
    """Statement-style namespaces (`namespace X;`, `package x`) with where they start. Scala's
    successive clauses nest: `package org.json4s` then `package native` is `org.json4s.native`."""
    found: list[tuple[int, str]] = []
    for child in root.named_children:
        if (
            child.type not in NAMESPACE_TYPES.get(language, ())
            or child.child_by_field_name("body") is not None
        ):
            continue
        name = _namespace_name(child, source)
        if language == "scala" and found:
            name = f"{found[-1][1]}.{name}"
        found.append((child.start_byte, name))
    return found


def _namespace_name(node: Node, source: Source) -> str:
    name = node.child_by_field_name("name")
    if name is None:
        names = [c for c in node.named_children if "comment" not in c.type]
        name = next((c for c in names if c.type not in BLOCK_TYPES), None)
    if name is None:
        return ""
    return re.sub(r"\s+", "", source.text(name.start_byte, name.end_byte))


def _qualify(
    language: str, symbol: FoundSymbol, kept: list[FoundSymbol], file_ns: str, source: Source
) -> None:
    block_ns = []
    node = symbol.node.parent
    while node is not None:
        if node.type in NAMESPACE_TYPES.get(language, ()) and node.child_by_field_name("body"):
            block_ns.append(_namespace_name(node, source))
        node = node.parent
    ns_sep = NAMESPACE_SEPARATOR.get(language, ".")
    namespace = ns_sep.join([p for p in [file_ns, *reversed(block_ns)] if p])
    path = []
    parent = symbol.parent
    while parent is not None:
        path.append(kept[parent])
        parent = kept[parent].parent
    if language == "go" and symbol.kind == "method":
        receiver = _go_receiver(symbol.node, source)
        names = [receiver] if receiver else []
    else:
        # a Kotlin companion object adds no segment to its members' names: Kotlin calls them
        # `Cart.empty()`, as Java calls a static method `Cart.empty()`
        outer = [p for p in reversed(path) if p.node.type != "companion_object"]
        names = [n for p in outer for n in [*p.scope, p.name]]
    names.extend(symbol.scope)
    symbol.qualified_name = _join(language, namespace, names, symbol)


def _join(language: str, namespace: str, names: list[str], symbol: FoundSymbol) -> str:
    if language in ("cpp", "rust"):
        return "::".join([p for p in [namespace, *names, symbol.name] if p])
    if language == "ruby":
        head = "::".join([p for p in names if p])
        if symbol.kind in CONTAINER_KINDS:
            return "::".join([p for p in [head, symbol.name] if p])
        return f"{head}.{symbol.name}" if head else symbol.name
    ns_sep = NAMESPACE_SEPARATOR.get(language, ".")
    body = ".".join([*names, symbol.name])
    return f"{namespace}{ns_sep}{body}" if namespace else body


def _lua_module_tables(root: Node, ordered: list[FoundSymbol], source: Source) -> list[FoundSymbol]:
    """Lua's top-level tables (`local M = {}`) are symbols only when the file returns them (a
    module) or they hold functions (`local handlers = { save = function() end }`)."""
    last = root.named_children[-1] if root.named_children else None
    returned = set()
    if last is not None and last.type == "return_statement":
        for values in last.named_children:
            returned |= {
                source.text(v.start_byte, v.end_byte)
                for v in values.named_children
                if v.type == "identifier"
            }
    return [
        s
        for s in ordered
        if s.kind != "module"
        or s.name in returned
        or any(o is not s and s.start <= o.start and o.end <= s.end for o in ordered)
    ]


def _go_receiver(node: Node, source: Source) -> str:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ""
    text = source.text(receiver.start_byte, receiver.end_byte)
    match = re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*\)\s*$", text)
    return match.group(1) if match else ""


def _attach_methods(language: str, kept: list[FoundSymbol]) -> None:
    """Go's methods, and Lua's functions of a module table (`function M.f()` after `local M =
    {}`), are declared outside their type's or table's range: their parent is the type or table
    of that name in the file."""
    if language not in ("go", "lua"):
        return
    owners = ("struct", "interface", "type") if language == "go" else ("module",)
    types = {s.name: i for i, s in enumerate(kept) if s.kind in owners}
    for symbol in kept:
        if symbol.kind == "method" and symbol.parent is None:
            parts = symbol.qualified_name.rsplit(".", 2)
            symbol.parent = types.get(parts[-2]) if len(parts) > 1 else None


# what heads an Objective-C `@interface`, `@implementation` or `@protocol`, before its members
_OBJC_HEAD = frozenset(
    {
        "@interface",
        "@implementation",
        "@protocol",
        "identifier",
        "parameterized_arguments",
        "protocol_reference_list",
        "(",
        ")",
        ":",
    }
)
_OBJC_CONTAINERS = frozenset({"class_interface", "class_implementation", "protocol_declaration"})


def _signature(head: Node, core: Node, source: Source) -> str:
    body = find_body(core)
    end = body.start_byte if body is not None else core.end_byte
    if core.type in _OBJC_CONTAINERS:
        # its members follow the head directly, with no body node around them
        member = next((c for c in core.children if c.type not in _OBJC_HEAD), None)
        end = member.start_byte if member is not None else end
    for child in core.children:
        if "comment" in child.type and core.start_byte < child.start_byte < end:
            end = child.start_byte
            break
    text = source.text(head.start_byte, end)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*(\{|:|=>|=|;|\bdo)\s*$", "", text)
    return text[:_SIGNATURE_LIMIT]


def find_body(node: Node) -> Node | None:
    """The block holding a definition's statements or members, if it has one (shallowest first)."""
    level = [node]
    for _ in range(5):
        following = []
        for current in level:
            body = current.child_by_field_name("body")
            if body is not None and body.end_byte > body.start_byte:
                return body
            for child in current.named_children:
                if child.type in BLOCK_TYPES or child.type in ("class_body", "function_body"):
                    return child
                following.append(child)
        level = following
    return None
