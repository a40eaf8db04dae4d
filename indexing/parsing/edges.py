"""References found in one file: calls, imports, extends and implements.

Edges are syntactic and unresolved: `callee_name` is the bare name as written and `qualifier` is
the receiver or module text in front of it (`self`, `os.path`, `$this`, `static`, `Arr`). They are
resolved to definitions at query time. Known imprecision: dynamic calls (`getattr`,
`call_user_func`, `$obj->$name()`, reflection, function values passed around), calls through
aliases and macros that hide calls are not seen or not resolvable; Ruby calls without arguments
or parentheses look like variables and are missed; a call inside a closure belongs to the
closure's enclosing symbol. An Objective-C message (`[obj doThing:1 with:2]`) is a call of its
selector's first keyword (`doThing`) with the receiver as qualifier.
For imports, `callee_name` is the last segment of the imported path and `qualifier` the rest
(`from a.b import c` -> `c` / `a.b`; `use A\\B\\C;` -> `C` / `A\\B`).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from tree_sitter import Node

from indexing.parsing.model import Edge
from indexing.parsing.source import Source
from indexing.parsing.symbols import FoundSymbol

_KINDS = ("call", "import", "extends", "implements")
_SEPARATORS = re.compile(r"(?:\.|::|\\|/|->)")
_QUALIFIER_LIMIT = 120
_PATH = re.compile(r"^[\w$@\\.:]+$")
# tokens of a receiver path inside a macro's token tree
_PATH_TOKENS = frozenset({"identifier", "self", "super", "crate", ".", "::"})


def find_edges(matches: list, source: Source, symbols: list[FoundSymbol]) -> list[Edge]:
    """Edges of a parsed file, in source order, each attributed to its innermost symbol."""
    starts = [s.start for s in symbols]
    seen: set[tuple] = set()
    edges: list[Edge] = []
    for _, captures in matches:
        for kind in _KINDS:
            for name_node in captures.get(f"name.reference.{kind}", []):
                container = captures.get(f"reference.{kind}", [None])[0]
                qualifier_nodes = captures.get(f"qualifier.reference.{kind}", [])
                edge = _edge(kind, name_node, container, qualifier_nodes, source)
                if edge is None:
                    continue
                caller = _innermost(symbols, starts, name_node.start_byte)
                key = (kind, edge[0], edge[1], name_node.start_byte)
                if key in seen:
                    continue
                seen.add(key)
                line = source.line_of(name_node.start_byte)
                edges.append(Edge(kind, edge[0], edge[1], line, caller))
    edges.sort(key=lambda e: (e.line, e.kind, e.callee_name))
    return edges


def _edge(
    kind: str, name: Node, container: Node | None, qualifiers: list[Node], source: Source
) -> tuple[str, str | None] | None:
    text = source.text(name.start_byte, name.end_byte).strip().strip("\"'<>")
    if not text:
        return None
    if kind == "import":
        parts = [p for p in _SEPARATORS.split(text) if p]
        if not parts:
            return None
        callee = parts[-1]
        prefix = text[: len(text) - len(callee)].rstrip(".:\\/->") or None
        given = None
        if qualifiers:
            given = source.text(qualifiers[0].start_byte, qualifiers[0].end_byte)
        elif container is not None and container.type == "import_declaration" and not prefix:
            given = _path_before(name, container, source)
        joiner = "::" if "::" in text else "\\" if "\\" in text else "."
        qualifier = joiner.join(p for p in (given, prefix) if p) or None
        return callee, qualifier
    return text, _receiver(name, container, source, scoped_only=kind != "call")


def _receiver(
    name: Node, container: Node | None, source: Source, *, scoped_only: bool = False
) -> str | None:
    """Text in front of the name inside the callee expression, without the trailing separator."""
    if container is not None and container.type == "token_tree":
        return _token_receiver(name, source)
    if container is not None and container.type == "message_expression":
        return _message_receiver(container, source)
    outer = container if container is not None else name.parent
    if outer is None:
        return None
    node = name
    while node.parent is not None and node.parent.id != outer.id:
        node = node.parent
    begin = outer.start_byte if node.id == name.id else node.start_byte
    if node.id != name.id and node.parent is None:
        return None
    text = source.text(begin, name.start_byte)
    text = re.sub(r"\s+", "", re.sub(r"^\s*new\s+", "", text))
    if scoped_only and not (_PATH.match(text) and _SEPARATORS.search(text[-2:])):
        return None
    text = re.sub(r"(?:\?\.|\.|::|:|->|\?->|&\.|\\)+$", "", text)
    if not text or len(text) > _QUALIFIER_LIMIT:
        return None
    return text


def _path_before(name: Node, container: Node, source: Source) -> str | None:
    """The dotted path written in front of an imported name, or of the selector list holding it:
    Scala's import path is a list of identifiers (`import a.b.c`, `import a.b.{c, d => e}`)."""
    node = name
    while node.parent is not None and node.parent.id != container.id:
        node = node.parent
    tokens: list[str] = []
    before = node.prev_sibling
    while before is not None and before.type in ("identifier", "."):
        tokens.insert(0, source.text(before.start_byte, before.end_byte))
        before = before.prev_sibling
    return "".join(tokens).strip(".") or None


def _token_receiver(name: Node, source: Source) -> str | None:
    """The receiver of a call inside a macro's token tree: the path tokens just before the name
    (`self.` in `ok!(self.react(x))`, `Utils::` in `tri!(Utils::parse(r))`)."""
    tokens: list[str] = []
    node = name.prev_sibling
    while node is not None and node.type in _PATH_TOKENS:
        tokens.insert(0, source.text(node.start_byte, node.end_byte))
        node = node.prev_sibling
    text = re.sub(r"^(?:\.|::)+|(?:\.|::)+$", "", "".join(tokens))
    return text if text and len(text) <= _QUALIFIER_LIMIT else None


def _message_receiver(message: Node, source: Source) -> str | None:
    """The receiver of an Objective-C message (`self` of `[self doThing:x]`, `[Foo shared]` of
    `[[Foo shared] doThing:x]`), its blanks collapsed."""
    receiver = message.child_by_field_name("receiver")
    if receiver is None:
        return None
    text = re.sub(r"\s+", " ", source.text(receiver.start_byte, receiver.end_byte)).strip()
    return text if text and len(text) <= _QUALIFIER_LIMIT else None


def _innermost(symbols: list[FoundSymbol], starts: list[int], offset: int) -> int | None:
    """The deepest symbol whose range holds `offset` (ranges nest: walk up from the last start)."""
    index: int | None = bisect_right(starts, offset) - 1
    while index is not None and index >= 0:
        symbol = symbols[index]
        if symbol.start <= offset < symbol.end:
            return index
        index = symbol.enclosing
    return None
