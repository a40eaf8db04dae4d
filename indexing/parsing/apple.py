"""Same-length rewrites of Swift and Objective-C source that tree-sitter's grammars cannot read.

The parser is handed the rewritten bytes; offsets and line ends are unchanged (only rewritten
bytes become spaces) and chunks keep the original text.

- Objective-C, always: `typedef NS_ENUM(NSInteger, Kind) {` (and `NS_OPTIONS`, `NS_CLOSED_ENUM`,
  `NS_ERROR_ENUM`) is read as `enum Kind {`, the enum it declares; tree-sitter-objc reads the macro
  as an error that swallows the enum.
- Objective-C, on a retry: macros alone on a line (`NS_ASSUME_NONNULL_BEGIN`) and attribute
  macros after a method's or a declaration's head (`- (void)f NS_SWIFT_NAME(f());`,
  `API_AVAILABLE(ios(13.0))`) are blanked; then also the C++ a `.mm` file or an Objective-C++
  header holds where the grammar cannot read it: `#ifdef __cplusplus` branches, namespace
  aliases and `using` lines.
- Swift, on a retry: Swift 6 words tree-sitter-swift does not know (`nonisolated(unsafe)`'s
  `(unsafe)`, a `sending` parameter, `switch consume x`, the `~` of `[~T.self]`) and attributes
  in front of a parameter's name (`@Builder _ body: () -> [X]`) are blanked; then also the
  `#if`/`#else`/`#endif` lines, which the grammar only reads around whole declarations and
  statements (both branches are then read as one text).
"""

from __future__ import annotations

import re

from indexing.parsing.directives import (
    blank_attribute_macros,
    blank_conditional_lines,
    blank_cplusplus_branches,
    blank_spans,
)


def _blank_groups(pattern: re.Pattern[bytes], data: bytes, group: int = 1) -> bytes:
    """`data` with group `group` of each match of `pattern` turned into spaces."""
    return blank_spans(data, [m.span(group) for m in pattern.finditer(data) if m.start(group) >= 0])


_NS_ENUM = re.compile(
    rb"\b(typedef[ \t]+)?(NS_(?:ENUM|OPTIONS|CLOSED_ENUM|ERROR_ENUM)[ \t]*\([^,()\n]*,[ \t]*)"
    rb"(\w+)([ \t]*\))"
)


def read_ns_enums(data: bytes) -> bytes:
    """`typedef NS_ENUM(NSInteger, Kind) {` as `        enum             Kind  {`."""
    if b"NS_" not in data:
        return data

    def enum(match: re.Match[bytes]) -> bytes:
        typedef, head, name, close = (match.group(i) or b"" for i in range(1, 5))
        return b" " * len(typedef) + b"enum" + b" " * (len(head) - 4) + name + b" " * len(close)

    return _NS_ENUM.sub(enum, data)


# an upper-case macro, with arguments nested two levels deep
_MACRO = rb"[A-Z_][A-Z0-9_]{2,}(?:[ \t]*\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\))?"
_LONE_MACRO = re.compile(rb"^[ \t]*(" + _MACRO + rb")[ \t]*;?[ \t]*$", re.MULTILINE)
# after a method's head or a declaration, before its `;` or `{`
_OBJC_TRAILING_MACROS = re.compile(
    rb"(?<=[\w)])[ \t]+(" + _MACRO + rb"(?:[ \t]+" + _MACRO + rb")*)[ \t]*(?=[;{]|\r?\n[ \t]*\{)"
)
_CPP_LINES = re.compile(
    rb"^[ \t]*((?:namespace[ \t]+\w+[ \t]*=[^;\n]*|using[ \t]+(?:namespace|enum)\b[^;\n]*);)",
    re.MULTILINE,
)
_KEYWORDS = frozenset({b"return", b"case", b"else", b"do", b"goto", b"sizeof"})


def blank_objc_macros(data: bytes) -> bytes:
    """`data` with lone macro lines and attribute macros blanked (see the module's doc)."""
    data = _blank_groups(_LONE_MACRO, data)
    spans = []
    for match in _OBJC_TRAILING_MACROS.finditer(data):
        before = data[max(match.start() - 20, 0) : match.start()].split()
        if before and before[-1] in _KEYWORDS:
            continue  # `return MAX;`
        spans.append(match.span(1))
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = re.sub(rb"[^\r\n]", b" ", data[start:end])
    return blank_attribute_macros(bytes(out))


def blank_objc_cplusplus(data: bytes) -> bytes:
    """`data` with lone and attribute macros and the C++ the grammar cannot read blanked."""
    return _blank_groups(_CPP_LINES, blank_cplusplus_branches(blank_objc_macros(data)))


_SWIFT_WORDS = re.compile(
    rb"\bnonisolated(\(unsafe\))"
    rb"|[:>,(][ \t]*(sending|borrowing|consuming)[ \t]+(?=[\w@(\[])"
    rb"|\b(?:switch|return|=)[ \t]+(consume)[ \t]+(?=\w)"
    rb"|[\[(,][ \t]*(~)(?=[A-Za-z_])"
    rb"|[(,][ \t]*((?:@\w+(?:<[^<>\n]*>)?[ \t]+)+)(?=\w+[ \t]+\w+[ \t]*:|_[ \t]+\w+[ \t]*:)"
)


def blank_swift_words(data: bytes) -> bytes:
    """`data` with the Swift 6 words and parameter attributes the grammar cannot read blanked."""
    spans = []
    for match in _SWIFT_WORDS.finditer(data):
        group = next(g for g in range(1, 6) if match.start(g) >= 0)
        spans.append(match.span(group))
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


def blank_swift_conditionals(data: bytes) -> bytes:
    """`data` with the words above and `#if`/`#elseif`/`#else`/`#endif` lines blanked."""
    return blank_conditional_lines(blank_swift_words(data))
