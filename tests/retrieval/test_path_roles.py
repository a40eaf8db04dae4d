"""What a file is for, read from its path alone, in the layouts of several ecosystems."""

from __future__ import annotations

import pytest

from retrieval.path_roles import (
    BENCHMARK,
    CODE,
    DOCS,
    EXAMPLE,
    FIXTURE,
    GENERATED,
    TEST,
    VENDORED,
    path_role,
)


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("django/db/models/query.py", CODE),
        ("setup.py", CODE),
        ("tests/test_query.py", TEST),
        ("src/app/__tests__/Button.tsx", TEST),
        ("pkg/parser_test.go", TEST),
        ("web/src/api.spec.ts", TEST),
        ("lib/rack/utils_spec.rb", TEST),
        ("src/main/java/FooTest.java", TEST),
        ("conftest.py", TEST),
        ("test/index.js", TEST),  # a top-level test suite (node, C)
        ("src/test/java/Foo.java", TEST),  # Maven and Gradle
        ("django/test/client.py", CODE),  # test helpers shipped inside the package
        ("features/step_definitions/steps.rb", TEST),  # Cucumber at the top
        ("features/bootstrap/FeatureContext.php", TEST),  # Behat
        ("src/features/auth/slice.ts", CODE),  # an app's feature folders
        ("tests/fixtures/sample.py", TEST),  # the first folder that says decides
        ("pkg/testdata/input.go", FIXTURE),
        ("examples/quickstart.py", EXAMPLE),
        ("_examples/rest/main.go", EXAMPLE),  # hidden from the Go tools by its underscore
        ("_example/example.go", EXAMPLE),
        ("pkg/_docs/guide.go", DOCS),
        ("src/_private/helpers.py", CODE),  # an underscore alone names no role
        ("docs/conf.py", DOCS),
        ("Docs/Guide/index.md", DOCS),  # folder names in any case
        ("benchmarks/bench_parse.py", BENCHMARK),
        ("benches/decode.rs", BENCHMARK),  # Cargo's benchmark targets
        ("benches/support/tokiort.rs", BENCHMARK),
        ("vendor/github.com/x/y.go", VENDORED),
        ("3rdparty/zlib/inflate.c", VENDORED),  # C and C++ copies of dependencies
        ("src/3rd_party/fmt/format.h", VENDORED),
        ("web/node_modules/react/index.js", VENDORED),
        ("requests/packages/urllib3/poolmanager.py", VENDORED),
        ("packages/core/src/index.ts", CODE),  # a monorepo's own packages
        ("dist/async.js", GENERATED),  # the bundles a JavaScript build writes
        ("packages/ui/dist/index.mjs", GENERATED),
    ],
)
def test_each_path_gets_the_role_of_its_ecosystems_layout(path, role):
    assert path_role(path) == role


def test_a_name_that_only_contains_test_is_code():
    assert path_role("app/testing.py") == CODE
    assert path_role("app/latest_version.py") == CODE
