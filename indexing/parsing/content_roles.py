"""What a file is for, read from what it contains: a test suite, its shared fixtures, a benchmark,
generated code, or a vendored (often minified) copy of a known library; otherwise nothing (its
path decides).

Folder names cover the layouts someone has seen (`retrieval/path_roles.py`); a test suite in
`spec_suite/` or `checks/` still imports its test framework and defines test functions. Each
language's rule asks for both where it can (a framework's import or attribute and a test
definition), so a library of test helpers (`django/test/testcases.py`, which imports unittest
but defines no test) stays code. A Rust file with an inline `#[cfg(test)] mod tests` is code:
its test functions are tests (`is_test_function`), not the file.

Read once per file version at parse time and stored with it (`file_versions.role`); bounded
to the first READ_CHARS characters, each pattern anchored at line starts.
"""

from __future__ import annotations

import re

CODE = "code"
TEST = "test"
FIXTURE = "fixture"
EXAMPLE = "example"
DOCS = "docs"
BENCHMARK = "benchmark"
VENDORED = "vendored"
GENERATED = "generated"
ROLES = (CODE, TEST, FIXTURE, EXAMPLE, DOCS, BENCHMARK, VENDORED, GENERATED)

# a test suite says so in its first screens; a minified bundle in its first lines
READ_CHARS = 200_000


def _lines(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


# (framework: imported or used; tests: defined) per language; a file is a test when both match
_TESTS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "python": (
        _lines(
            r"^\s*(?:import|from)\s+(?:pytest|unittest|nose|hypothesis|testtools)\b"
            r"|^class\s+Test\w*\s*[(:]|^\s+self\.assert[A-Z]\w*\("
        ),
        _lines(r"^\s*(?:async\s+)?def\s+test(?:_\w*|[A-Z]\w*)?\s*\("),
    ),
    "go": (
        _lines(r'^\s*(?:import\s+)?"testing"$'),
        _lines(r"^func\s+(?:Test|Fuzz)\w*\(\s*\w+\s+\*testing\.[TF]\s*\)"),
    ),
    "java": (
        _lines(r"^import\s+(?:static\s+)?(?:org\.junit|org\.testng|junit\.framework)\b"),
        _lines(r"^\s*@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b"),
    ),
    "kotlin": (
        _lines(r"^import\s+(?:org\.junit|org\.testng|kotlin\.test|io\.kotest)\b"),
        _lines(r"^\s*@(?:Test|ParameterizedTest)\b|^\s*(?:test|should|describe)\(\""),
    ),
    "scala": (
        _lines(r"^import\s+(?:org\.scalatest|munit|org\.junit|zio\.test|utest)\b"),
        _lines(r"^\s*(?:test|it|describe)\(\"|\bextends\s+\w*(?:Suite|Spec)\b|^\s*@Test\b"),
    ),
    "javascript": (
        _lines(
            r"""^\s*(?:import|const|let|var)\b.*(?:['"](?:vitest|mocha|chai|jest|ava|tap|"""
            r"""node:test|@jest/globals|@testing-library/[\w-]+|supertest|sinon)['"])"""
            r"|\bexpect\(|\bassert(?:\.\w+)?\("
        ),
        _lines(r"""^\s*(?:describe|it|test|suite)(?:\.\w+)?\(\s*['"`]"""),
    ),
    "ruby": (
        _lines(
            r"""^\s*require\s+['"](?:minitest|rspec|test/unit|spec_helper|rails_helper"""
            r"""|test_helper)|<\s*(?:Minitest::Test|ActiveSupport::TestCase|Test::Unit::TestCase"""
            r"|ActionDispatch::IntegrationTest)|^\s*(?:RSpec\.)?describe\b"
        ),
        _lines(r"""^\s*(?:it|specify|scenario|test)\s*\(?\s*['"]|^\s*def\s+test_\w+"""),
    ),
    "php": (
        _lines(r"^\s*use\s+PHPUnit\\|\bextends\s+\\?(?:[\w\\]+\\)?\w*TestCase\b|\bexpect\("),
        _lines(
            r"^\s*(?:public\s+)?function\s+test\w*\s*\(|^\s*(?:#\[Test\]|/\*\*\s*@test)"
            r"|^\s*(?:test|it)\(\s*['\"]"
        ),
    ),
    "csharp": (
        _lines(r"^\s*using\s+(?:Xunit|NUnit\.Framework|Microsoft\.VisualStudio\.TestTools)\b"),
        _lines(r"^\s*\[(?:Fact|Theory|Test|TestMethod|TestCase|TestCaseSource)\b"),
    ),
    "c": (
        _lines(
            r"^\s*#\s*include\s*[<\"](?:gtest/|gmock/|catch2?/|catch\.hpp|doctest|check\.h"
            r"|cmocka\.h|CUnit/|unity\.h|criterion/|boost/test/)"
        ),
        _lines(
            r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TEST_CASE|SCENARIO|BOOST_AUTO_TEST_CASE"
            r"|START_TEST|Test)\s*\("
        ),
    ),
    "swift": (
        _lines(r"^\s*(?:@testable\s+)?import\s+(?:XCTest|Testing|Quick|Nimble)\b"),
        _lines(r"^\s*(?:func\s+test\w*\s*\(|@Test\b)"),
    ),
}
for _alias, _same in (
    ("typescript", "javascript"),
    ("tsx", "javascript"),
    ("cpp", "c"),
    ("objc", "c"),
):
    _TESTS[_alias] = _TESTS[_same]

