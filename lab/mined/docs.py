"""The functions of one source file that carry a doc comment or docstring, found with codeatlas'
own parse (tree-sitter grammars, tag queries and symbol table of `indexing/parsing`), and the
text of that documentation without its comment markers.

What counts as documentation, per language: Python's docstring (the first statement of the
body); the comments directly above the definition that the language's tools read as docs: Go's
and Ruby's comment blocks, Rust's and C#'s `///` (and `/** */`), `/** */` in Java, PHP,
JavaScript, TypeScript and Kotlin.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor

from indexing.parsing.grammars import parser_for, tags_query
from indexing.parsing.languages import detect_language
from indexing.parsing.source import Source
from indexing.parsing.symbols import FoundSymbol, find_body, find_symbols

# the kinds whose docs become questions: constructors and properties describe an object, not a
# behaviour someone searches for (CodeSearchNet's `__init__` rule, generalised)
MINED_KINDS = frozenset({"function", "method"})

# a doc comment's opening per language (a comment node's text starts with one of them)
_DOC_OPENINGS: dict[str, tuple[str, ...]] = {
    "go": ("//", "/*"),
    "ruby": ("#",),
    "rust": ("///", "/**"),
    "csharp": ("///", "/**"),
    "java": ("/**",),
    "php": ("/**",),
    # ProseMirror and others write `///` docs (`/// <reference>` is a directive)
    "javascript": ("/**", "///"),
    "typescript": ("/**", "///"),
    "kotlin": ("/**",),
}
# comments that are tool directives, not documentation (never blanked, never read)
_DIRECTIVE = re.compile(
    r"^(//go:|//\s*\+build|///\s*<reference|//\s*nolint|//\s*lint:|////|//!|/\*!|#!|#\s*-\*-|"
    r"#\s*(frozen_string_literal|encoding|rubocop|typed|coding):)"
)
_CLOSING_ONLY = re.compile(r"^[\s})\];,]*(end)?[\s})\];,]*$")
LANGUAGES = ("python", *_DOC_OPENINGS)


@dataclass(frozen=True)
class DocumentedFunction:
    """A function or method with its documentation, as found in one file."""

    path: str
    language: str
    name: str
    qualified_name: str
    kind: str
    definition_line: int  # 1-based line where the definition itself starts (not its docs)
    doc_lines: tuple[int, ...]  # 1-based lines that hold nothing but the documentation
    doc: str  # the documentation's text without comment markers
    code_lines: int  # lines of code: not blank, not docs, not a lone closing bracket or `end`
    # False for a docstring that is a function's whole body: emptying it would break the syntax
    strippable: bool = True
    # False for a declaration without code (an interface's or trait's method, an abstract one)
    has_body: bool = True


def documented_functions(path: str, data: bytes) -> list[DocumentedFunction]:
    """Every function and method of the file that has documentation it alone holds (a doc
    sharing a line with code is left out: it could not be removed cleanly)."""
    return mine_file(path, data)[1]


def mine_file(path: str, data: bytes) -> tuple[int, list[DocumentedFunction]]:
    """How many functions and methods the file defines, and those of them with documentation."""
    language = detect_language(path, data)
    if language not in LANGUAGES:
        return 0, []
    source = Source(data)
    root = parser_for(language).parse(source.for_parser).root_node
    matches = QueryCursor(tags_query(language)).matches(root)
    symbols = find_symbols(language, root, matches, source)
    comments = _comments(root) if language != "python" else []
    found: list[DocumentedFunction] = []
    functions = 0
    for symbol in symbols:
        if symbol.kind not in MINED_KINDS or symbol.node.has_error:
            continue
        functions += 1
        if language == "python":
            nodes = _docstring(symbol.node)
        else:
            nodes = _doc_comments(language, symbol, comments, source)
        if not nodes:
            continue
        lines = _own_lines(nodes, source)
        if lines is None:
            continue
        doc = "\n".join(_doc_text(language, source.text(n.start_byte, n.end_byte)) for n in nodes)
        found.append(
            DocumentedFunction(
                path=path,
                language=language,
                name=symbol.name,
                qualified_name=symbol.qualified_name,
                kind=symbol.kind,
                definition_line=source.line_of(symbol.node.start_byte),
                doc_lines=tuple(lines),
                doc=doc,
                code_lines=_code_lines(symbol.node, set(lines), source),
                strippable=language != "python" or _has_more_statements(symbol.node),
                has_body=_has_body(symbol.node),
            )
        )
    return functions, found


def _comments(root: Node) -> list[Node]:
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if "comment" in node.type and node.type != "comment_content":
            found.append(node)
            continue
        stack.extend(node.children)
    return sorted(found, key=lambda n: n.start_byte)


def _doc_comments(
    language: str, symbol: FoundSymbol, comments: list[Node], source: Source
) -> list[Node]:
    """The doc comments among the comments codeatlas attaches above the definition; none when
    a plain comment sits between them and the definition (the docs are then not its own)."""
    openings = _DOC_OPENINGS[language]
    above = [c for c in comments if symbol.start <= c.start_byte < symbol.node.start_byte]
    docs: list[Node] = []
    for comment in above:
        text = source.text(comment.start_byte, comment.end_byte).lstrip()
        if _DIRECTIVE.match(text):
            continue
        if text.startswith(openings) and not (
            language in ("rust", "csharp") and text.startswith("////")
        ):
            docs.append(comment)
        elif docs:
            return []
    return docs


def _docstring(function: Node) -> list[Node]:
    body = find_body(function)
    if body is None or not body.named_children:
        return []
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_children:
        first = first.named_children[0]
    return [first] if first.type in ("string", "concatenated_string") else []


def _has_body(function: Node) -> bool:
    """True when the definition has code: a node with a `body` (a block, an expression body) is
    the definition or lies within three levels of it (`const f = () => ...`, `a.b = function
    () {...}`, `save: function () {...}`). Interface, trait and abstract methods and TypeScript's
    signatures have none."""
    level = [function]
    for _ in range(4):
        if any(node.child_by_field_name("body") is not None for node in level):
            return True
        level = [child for node in level for child in node.named_children]
    return False


def _has_more_statements(function: Node) -> bool:
    body = find_body(function)
    return body is not None and len([c for c in body.named_children if "comment" not in c.type]) > 1


def _own_lines(nodes: list[Node], source: Source) -> list[int] | None:
    """The lines of the nodes, when nothing but blanks shares them; None otherwise."""
    lines: list[int] = []
    for node in nodes:
        first = source.line_of(node.start_byte)
        last = source.end_line_of(node.start_byte, node.end_byte)
        before = source.data[source.line_start(first) : node.start_byte]
        after = source.data[node.end_byte : source.line_end(last)]
        if before.strip() or after.strip():
            return None
        lines.extend(range(first, last + 1))
    return sorted(set(lines))


def _code_lines(node: Node, doc_lines: set[int], source: Source) -> int:
    first = source.line_of(node.start_byte)
    last = source.end_line_of(node.start_byte, node.end_byte)
    count = 0
    for line in range(first, last + 1):
        if line in doc_lines:
            continue
        text = source.data[source.line_start(line) : source.line_end(line)].decode(
            "utf-8", "replace"
        )
        if text.strip() and not _CLOSING_ONLY.match(text):
            count += 1
    return count


def _doc_text(language: str, comment: str) -> str:
    """A comment's or docstring's words without its markers, one line per source line."""
    comment = comment.strip()
    if language == "python":
        body = re.sub(r"^[rRuUbBfF]*('''|\"\"\"|'|\")", "", comment)
        body = re.sub(r"('''|\"\"\"|'|\")$", "", body)
        return inspect.cleandoc(body)
    if comment.startswith("/*"):
        body = comment[3 if comment.startswith("/**") else 2 :].removesuffix("*/")
        lines = [re.sub(r"^\s*\*+ ?", "", line) for line in body.splitlines()]
        return "\n".join(lines)
    if comment.startswith("//"):
        return re.sub(r"^/{2,3} ?", "", comment)
    if comment.startswith("#"):
        if comment.startswith("=begin"):
            return comment
        return re.sub(r"^#+ ?", "", comment)
    return comment
