"""Odd bytes never crash the parser, and offsets keep pointing at the original file."""

from __future__ import annotations

from indexing.parsing.parser import parse_file

from .invariants import problems


def test_invalid_utf8_is_replaced_in_content_and_byte_offsets_stay_original():
    source = b"def f():\n    return '\xff\xfe caf\xc3\xa9'\n\ndef g():\n    pass\n"
    parsed = parse_file("bad.py", source)
    f = next(c for c in parsed.chunks if c.symbol_name == "f")
    g = next(c for c in parsed.chunks if c.symbol_name == "g")
    assert "\ufffd" in f.content and "café" in f.content
    assert source[g.start_byte : g.end_byte] == b"def g():\n    pass"
    assert (g.start_line, g.end_line) == (4, 5)
    assert not problems(source, parsed)


def test_a_bom_is_not_in_content_and_does_not_shift_offsets():
    source = b"\xef\xbb\xbfimport os\n\nclass A:\n    x = 1\n"
    parsed = parse_file("bom.py", source)
    assert not parsed.has_syntax_errors
    assert parsed.chunks[0].content == "import os"
    a = next(c for c in parsed.chunks if c.symbol_name == "A")
    assert source[a.start_byte : a.end_byte] == b"class A:\n    x = 1"
    assert not problems(source, parsed)


def test_crlf_line_ends_keep_lines_right():
    source = b"package a\r\n\r\n// F does it.\r\nfunc F() int {\r\n\treturn 1\r\n}\r\n"
    parsed = parse_file("a.go", source)
    f = next(c for c in parsed.chunks if c.symbol_name == "F")
    assert (f.start_line, f.end_line) == (3, 6)
    assert f.content == "// F does it.\r\nfunc F() int {\r\n\treturn 1\r\n}"
    assert parsed.symbols[0].signature == "func F() int"
    assert not problems(source, parsed)


def test_empty_and_whitespace_files_give_no_chunks():
    assert parse_file("e.py", b"").chunks == []
    assert parse_file("e.py", b"\n\n   \n").chunks == []


def test_syntax_errors_keep_what_was_recovered_and_are_flagged():
    source = b"class A {\n  void ok() { run(); }\n  void broken( { \n}\nclass B { void b() {} }\n"
    parsed = parse_file("A.java", source)
    assert parsed.has_syntax_errors
    assert "A.ok" in [s.qualified_name for s in parsed.symbols]
    assert not problems(source, parsed)


def test_binary_minified_and_unknown_input_never_crash():
    blobs = {
        "x.py": bytes(range(256)) * 20,
        "x.js": b"var a=function(){return 1};" * 5000,
        "x.c": b"\x00\x00int main(){}\x00",
        "x.rb": b"def\n" * 1000,
        "x.php": b"<?php " + b"{" * 3000,
        "x.unknown": b"whatever",
    }
    for path, data in blobs.items():
        parsed = parse_file(path, data)
        assert not problems(data, parsed), path


def test_an_unknown_language_gives_an_empty_parse():
    parsed = parse_file("notes.txt", b"hello")
    assert parsed.language == "unknown" and parsed.chunks == []


def test_a_tree_with_errors_nested_deeper_than_pythons_recursion_limit_parses():
    # like the Linux kernel's drivers/clk/ingenic/jz4780-cgu.c: a syntax error deep inside
    # nested initializers (counting its error bytes recursed once per level: RecursionError)
    depth = 1500
    source = (
        b"int table[] = "
        + b"{" * depth
        + b"1 + "
        + b"}" * depth
        + b";\nint after(void) { return 2; }\n"
    )
    parsed = parse_file("deep.c", source)
    assert parsed.has_syntax_errors
    assert "after" in [s.name for s in parsed.symbols]
    assert not problems(source, parsed)