_RUST_TEST = _lines(r"^\s*#\[(?:\w+::)?test\b")
# an inline test module: `#[cfg(test)]`, also under more conditions (`#[cfg(all(test, feature =
# "suggestions"))]`, clap's), not `#[cfg(not(test))]`
_RUST_INLINE_TESTS = _lines(r"^\s*#\[cfg\((?:(?:all|any)\([^\]]*?)?\btest\b")
_RUST_FN = _lines(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+\w+")

_BENCHMARKS = {
    "go": _lines(r"^func\s+Benchmark\w*\(\s*\w+\s+\*testing\.B\s*\)"),
    "rust": _lines(r"^\s*#\[bench\]|^\s*criterion_group!"),
    "python": _lines(r"^\s+def\s+(?:time|peakmem|mem|track)_\w+\(self"),  # asv's suites
}

# Go's convention, honoured by its tools: anywhere in the file, alone on its line
_GO_GENERATED = _lines(r"^// Code generated .* DO NOT EDIT\.$")
# other generators' markers, in a comment near the top
_GENERATED_HEAD = re.compile(
    r"@generated\b|<auto-generated|\bDO NOT EDIT\b|^\s*(?://|#|/?\*)\s*(?:This file (?:is|was) )?"
    r"(?:auto-?generated|automatically generated|generated by)\b",
    re.MULTILINE | re.IGNORECASE,
)
_HEAD_LINES = 30
# a bundled library keeps its licence banner: `/*! jQuery v3.5.1 | (c) OpenJS Foundation */`,
# `/** @license React v16.13.1`, `//! moment.js`, `/*!\n * Bootstrap v4.6.0`
_LIBRARY_BANNER = re.compile(
    r"^\s*(?:/\*[!*]|//[!/]?)\s*(?:\n\s*\*\s*)?(?:@license\s+)?"
    r"(?:jQuery|Sizzle|Underscore(?:\.js)?|Lodash|lodash|Backbone(?:\.js)?|Bootstrap|React|Vue(?:\.js)?"
    r"|AngularJS|Angular|Modernizr|moment(?:\.js)?|Moment|D3|d3|Chart\.js|Popper|Prism|highlight\.js"
    r"|MathJax|RequireJS|Knockout|Handlebars|mustache\.js|Select2|DataTables|Leaflet|three\.js"
    r"|Socket\.IO|clipboard\.js|CodeMirror|Ace|Raphael|Snap\.svg|Hammer\.JS|Marked|DOMPurify"
    r"|js-cookie|Bluebird|Immutable|RxJS|zone\.js|core-js|regenerator-runtime|tslib|Plotly|Vega)"
    r"\b[^\n]{0,80}?\bv?\d+\.\d+"
)
_BANNER_CHARS = 600
_JS_LIKE = frozenset({"javascript", "typescript", "tsx", "css"})
# a minified bundle: most of its bytes in lines no one writes by hand
_LONG_LINE = 500
_LONG_SHARE = 0.5


def content_role(language: str, text: str) -> str:
    """The role `text` shows for itself (`TEST`, `FIXTURE`, `BENCHMARK`, `GENERATED`,
    `VENDORED`), or `CODE` when it says nothing beyond being code (the path's role decides)."""
    text = text[:READ_CHARS]
    head = "\n".join(text.split("\n", _HEAD_LINES)[:_HEAD_LINES])
    if (language == "go" and _GO_GENERATED.search(text)) or _GENERATED_HEAD.search(head):
        return GENERATED
    if language in _JS_LIKE and (_LIBRARY_BANNER.match(text[:_BANNER_CHARS]) or _minified(text)):
        return VENDORED
    if language == "rust":
        return _rust_role(text)
    benchmark = _BENCHMARKS.get(language)
    rule = _TESTS.get(language)
    if language == "python":  # most modules hold none of the words: skip their patterns
        rule = rule if "def test" in text else None
        benchmark = benchmark if any(w in text for w in _ASV_WORDS) else None
    if rule is not None:
        framework, tests = rule
        if tests.search(text) and (framework.search(text) or _mostly_tests(language, text)):
            if benchmark is not None and not _has_tests_beside(language, text):
                return BENCHMARK
            return TEST
    if benchmark is not None and benchmark.search(text):
        return BENCHMARK
    if language == "python" and "@pytest.fixture" in text and _PY_FIXTURE.search(text):
        return FIXTURE  # a module of pytest fixtures shared by test modules, without tests
    return CODE


_ASV_WORDS = ("def time_", "def peakmem_", "def mem_", "def track_")
_PY_FIXTURE = _lines(r"^@pytest\.fixture\b")
_PY_DEF = _lines(r"^\s*(?:async\s+)?def\s+\w")


def _mostly_tests(language: str, text: str) -> bool:
    """Python: pytest collects plain `def test_` functions with bare asserts, no import needed;
    a module whose functions are mostly tests is a test module."""
    if language != "python":
        return False
    tests = len(_TESTS["python"][1].findall(text))
    return tests >= 2 and tests * 2 >= len(_PY_DEF.findall(text))


def _has_tests_beside(language: str, text: str) -> bool:
    """Go: a `_test.go` of benchmarks only is a benchmark; with tests, a test."""
    if language != "go":
        return True
    return _TESTS["go"][1].search(text) is not None


def _rust_role(text: str) -> str:
    """A file of `#[test]` functions only is a test (an integration test outside `tests/`); one
    with an inline `#[cfg(test)]` module is code."""
    if _BENCHMARKS["rust"].search(text):
        return BENCHMARK
    if _RUST_INLINE_TESTS.search(text):
        return CODE
    tests = len(_RUST_TEST.findall(text))
    if tests and tests * 2 >= len(_RUST_FN.findall(text)):
        return TEST
    return CODE


def _minified(text: str) -> bool:
    if len(text) < 2000:
        return False
    long = sum(len(line) for line in text.split("\n") if len(line) > _LONG_LINE)
    return long > len(text) * _LONG_SHARE


def is_test_function(language: str, qualified_name: str) -> bool:
    """A function of a code file that is one of its tests: Rust's inline `mod tests`."""
    if language != "rust":
        return False
    return "tests" in qualified_name.split("::")[:-1] or "test" in qualified_name.split("::")[:-1]
