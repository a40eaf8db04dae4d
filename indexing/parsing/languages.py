"""Which of the supported languages a file is written in, from its name and, if needed, its head.

Language names are codeatlas' own and are also the grammar names in tree-sitter-language-pack
(`csharp`, not `c_sharp`). A `.h` header is C unless its head shows Objective-C (`@interface`,
`@protocol`, `#import`) or C++ (classes, namespaces, templates, `std::`...). `.m` and `.mm` are
Objective-C: there is no Objective-C++ grammar, so a `.mm` file's C++ parts may be errors.
"""

from __future__ import annotations

import posixpath
import re

LANGUAGES = (
    "php",
    "python",
    "typescript",
    "tsx",
    "javascript",
    "go",
    "java",
    "rust",
    "ruby",
    "csharp",
    "kotlin",
    "c",
    "cpp",
    "swift",
    "objc",
    "scala",
    "lua",
)

_BY_EXTENSION = {
    ".php": "php",
    ".phtml": "php",
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".ru": "ruby",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".c": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".swift": "swift",
    ".m": "objc",
    ".mm": "objc",
    ".scala": "scala",
    ".sc": "scala",
    ".lua": "lua",
}

_BY_FILENAME = {
    "rakefile": "ruby",
    "gemfile": "ruby",
    "guardfile": "ruby",
    "vagrantfile": "ruby",
    "podfile": "ruby",
}

_INTERPRETERS = {
    "python": "python",
    "python2": "python",
    "python3": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "typescript",
    "ts-node": "typescript",
    "ruby": "ruby",
    "php": "php",
    "scala": "scala",
    "lua": "lua",
    "luajit": "lua",
}

_CPP_MARKERS = re.compile(
    rb"^\s*(class\s+\w+\s*[:{]|namespace\s+\w*\s*\{|template\s*<|using\s+namespace\b)"
    rb"|\bstd::|\bpublic:|\bprivate:|\bprotected:|#include\s*<(iostream|string|vector|memory|map)>",
    re.MULTILINE,
)


# Objective-C's own syntax (`@interface`, `@protocol`, `#import`, `@import UIKit;`): it wins over
# C++'s markers, as an Objective-C++ header's classes are Objective-C ones
_OBJC_MARKERS = re.compile(
    rb"^[ \t]*(@(interface|protocol|implementation|class|import)\b|#[ \t]*import[ \t]*[<\"])"
    rb"|\bNS_ASSUME_NONNULL_BEGIN\b",
    re.MULTILINE,
)


def detect_language(path: str, content: bytes | None = None) -> str | None:
    """Return the codeatlas language name of `path` (using `content` when the name is unclear)."""
    name = posixpath.basename(path.replace("\\", "/"))
    lower = name.lower()
    if lower in _BY_FILENAME:
        return _BY_FILENAME[lower]
    _, ext = posixpath.splitext(lower)
    if ext == ".h":
        head = content[:65536] if content is not None else b""
        if _OBJC_MARKERS.search(head):
            return "objc"
        return "cpp" if _CPP_MARKERS.search(head) else "c"
    if ext in _BY_EXTENSION:
        return _BY_EXTENSION[ext]
    if content is None:
        return None
    if content.startswith(b"<?php"):
        return "php"
    return _language_from_shebang(content)


def _language_from_shebang(content: bytes) -> str | None:
    if not content.startswith(b"#!"):
        return None
    first = content.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    words = first[2:].split()
    if not words:
        return None
    program = posixpath.basename(words[0])
    if program == "env":
        args = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not args:
            return None
        program = posixpath.basename(args[0])
    program = re.sub(r"[\d.]+$", "", program) or program
    return _INTERPRETERS.get(program) or _INTERPRETERS.get(program.rstrip("0123456789."))
