"""Path roles: tests, examples, docs and vendored copies told from the code under test."""

from __future__ import annotations

import pytest

from retrieval.path_roles import path_role


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("django/db/models/query.py", "code"),
        ("src/latest.py", "code"),
        ("tests/test_query.py", "test"),
        ("sympy/core/tests/test_basic.py", "test"),
        ("pkg/query_test.go", "test"),
        ("src/query.test.ts", "test"),
        ("src/__tests__/query.ts", "test"),
        ("spec/rack/utils_spec.rb", "test"),
        ("src/Foo/BarTest.java", "test"),
        ("conftest.py", "test"),
        ("examples/quickstart.py", "example"),
        ("docs/conf.py", "docs"),
        ("requests/packages/urllib3/vendor/six.py", "vendored"),
        ("third_party/zlib/inflate.c", "vendored"),
        ("vendor/pkg/tests/x.py", "vendored"),
        ("tests/fixtures/vendor/x.py", "test"),
        ("lib/contest.py", "code"),
        ("src/Latest.java", "code"),
    ],
)
def test_a_path_tells_what_the_file_is_for(path, role):
    assert path_role(path) == role
