"""Parsing real code of every language, fetched from package registries (see corpora.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from tree_sitter_language_pack import get_parser

from corpora.languages import CORPORA, corpus_files, find_file
from indexing.parsing.model import ParsedFile
from indexing.parsing.parser import parse_file

from .invariants import problems


@dataclass(frozen=True)
class Expected:
    """A named symbol of a real file and what its chunk and edges must show."""

    language: str
    path: str  # suffix of the file's path in the corpus
    qualified_name: str
    kind: str
    first_line: str  # the symbol's first line, stripped, starts with this (docblock, decorator...)
    last_line: str  # the symbol's last line, stripped, ends with this
    parent: str | None
    call: tuple[str, str | None]  # (callee, qualifier) of a call made inside the symbol


EXPECTED = [
    Expected("python", "flask/app.py", "Flask.make_response", "method",
             "def make_response(self, rv", "return rv", "Flask",
             ("force_type", "self.response_class")),
    Expected("python", "sansio/scaffold.py", "Scaffold.jinja_loader", "method",
             "@cached_property", "return None", "Scaffold", ("join", "os.path")),
    Expected("php", "Support/Str.php", "Illuminate\\Support\\Str.camel", "method",
             "/**", "}", "Illuminate\\Support\\Str", ("studly", "static")),
    Expected("go", "errors/errors.go", "errors.Wrap", "function",
             "// Wrap returns", "}", None, ("callers", None)),
    Expected("go", "errors/errors.go", "errors.withStack.Cause", "method",
             "func (w *withStack) Cause()", "}", "errors.withStack", ("", None)),
    Expected("rust", "src/error.rs", "Error::new", "method",
             "/// Create a new error object", "}", "Error", ("from_std", "Error")),
    Expected("ruby", "rack/utils.rb", "Rack::Utils.escape", "method",
             "# URI escapes.", "end", "Rack::Utils", ("encode_www_form_component", "URI")),
    Expected("typescript", "internal/Observable.ts", "Observable.lift", "method",
             "/**", "}", "Observable", ("Observable", None)),
    # a component wrapped by `React.forwardRef(` / `function InnerScreen(props, ref) {`: its
    # closures (`handleRef`) are part of it, and it is split although the function opens a line
    # below the call's bracket
    Expected("tsx", "components/Screen.tsx", "InnerScreen", "function",
             "export const InnerScreen = React.forwardRef", ");", None, ("setRef", None)),
    Expected("kotlin", "rnscreens/ScreenStack.kt", "com.swmansion.rnscreens.ScreenStack.dismiss",
             "method", "/**", "}", "com.swmansion.rnscreens.ScreenStack",
             ("add", "dismissedWrappers")),
    Expected("javascript", "lib/application.js", "app.init", "function",
             "/**", "};", None, ("defaultConfiguration", "this")),
    Expected("csharp", "runtime/PythonEngine.cs", "Python.Runtime.PythonEngine.Dispose", "method",
             "public void Dispose()", "}", "Python.Runtime.PythonEngine", ("Shutdown", None)),
    Expected("java", "org/jpype/JPypeContext.java", "org.jpype.JPypeContext.createContext",
             "method", "/**", "}", "org.jpype.JPypeContext", ("load", "System")),
    Expected("cpp", "native/common/jp_class.cpp", "JPClass::setHost", "function",
             "void JPClass::setHost(PyObject* host)", "}", None, ("use", "JPPyObject")),
    Expected("c", "lz4libs/lz4.c", "LZ4_compress_default", "function",
             "int LZ4_compress_default(", "}", None, ("LZ4_compress_fast", None)),
]  # fmt: skip


def _parse(language: str, suffix: str) -> tuple[bytes, ParsedFile]:
    path = find_file(language, suffix)
    data = path.read_bytes()
    return data, parse_file(str(path), data)


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda e: f"{e.language}:{e.qualified_name}")
def test_a_named_symbol_has_exact_boundaries_its_docblock_parent_and_calls(expected: Expected):
    data, parsed = _parse(expected.language, expected.path)
    assert parsed.language == expected.language
    index = next(
        i for i, s in enumerate(parsed.symbols) if s.qualified_name == expected.qualified_name
    )
    symbol = parsed.symbols[index]
    lines = data.decode("utf-8", "replace").split("\n")
    assert symbol.kind == expected.kind
    assert lines[symbol.start_line - 1].strip().startswith(expected.first_line)
    assert lines[symbol.end_line - 1].rstrip().endswith(expected.last_line)
    parent = parsed.symbols[symbol.parent].qualified_name if symbol.parent is not None else None
    assert parent == expected.parent

    chunks = [c for c in parsed.chunks if c.symbol == index]
    assert chunks[0].start_line == symbol.start_line
    assert chunks[-1].end_line == symbol.end_line
    assert [c.piece for c in chunks] == list(range(len(chunks)))
    body = chunks[0].content.split("\n", 1)[1] if len(chunks) > 1 else chunks[0].content
    assert body.lstrip().startswith(expected.first_line)
    assert chunks[-1].content.rstrip().endswith(expected.last_line)

    callee, qualifier = expected.call
    if callee:
        calls = {(e.callee_name, e.qualifier) for e in parsed.edges if e.caller == index}
        assert (callee, qualifier) in calls


def test_a_large_python_method_is_split_into_whole_statements_under_its_signature():
    data, parsed = _parse("python", "flask/app.py")
    index = next(
        i for i, s in enumerate(parsed.symbols) if s.qualified_name == "Flask.make_response"
    )
    pieces = [c for c in parsed.chunks if c.symbol == index]
    assert len(pieces) > 1 and all(c.piece_count == len(pieces) for c in pieces)
    signature = parsed.symbols[index].signature
    tree = get_parser("python").parse(data)
    for piece in pieces:
        header, source = piece.content.split("\n", 1)
        assert header == signature
        text = data[piece.start_byte : piece.end_byte]
        first = piece.start_byte + len(text) - len(text.lstrip())
        last = piece.end_byte - (len(text) - len(text.rstrip()))
        # Each piece starts at the first byte of a statement or clause and ends at the last
        # byte of one: no piece starts or ends inside a statement.
        assert _whole_statement_edge(tree.root_node, first, at="start"), source[:120]
        assert _whole_statement_edge(tree.root_node, last, at="end"), source[-120:]


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_pieces_are_cut_only_between_statements_never_inside_an_expression(language: str):
    parser = get_parser(language)
    cuts = 0
    for path in corpus_files(language)[:60]:
        data = path.read_bytes()
        parsed = parse_file(str(path), data)
        root = parser.parse(data).root_node
        for chunk in parsed.chunks:
            if chunk.piece == 0 or chunk.piece_count == 1:
                continue
            cuts += 1
            holder = _deepest_node_across(root, chunk.start_byte)
            kind = _CONTROL_FLOW.sub("", holder.type)
            assert not _EXPRESSION.search(kind), (path, chunk.start_line, holder.type)
    assert cuts > 0


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_every_file_of_a_real_corpus_parses_with_all_invariants_holding(language: str):
    files = corpus_files(language)
    assert len(files) >= 5
    symbols = edges = 0
    for path in files:
        data = path.read_bytes()
        parsed = parse_file(str(path), data)
        assert parsed.language == language, path
        assert not problems(data, parsed), (path, problems(data, parsed)[:5])
        symbols += len(parsed.symbols)
        edges += len(parsed.edges)
    assert symbols > 50 and edges > 100


def _index_of(parsed: ParsedFile, qualified_name: str) -> int:
    return next(i for i, s in enumerate(parsed.symbols) if s.qualified_name == qualified_name)


def _whole_statement_edge(root, offset: int, at: str) -> bool:
    """Is there a statement or clause starting (or ending) exactly at `offset`?"""
    probe = offset if at == "start" else offset - 1
    node = root.descendant_for_byte_range(probe, probe + 1)
    while node is not None:
        edge = node.start_byte if at == "start" else node.end_byte
        if edge == offset and (
            node.parent is not None
            and node.parent.type in ("block", "module")
            or node.type.endswith("_clause")
            or node.type == "function_definition"
        ):
            return True
        node = node.parent
    return False


_CONTROL_FLOW = re.compile(r"^(when|if|match|switch|try)_expression$")
_EXPRESSION = re.compile(r"expression|argument|string|literal|comment|parameter|binary|call")


def _deepest_node_across(root, offset: int):
    """The smallest node that starts before `offset` and ends after it."""
    node = root
    while True:
        inner = next((c for c in node.children if c.start_byte < offset < c.end_byte), None)
        if inner is None:
            return node
        node = inner
