"""Files that are not the package's own code under test: tests, fixtures, examples, benchmarks.
No question is mined from them and they are left out of the corpus."""

from __future__ import annotations

import re

_DIRS = frozenset(
    {
        "test",
        "tests",
        "testing",
        "testdata",
        "testutil",
        "testutils",
        "__tests__",
        "__mocks__",
        "spec",
        "specs",
        "fixtures",
        "example",
        "examples",
        "_examples",
        "sample",
        "samples",
        "bench",
        "benches",
        "benchmark",
        "benchmarks",
        "docs",
        "doc",
    }
)
# a folder named as tests of something: toml-test, test_helpers, testhelpers, unit-tests
_TEST_DIR = re.compile(r"(^|[-_.])tests?([-_.]|$)|^test(helpers?|utils?|support|ing)")
_NAMES = re.compile(
    r"(^test_.*\.py|_test\.(py|go|rb|rs)|^conftest\.py|\.(test|spec)\.[jt]sx?|_spec\.rb"
    r"|Tests?\.(java|cs|kt)|^tests?\.rs|^Test[A-Z]\w*\.(java|cs))$"
)


def is_test_path(path: str) -> bool:
    """True for a test, fixture, example or benchmark file (by its folders and name)."""
    parts = path.split("/")
    for part in parts[:-1]:
        lower = part.lower()
        if lower in _DIRS or _TEST_DIR.search(lower) or part.startswith((".", "_")):
            return True
    return bool(_NAMES.search(parts[-1]))
