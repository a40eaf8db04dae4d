"""Tree-sitter grammars and tag queries per language, plus the node types chunking relies on."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from tree_sitter import Language, Parser, Query
from tree_sitter_language_pack import get_language, get_parser

# A language's tag query is its files' text in this order: JavaScript and TypeScript share
# ecmascript.scm, TSX (TypeScript plus JSX) reads TypeScript's, Objective-C reads C's first.
_QUERY_FILES = {
    "javascript": ("ecmascript", "javascript"),
    "typescript": ("ecmascript", "typescript"),
    "tsx": ("ecmascript", "typescript"),
    "objc": ("c", "objc"),
}

# C#'s properties and indexers with code in their accessors are function-like
FUNCTION_KINDS = frozenset({"function", "method", "constructor", "macro", "property"})
CONTAINER_KINDS = frozenset(
    {"class", "interface", "trait", "enum", "struct", "module", "impl", "object", "extension"}
)

# Nodes that hold a list of statements or members: a chunk may be cut between their children.
BLOCK_TYPES = frozenset(
    {
        "block",
        "statement_block",
        "compound_statement",
        "declaration_list",
        "field_declaration_list",
        "class_body",
        "protocol_body",
        "computed_property",
        "interface_body",
        "enum_body",
        "enum_class_body",
        "enum_member_declaration_list",
        "enum_declaration_list",
        "body_statement",
        "then",
        "else",
        "do",
        "begin",
        "ensure",
        "rescue",
        "when",
        "in_clause",
        "statements",
        "statement_list",
        "control_structure_body",
        "function_body",
        "switch_body",
        "switch_block",
        "switch_block_statement_group",
        "switch_section",
        "switch_case",
        "switch_entry",
        "switch_default",
        "case_statement",
        "case_clause",
        "expression_case",
        "type_case",
        "default_case",
        "communication_case",
        "select_statement",
        "match_block",
        "match_arm",
        "match_statement",
        "when_entry",
        "constructor_body",
        "accessor_list",
        "module",
        "program",
        "source_file",
        "translation_unit",
        "compilation_unit",
        "object_type",
        "lambda_literal",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "template_body",
        "with_template_body",
        "indented_block",
        "indented_cases",
        "case_block",
        "chunk",
    }
)

# Wrappers whose range belongs to the definition they wrap (decorators, `export`, `template<>`).
WRAPPER_TYPES = frozenset(
    {
        "decorated_definition",
        "export_statement",
        "template_declaration",
        "type_declaration",
        "ambient_declaration",
        "type_definition",
        "declaration",
    }
)

# Comments and attributes directly above a definition belong to its chunk.
LEADING_TYPES = frozenset(
    {
        "comment",
        "line_comment",
        "block_comment",
        "multiline_comment",
        "attribute_item",
        "inner_attribute_item",
        "decorator",
        "attribute_list",
        "annotation",
        "marker_annotation",
    }
)

# Nodes a grammar lets swallow the comments that follow them (tree-sitter-kotlin nests a comment
# after the last import, or after `package x` when there are no imports, in that node): such a
# comment at their very end still leads the next definition.
SWALLOWING_TYPES = frozenset({"import_list", "import_header", "package_header"})

# Source holding nothing but blanks and closing punctuation (`}`, `end`, Objective-C's `@end`) is
# never a chunk or piece of its own.
TRIVIAL = re.compile(rb"^(?:\s|[})\];,]|\bend\b|@end\b|<\?php|\?>)*$")

# Nodes whose text names the file's namespace or package.
NAMESPACE_TYPES = {
    "php": ("namespace_definition",),
    "csharp": ("namespace_declaration", "file_scoped_namespace_declaration"),
    "cpp": ("namespace_definition",),
    "java": ("package_declaration",),
    "kotlin": ("package_header",),
    "go": ("package_clause",),
    "scala": ("package_clause",),
}
NAMESPACE_SEPARATOR = {"php": "\\", "cpp": "::"}


@cache
def language_of(name: str) -> Language:
    """The tree-sitter Language for a codeatlas language name."""
    return get_language(name)  # type: ignore[arg-type]


@cache
def parser_for(name: str) -> Parser:
    """A tree-sitter Parser for a codeatlas language name (cached per process)."""
    return get_parser(name)  # type: ignore[arg-type]


@cache
def tags_query(name: str) -> Query:
    """The compiled tag query (`queries/<language>.scm`, after the files it extends) for a
    language."""
    folder = resources.files("indexing.parsing").joinpath("queries")
    text = "\n".join(
        folder.joinpath(file + ".scm").read_text("utf-8")
        for file in _QUERY_FILES.get(name, (name,))
    )
    return Query(language_of(name), text)
