"""Language detection by extension, file name, shebang and content."""

from __future__ import annotations

import pytest

from indexing.parsing.languages import LANGUAGES, detect_language
from indexing.parsing.parser import parse_file

BY_PATH = {
    "a/b.php": "php",
    "x.py": "python",
    "stubs.pyi": "python",
    "x.ts": "typescript",
    "x.mts": "typescript",
    "x.tsx": "tsx",
    "x.js": "javascript",
    "x.mjs": "javascript",
    "x.jsx": "javascript",
    "main.go": "go",
    "Main.java": "java",
    "lib.rs": "rust",
    "x.rb": "ruby",
    "Rakefile": "ruby",
    "Program.cs": "csharp",
    "Main.kt": "kotlin",
    "build.gradle.kts": "kotlin",
    "x.c": "c",
    "x.cpp": "cpp",
    "x.cc": "cpp",
    "x.hpp": "cpp",
    "Cart.swift": "swift",
    "RNSScreen.m": "objc",
    "RNSScreen.mm": "objc",
    "Cart.scala": "scala",
    "build.sc": "scala",
    "init.lua": "lua",
    "README.md": None,
    "Makefile": None,
}


@pytest.mark.parametrize(("path", "language"), BY_PATH.items())
def test_languages_are_detected_by_extension_or_file_name(path: str, language: str | None):
    assert detect_language(path) == language


def test_a_c_header_is_c_unless_it_shows_cpp():
    assert detect_language("x.h", b"int add(int a, int b);\n") == "c"
    assert detect_language("x.h", None) == "c"
    assert detect_language("x.h", b"namespace a {\nclass B {};\n}\n") == "cpp"
    assert detect_language("x.h", b"#include <vector>\nstd::vector<int> v;\n") == "cpp"


def test_a_header_showing_objective_c_is_objective_c_even_with_cpp_in_it():
    assert detect_language("x.h", b"#import <Foundation/Foundation.h>\n") == "objc"
    assert detect_language("x.h", b"// doc\n@interface Cart : NSObject\n@end\n") == "objc"
    assert detect_language("x.h", b"@protocol Shape <NSObject>\n@end\n") == "objc"
    assert detect_language("x.h", b"NS_ASSUME_NONNULL_BEGIN\nint f(void);\n") == "objc"
    mixed = b"#ifdef __cplusplus\n#include <vector>\n#endif\n@interface A : NSObject\n@end\n"
    assert detect_language("x.h", mixed) == "objc"
    # an `@interface` in a comment's text or a C `#include` is not Objective-C
    assert detect_language("x.h", b"/* see the @interface doc */\nint f(void);\n") == "c"


@pytest.mark.parametrize(
    ("head", "language"),
    [
        (b"#!/usr/bin/env python3\n", "python"),
        (b"#!/usr/bin/python3.11\n", "python"),
        (b"#!/usr/bin/env -S node --harmony\n", "javascript"),
        (b"#!/usr/bin/ruby\n", "ruby"),
        (b"<?php\necho 1;\n", "php"),
        (b"#!/usr/bin/env lua\n", "lua"),
        (b"#!/usr/bin/lua5.4\n", "lua"),
        (b"#!/usr/bin/env luajit\n", "lua"),
        (b"#!/usr/bin/env scala\n", "scala"),
        (b"#!/bin/sh\n", None),
        (b"plain text\n", None),
    ],
)
def test_extensionless_scripts_are_detected_by_shebang(head: bytes, language: str | None):
    assert detect_language("bin/tool", head) == language


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_a_grammar_and_a_query_that_finds_a_symbol(language: str):
    sources = {
        "php": b"<?php\nfunction f() { g(); }\n",
        "python": b"def f():\n    g()\n",
        "typescript": b"function f(): void { g(); }\n",
        "tsx": b"function f() { return <div>{g()}</div>; }\n",
        "javascript": b"function f() { g(); }\n",
        "go": b"package p\nfunc f() { g() }\n",
        "java": b"class A { void f() { g(); } }\n",
        "rust": b"fn f() { g(); }\n",
        "ruby": b"def f\n  g(1)\nend\n",
        "csharp": b"class A { void f() { g(); } }\n",
        "kotlin": b"fun f() { g() }\n",
        "c": b"void f(void) { g(); }\n",
        "cpp": b"void f() { g(); }\n",
        "swift": b"func f() { g() }\n",
        "objc": b"@implementation A\n- (void)f { g(); }\n@end\n",
        "scala": b"object A { def f(): Unit = g(1) }\n",
        "lua": b"local function f()\n  g()\nend\n",
    }
    parsed = parse_file("x", sources[language], language=language)
    assert parsed.language == language
    assert "f" in [s.name for s in parsed.symbols]
    assert ("g", "call") in [(e.callee_name, e.kind) for e in parsed.edges]
