"""Reading a bug report: frames, quoted paths, module names, identifiers; path roles."""

from __future__ import annotations

import pytest

from retrieval.issue_text import Frame, read_issue
from retrieval.path_roles import path_role


def test_python_ipython_javascript_and_go_frames_are_read_with_their_lines_and_functions():
    text = """
  File "/usr/lib/python3/site-packages/pkg/core.py", line 12, in run
~/src/pkg/pkg/wcs.py in _array_converter(self, func)
File ~/code/seaborn/seaborn/_core/plot.py:822, in Plot._plot(self, pyplot)
    at parseRequest (src/server/http.ts:41:7)
main.go:88 +0x1f
"""
    frames = read_issue(text).frames
    # a frame inside an installed package keeps its path inside that package
    assert Frame("pkg/core.py", 12, "run") in frames
    assert Frame("src/pkg/pkg/wcs.py", None, "_array_converter") in frames
    assert Frame("src/server/http.ts", 41, "parseRequest") in frames
    assert Frame("code/seaborn/seaborn/_core/plot.py", 822, "Plot._plot") in frames
    assert Frame("main.go", 88, None) in frames


def test_quoted_paths_dotted_modules_and_code_identifiers_are_found():
    ev = read_issue(
        "In ``django/db/models/query.py`` the call `QuerySet.bulk_create()` ignores"
        " django.db.models.deletion.Collector; see parse_header() and HTTPAdapter.\n"
        "```python\nfrom pkg import thing\nthing.do_it(self.value)\n```"
    )
    assert "django/db/models/query.py" in ev.paths
    assert "django.db.models.deletion.Collector" in ev.modules
    for name in ("QuerySet.bulk_create", "bulk_create", "parse_header", "HTTPAdapter", "do_it"):
        assert name in ev.identifiers
    assert "self" not in ev.identifiers and "value" in ev.identifiers
    # plain prose words are not identifiers
    assert "ignores" not in ev.identifiers


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("django/db/models/query.py", "code"),
        ("django/test/client.py", "code"),  # a library of test helpers inside the package
        ("tests/queries/test_qs.py", "test"),
        ("sympy/core/tests/test_basic.py", "test"),
        ("pkg/util_test.go", "test"),
        ("src/test/java/a/AppTest.java", "test"),
        ("web/src/__tests__/app.tsx", "test"),
        ("lib/button.spec.ts", "test"),
        ("test/index.js", "test"),
        ("conftest.py", "test"),
        ("tests/fixtures/data.py", "test"),
        ("pkg/testdata/input.go", "fixture"),
        ("examples/plot_demo.py", "example"),
        ("docs/conf.py", "docs"),
        ("asv_bench/benchmarks/io.py", "benchmark"),
        ("requests/packages/urllib3/response.py", "vendored"),
        ("packages/core/src/index.ts", "code"),  # a monorepo's own packages
        ("sklearn/externals/six.py", "vendored"),
        ("vendor/github.com/x/y.go", "vendored"),
        ("web/node_modules/left-pad/index.js", "vendored"),
        ("cextern/wcslib/C/wcs.c", "vendored"),
    ],
)
def test_path_roles_follow_the_ecosystems_layouts(path, role):
    assert path_role(path) == role


def test_a_report_is_several_lines_of_words_or_longer_than_any_question():
    from retrieval.issue_text import is_report

    title = "parse_header fails on a message whose header value is already text"
    body = "Reading a message with a header line crashes when the value was decoded before. " * 2
    assert is_report(f"{title}\n\n{body}")
    assert is_report(" ".join(["word"] * 100))  # a report pasted as one line
    # questions, however long, are one line; two short lines are not a report
    assert not is_report(
        "My root command defines PersistentPreRun and one of its subcommands defines its own"
        " PersistentPreRun as well. When I run the subcommand, do both hooks run? In what order"
        " are the pre-run, run and post-run hooks called?"
    )
    assert not is_report("where is the header parsed\nand decoded")
    assert not is_report("")
