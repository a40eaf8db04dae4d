"""C and C++ preprocessor directives as tree-sitter reads them.

tree-sitter-c and tree-sitter-cpp end a directive's body (`preproc_arg`) at a block comment: in

    #define CHECK(x) do {   \\
        (x) = 0; /* reset */ \\
    } while (0)

the text after `/* reset */` is parsed as top-level code, and the ERROR it makes swallows the
function that follows the macro (it then has no symbol). The C preprocessor replaces a comment
by one space, so the bytes handed to the parser have such comments blanked: a block comment
inside a directive that goes on after it (a `\\` line continuation or more tokens) or that spans
lines. Offsets and line ends are unchanged; chunks keep the original text.
"""

from __future__ import annotations

import re

# what can hide a `#` at a line's start or a comment's start: comments and literals
_CODE_TOKEN = re.compile(rb"/\*|//|\"|'|^[ \t]*#", re.MULTILINE)
_LITERAL = {
    ord('"'): re.compile(rb'"(?:\\.|[^"\\\n])*"', re.DOTALL),
    ord("'"): re.compile(rb"'(?:\\.|[^'\\\n])*'", re.DOTALL),
}
_LINE_COMMENT = re.compile(rb"//(?:\\\r?\n|[^\n])*")
# inside a directive: a literal, a comment, a line continuation, the end of the directive
_DIRECTIVE_TOKEN = re.compile(
    rb"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|/\*.*?(?:\*/|\Z)|//(?:\\\r?\n|[^\n])*"
    rb"|\\\r?\n|\n|[^\"'/\\\n]+|.",
    re.DOTALL,
)


# a conditional's own line (C#'s `#if`/`#elif`, Swift's `#if`/`#elseif`, `#else`, `#endif`): in
# those languages a directive stands on a line of its own but may cut through any construct
_CONDITIONAL_LINE = re.compile(
    rb"^[ \t]*#[ \t]*(?:if|elif|elseif|else|endif)\b[^\r\n]*", re.MULTILINE
)


def blank_conditional_lines(data: bytes) -> bytes:
    """`data` with its conditionals' lines blanked (both branches then read as one text; the
    offsets unchanged)."""
    return _CONDITIONAL_LINE.sub(lambda m: b" " * len(m.group(0)), data)


def blank_directive_comments(data: bytes) -> bytes:
    """`data` with the block comments inside directives that the grammar cannot read there
    turned into spaces (line ends kept); `data` itself when there are none."""
    spans = [span for _, _, comments in _directives(data) for span in comments]
    return blank_spans(data, spans)


def _directives(data: bytes) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Every directive outside comments and literals: (start of its `#`, end of its logical
    line, its block comments the grammar cannot read)."""
    found: list[tuple[int, int, list[tuple[int, int]]]] = []
    pos = 0
    while (match := _CODE_TOKEN.search(data, pos)) is not None:
        token = match.group(0)
        if token == b"/*":
            close = data.find(b"*/", match.end())
            pos = len(data) if close < 0 else close + 2
        elif token == b"//":
            pos = _LINE_COMMENT.match(data, match.start()).end()  # type: ignore[union-attr]
        elif token in (b'"', b"'"):
            literal = _LITERAL[token[0]].match(data, match.start())
            pos = literal.end() if literal else match.end()
        else:
            comments: list[tuple[int, int]] = []
            pos = _directive(data, match.end(), comments)
            found.append((match.end() - 1, pos, comments))
    return found


def blank_spans(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """`data` with the bytes of `spans` turned into spaces, line ends kept."""
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = re.sub(rb"[^\r\n]", b" ", data[start:end])
    return bytes(out)


_CONDITIONAL = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[ \t]*(.*)", re.DOTALL)
_CPLUSPLUS = re.compile(rb"(?:defined[ \t]*\(?[ \t]*)?__cplusplus[ \t]*\)?[ \t]*")


def _branches(data: bytes) -> list[tuple[int, int, int, bytes, int]]:
    """The conditional directives' branches: (start of the branch's directive, end of that
    directive, start of the next directive of the same group, the directive's keyword and
    condition as `ifdef:X`, start of the group's `#if`)."""
    branches: list[tuple[int, int, int, bytes, int]] = []
    open_groups: list[list[int]] = []  # per open #if: indexes into branches
    for start, end, _ in _directives(data):
        match = _CONDITIONAL.match(data, start, end)
        if match is None:
            continue
        keyword, condition = match.group(1), match.group(2).strip()
        if keyword in (b"elif", b"else", b"endif"):
            if not open_groups:
                continue
            last = branches[open_groups[-1][-1]]
            branches[open_groups[-1][-1]] = (last[0], last[1], start, last[3], last[4])
            if keyword == b"endif":
                open_groups.pop()
                continue
        else:
            open_groups.append([])
        group = branches[open_groups[-1][0]][0] if open_groups[-1] else start
        open_groups[-1].append(len(branches))
        branches.append((start, end, len(data), keyword + b":" + condition, group))
    return branches


