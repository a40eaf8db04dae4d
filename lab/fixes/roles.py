"""Which changed files of a fix are the code it fixes, which are its tests, and which are neither.

The roles are codeatlas' own (`retrieval/path_roles.py`), widened by the test layouts that
table does not list and that fixes touch often: C# test projects (`Foo.Tests/`), a `test/`
folder anywhere, `testing/`, and the test file names of C, C++ and Rust (`test_x.c`,
`x_unittest.cc`, `x_test.rs`).
"""

from __future__ import annotations

import posixpath
import re

from indexing.parsing.file_rules import skip_reason
from indexing.parsing.languages import detect_language
from retrieval.path_roles import CODE, FIXTURE, TEST, path_role

# The codeatlas languages whose files count as a repository's source, per mined language: a
# TypeScript project's `.tsx` is its code, and C and C++ projects mix both.
LANGUAGE_FAMILIES: dict[str, frozenset[str]] = {
    "python": frozenset({"python"}),
    "javascript": frozenset({"javascript"}),
    "typescript": frozenset({"typescript", "tsx"}),
    "go": frozenset({"go"}),
    "rust": frozenset({"rust"}),
    "java": frozenset({"java"}),
    "c": frozenset({"c", "cpp"}),
    "cpp": frozenset({"cpp", "c"}),
    "php": frozenset({"php"}),
    "ruby": frozenset({"ruby"}),
    "csharp": frozenset({"csharp"}),
}
LANGUAGES = tuple(LANGUAGE_FAMILIES)

_TEST_FOLDER = re.compile(
    r"(^|/)(test|tests|testing|testsuite|unittests?|unit_tests?|integration_tests?|spec|specs)/"
    r"|[.\w-]*\.(Tests?|UnitTests?|IntegrationTests?|Specs?)/|(^|/)[\w-]*Tests/",
    re.IGNORECASE,
)
_TEST_NAME = re.compile(
    r"^(test_.+|.+_(test|tests|unittest|spec)|.+Tests?|.+Spec)\.(c|cc|cpp|cxx|h|hpp|rs|cs|php|rb|"
    r"java|kt|go|py|js|ts|mjs|cjs|tsx|jsx)$"
)


# folders of other projects' code copied in, beyond codeatlas' list: Redis's `deps/`, C and C++
# projects' `contrib/` (inside a package it is often the project's own code, `django/contrib/`,
# so codeatlas does not list it)
_COPIED_FOLDER = re.compile(r"(^|/)(deps|contrib|bundled)/", re.I)


def is_test(path: str) -> bool:
    """True when the file belongs to a test suite (tests, their fixtures and data)."""
    if path_role(path) in (TEST, FIXTURE):
        return True
    return bool(_TEST_FOLDER.search(path) or _TEST_NAME.match(posixpath.basename(path)))


def source_language(path: str, family: frozenset[str]) -> str | None:
    """The codeatlas language of a file that is the project's own code in one of `family`'s
    languages (not a test, example, doc, benchmark, vendored, generated or minified file)."""
    language = detect_language(path)
    if language not in family or is_test(path) or path_role(path) != CODE:
        return None
    if _COPIED_FOLDER.search(path):
        return None
    if skip_reason(path, 1, None) is not None:
        return None
    return language
