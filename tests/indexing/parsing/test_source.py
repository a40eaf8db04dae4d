"""A file's bytes and line table: 1-based lines, offsets into the original bytes, odd input."""

from __future__ import annotations

from indexing.parsing.source import BOM, Source, estimate_tokens


def test_short_words_are_one_token_and_long_ones_cost_more():
    assert estimate_tokens("return order.total") == 4
    assert estimate_tokens("x" * 13) == 3  # ceil(13 / 6)
    assert estimate_tokens("a = b(1)") == 6


def test_lines_are_one_based_and_ends_stop_before_crlf():
    src = Source(b"first\r\nsecond\nthird")
    assert [src.line_of(0), src.line_of(7), src.line_of(14)] == [1, 2, 3]
    assert src.text(src.line_start(1), src.line_end(1)) == "first"
    assert src.text(src.line_start(2), src.line_end(2)) == "second"
    assert src.text(src.line_start(3), src.line_end(3)) == "third"


def test_a_bom_keeps_offsets_for_the_parser_and_is_dropped_from_text():
    src = Source(BOM + b"def f(): pass\n")
    assert len(src.for_parser) == len(src.data)
    assert src.for_parser.startswith(b"   def")
    assert src.text(0, len(src.data)) == "def f(): pass\n"


def test_invalid_utf8_is_replaced_not_fatal():
    assert Source(b"name = '\xff'\n").text(0, 12) == "name = '\ufffd'\n"


def test_ranges_widen_to_whole_lines_only_over_blanks_and_trailing_punctuation():
    src = Source(b"x = [\n    call(a),\n]\n")
    start = src.data.index(b"call")
    end = src.data.index(b")") + 1
    assert src.text(*src.widen_to_lines(start, end)) == "    call(a),"
    inline = src.data.index(b"[")
    assert src.widen_to_lines(inline, inline + 1) == (inline, inline + 1)


def test_blank_lines_and_token_sums_over_line_ranges():
    src = Source(b"a = 1\n   \nb = 2\n")
    assert [src.is_blank(n) for n in (1, 2, 3)] == [False, True, False]
    assert src.tokens(1, 3) == src.tokens(1, 1) + src.tokens(3, 3) == 6
