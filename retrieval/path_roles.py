"""What a file is for, read from its path alone: the code itself, or its tests, examples,
documentation, build scripts or a vendored copy of someone else's code. Questions and bug reports
are about the code under test; the others repeat its words (a test names what it tests, a
vendored copy is the same code twice) and are ranked below it unless asked for."""

from __future__ import annotations

import re

ROLES = ("code", "test", "example", "docs", "vendored")

# folder names, matched as whole path segments, case-insensitively
_TEST_DIRS = frozenset(
    {"test", "tests", "testing", "spec", "specs", "__tests__", "__mocks__", "fixtures", "testdata"}
)
_EXAMPLE_DIRS = frozenset({"example", "examples", "demo", "demos", "sample", "samples"})
_DOCS_DIRS = frozenset({"doc", "docs", "documentation", "benchmarks", "bench", "asv_bench"})
_VENDORED_DIRS = frozenset(
    {
        "vendor",
        "vendored",
        "_vendor",
        "third_party",
        "thirdparty",
        "third-party",
        "externals",
        "extern",
        "node_modules",
        "bower_components",
    }
)
# file names of tests in the usual conventions: test_x.py, x_test.go, x.test.ts, x.spec.js,
# XTest.java, XTests.cs, x_spec.rb, conftest.py
_TEST_FILE = re.compile(
    r"^(?:test_.*|.*_tests?\.\w+|.*\.(?:test|spec)\.\w+|.*(?<=[a-z0-9])Tests?\.\w+|.*_spec\.rb"
    r"|conftest\.py)$"
)


def path_role(path: str) -> str:
    """The role of the file at `path` (one of `ROLES`); the first matching folder decides, so
    `vendor/pkg/tests/x.py` is vendored and `tests/fixtures/vendor/x.py` a test."""
    parts = path.replace("\\", "/").split("/")
    for folder in (p.lower() for p in parts[:-1]):
        if folder in _VENDORED_DIRS:
            return "vendored"
        if folder in _TEST_DIRS:
            return "test"
        if folder in _EXAMPLE_DIRS:
            return "example"
        if folder in _DOCS_DIRS:
            return "docs"
    if _TEST_FILE.match(parts[-1]):
        return "test"
    return "code"
