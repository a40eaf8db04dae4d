"""What a file is for, read from its path: the code itself, or its tests, fixtures, examples,
docs, benchmarks, or a vendored copy of another project's code; `file_role` adds what the
file's content showed when it was indexed (`indexing/parsing/content_roles.py`).

A bug report names behaviour of the code; the tests, examples and copies around it repeat its
words (a test of `parse_header` says `parse_header` more often than the function does), so
`retrieval/locate.py` ranks them below the code unless the report names them. The rules are the
layouts of the ecosystems' own conventions, not of any one repository.
"""

from __future__ import annotations

import posixpath
import re

from indexing.parsing.content_roles import (
    BENCHMARK,
    CODE,
    DOCS,
    EXAMPLE,
    FIXTURE,
    GENERATED,
    TEST,
    VENDORED,
)

__all__ = [
    "BENCHMARK",
    "CODE",
    "DOCS",
    "EXAMPLE",
    "FIXTURE",
    "GENERATED",
    "TEST",
    "VENDORED",
    "file_role",
    "path_role",
]

# folder names, anywhere in the path, and the role they give everything under them
_FOLDERS = {
    **dict.fromkeys(("tests", "__tests__", "__test__", "spec", "specs", "e2e"), TEST),
    **dict.fromkeys(
        ("fixtures", "__fixtures__", "testdata", "test_data", "__snapshots__", "__mocks__"),
        FIXTURE,
    ),
    **dict.fromkeys(("examples", "example", "samples", "demo", "demos", "tutorials"), EXAMPLE),
    **dict.fromkeys(("doc", "docs", "documentation"), DOCS),
    # Cargo's `benches/` beside the other ecosystems' names
    **dict.fromkeys(("benchmarks", "benchmark", "benches", "asv_bench"), BENCHMARK),
    # a build's output committed beside its sources (a JavaScript package's bundles)
    "dist": GENERATED,
    **dict.fromkeys(
        (
            "vendor",
            "vendors",
            "vendored",
            "_vendor",
            "third_party",
            "third-party",
            "thirdparty",
            # C and C++ projects' copies of their dependencies
            "3rdparty",
            "3rd_party",
            "3rd-party",
            "external",
            "externals",
            "extern",
            "cextern",
            "node_modules",
            "bower_components",
        ),
        VENDORED,
    ),
}
# file names of tests in the ecosystems' conventions: pytest/unittest, Go, JS/TS, Java/Kotlin,
# C#, Ruby, PHP
_TEST_FILE = re.compile(
    r"^(test_.+\.py|.+_tests?\.py|conftest\.py|.+_test\.go|.+\.(test|spec)\.[cm]?[jt]sx?"
    r"|.+Tests?\.(java|kt|cs|php|swift)|.+_spec\.rb|.+_test\.rb)$"
)


def path_role(path: str) -> str:
    """The role of the file at `path` (a repository-relative POSIX path)."""
    parts = path.split("/")
    folders = parts[:-1]
    for i, folder in enumerate(folders):
        lowered = folder.lower()
        # a leading underscore hides a folder from a language's tools and keeps its role: Go
        # ignores `_examples/` when it builds, where gin, chi and validator keep their examples
        named = lowered if lowered in _FOLDERS else lowered.lstrip("_")
        if named in _FOLDERS:
            return _FOLDERS[named]
        # a lone `test/` holds a test suite at the top (node, C) or under `src/` (Maven,
        # Gradle); inside a package it can be a library of test helpers (`django/test/`)
        if lowered == "test" and (i == 0 or folders[i - 1] == "src"):
            return TEST
        # a top-level `features/` is a Cucumber, Behat or behave suite (its step definitions
        # and support code); deeper it is code (`src/features/auth/`, clap's parser features)
        if lowered == "features" and i == 0:
            return TEST
        # `<package>/packages/<name>/`: a copy of another distribution shipped inside this one
        # (`requests/packages/urllib3`); a top-level `packages/` is a monorepo's own code
        if lowered == "packages" and i > 0:
            return VENDORED
    if _TEST_FILE.match(posixpath.basename(path)):
        return TEST
    return CODE


def file_role(path: str, stored: str | None) -> str:
    """The role of the file at `path` whose content showed `stored` when it was indexed (None:
    nothing, or indexed before roles were read): the path's role when the layout says it is
    not code (the project's own word), else the content's, else code."""
    by_path = path_role(path)
    return by_path if by_path != CODE or not stored else stored