def blank_cplusplus_branches(data: bytes) -> bytes:
    """`data` without the code a C compiler never sees: the branch of `#ifdef __cplusplus`
    (or `#if defined(__cplusplus)`) and the `#else` of `#ifndef __cplusplus`, typically an
    `extern "C" {` that tree-sitter-c reads as an error spanning the whole file."""
    spans = []
    branches = _branches(data)
    for index, (_, end, stop, head, _) in enumerate(branches):
        keyword, _, condition = head.partition(b":")
        if keyword in (b"ifdef", b"if") and _CPLUSPLUS.fullmatch(condition):
            spans.append((end, stop))
        elif keyword == b"ifndef" and _CPLUSPLUS.fullmatch(condition):
            for other in branches[index + 1 :]:
                if other[0] != stop:
                    continue
                if other[3].startswith(b"else:"):
                    spans.append((other[1], other[2]))
                break
    return blank_spans(data, spans)


def keep_first_branches(data: bytes, parsed: set[int]) -> bytes:
    """`data` with the conditionals the grammar could not parse reduced to their first branch:
    their directives and their `#elif`/`#else` branches blanked, what the preprocessor sees
    when each `#if` holds. Conditionals cutting through a function (`#ifdef KR_headers` /
    `(x) U *x;` / `#else` / `(U *x)` / `#endif`) otherwise leave it in errors; the grammar only
    parses them around whole declarations and statements. `parsed` holds where the conditionals
    it did parse start: those keep every branch."""
    spans = []
    for start, end, stop, head, group in _branches(data):
        if group in parsed:
            continue
        spans.append((start, end))
        if head.startswith((b"elif:", b"else:")):
            spans.append((end, stop))
    return blank_spans(data, spans)


def _directive(data: bytes, pos: int, spans: list[tuple[int, int]]) -> int:
    """Scan one directive from `pos` (after its `#`) to its end; add the comments to blank."""
    comments: list[tuple[int, int]] = []
    end = len(data)
    for token in _DIRECTIVE_TOKEN.finditer(data, pos):
        text = token.group(0)
        if text == b"\n":
            end = token.start()
            break
        if text.startswith(b"/*"):
            comments.append(token.span())
    for start, stop in comments:
        if b"\n" in data[start:stop] or data[stop:end].strip():
            spans.append((start, stop))
    return end


# `MACRO` or `MACRO(args)` (arguments nested one level deep): a compiler attribute behind a
# macro the grammar cannot expand (`JV_PRINTF_LIKE(1, 2)`, `REDISMODULE_ATTR`, `__THROW`)
_MACRO = rb"[A-Z_][A-Z0-9_]+(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?"
# after a declarator's parameter list, before the `;` of a prototype
_TRAILING_MACROS = re.compile(rb"\)[ \t]*(" + _MACRO + rb"(?:\s+" + _MACRO + rb")*)[ \t]*;")
# between a storage class and the type (`static JV_PRINTF_LIKE(1, 2) void f(...)`)
_LEADING_MACRO = re.compile(rb"\b(?:static|extern|inline)[ \t]+(" + _MACRO + rb")[ \t]+(?=\w)")
_CLOSED_SEARCH = 4096


def blank_attribute_macros(data: bytes) -> bytes:
    """`data` with the attribute macros of declarations turned into spaces: the grammar reads
    `int f(int a) ATTR;` and `static ATTR(1, 2) void f(...) {` as errors, and a run of such
    prototypes (a plugin API's header) as one ERROR holding every definition after them.
    A macro after `)` is blanked only where that `)` closes a parameter list (`f(...)`,
    `(*f)(...)`), never a cast (`n = (int) MAX;`)."""
    spans = [
        m.span(1) for m in _TRAILING_MACROS.finditer(data) if _closes_parameters(data, m.start())
    ]
    spans.extend(m.span(1) for m in _LEADING_MACRO.finditer(data))
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = re.sub(rb"[^\r\n]", b" ", data[start:end])
    return bytes(out)


def _closes_parameters(data: bytes, close: int) -> bool:
    """Does the `)` at `close` end a group written right after a name or a `)`?"""
    depth = 0
    for pos in range(close, max(close - _CLOSED_SEARCH, -1), -1):
        char = data[pos]
        if char == ord(")"):
            depth += 1
        elif char == ord("("):
            depth -= 1
            if depth == 0:
                before = data[max(pos - 200, 0) : pos].rstrip()
                return bool(before) and (before[-1:].isalnum() or before[-1:] in (b"_", b")"))
        elif char in (ord(";"), ord("{"), ord("}")):
            return False
    return False
