"""Reading a bug report: frames, quoted paths, module names, identifiers; path roles."""

from __future__ import annotations

import pytest

from retrieval.issue_text import TITLE_CHARS, Frame, read_issue, report_title, without_template
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


def test_a_reports_title_is_its_first_line_of_prose():
    report = "\n\n  Pool.acquire hangs after close  \nThe body says more.\n"
    assert report_title(report) == "Pool.acquire hangs after close"
    assert report_title("one line only") == "one line only"
    # a report that opens with a fenced block (a traceback, a log) has no title
    assert report_title("```\nTraceback (most recent call last):\n```\nwords") == ""
    assert report_title("   \n") == ""
    # GitHub's limit on an issue title: a one-line report is not all title
    assert report_title("word " * 1000) == ("word " * 1000)[:TITLE_CHARS]


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


# A report filed through an issue template: GitHub's default one (bold headings, its sentences
# and placeholder steps) and an issue form's (headings, a checklist, an empty field, an
# environment dump folded in a fence), each around what the reporter wrote.
FILED = """parse_header fails on text values
<!-- Please search the existing issues before filing. -->
**Describe the bug**
A clear and concise description of what the bug is.
Reading a message with a header line crashes in `parse_header`.

![image](https://github.com/user-attachments/assets/5f0c2a1e-ffff-4a9b-9c3e-1b2c3d4e5f60)
<img width="812" alt="Screenshot 2024-05-01" src="https://github.com/user-attachments/assets/1a2b">

**To Reproduce**
Steps to reproduce the behavior:
1. Go to '...'
2. See error

```python
# read one message
read_message(raw)
```

**Desktop (please complete the following information):**
 - OS: macOS 14.2
 - Browser: [e.g. chrome, safari]
 - Version: 2.4.0

### Validations

- [x] I have searched the existing issues

### Anything else?

_No response_

<details>

```
System:
    OS: Linux 6.5 Ubuntu 22.04.3 LTS
    Memory: 21.33 GB / 31.26 GB
Binaries:
    Node: 20.9.0 - ~/.nvm/versions/node/v20.9.0/bin/node
numpy: 1.26.0
```

</details>
"""


def test_an_issue_templates_boilerplate_is_dropped_and_what_the_reporter_wrote_kept():
    kept = without_template(FILED)
    words = set(kept.split())
    # the title, the prose and the fenced code (its `#` comment line included) stay as written
    assert kept.startswith("parse_header fails on text values\n")
    assert "Reading a message with a header line crashes in `parse_header`." in kept
    assert "```python\n# read one message\nread_message(raw)\n```" in kept
    # instructions, headings, placeholder steps, checklists, environment lines and dumps go
    for gone in ("search", "Describe", "concise", "Reproduce", "Go", "Desktop", "macOS", "e.g.",
                 "Version:", "Validations", "searched", "response_", "Memory:", "Node:", "numpy:",
                 "<details>", "![image](https://github.com/user-attachments/assets/5f0c2a1e-ffff",
                 "width=\"812\"", "alt=\"Screenshot"):  # fmt: skip
        assert gone not in words, gone
    # and what the reporter wrote is read as before
    assert read_issue(kept).identifiers == read_issue(kept + "\n- [x] I agree").identifiers


def test_lines_that_only_look_like_a_template_are_the_reporters_own():
    # a component-prefixed title, git's conflict list, frames of gdb and PHP, a diagnostic
    for text in (
        "python: fix segfault on empty argv\nIt crashes.",
        "go: 1.22 breaks the build",
        "Meters for exceptions\n\n#\tsrc/meters/http.py",  # git's list of conflicted files
        "rename\nclass Foo(Model):\n    pass\n# Primary key renamed\n",  # code without fences
        "crash\n#0  0x00007f in parse_line (buf=0x0) at src/reader.c:33",
        "fatal\n#0 /src/Foo.php(12): Bar->baz()",
        "build fails\nsrc/x.c:12:3: error: unknown type name 'foo_t'",
        "wrong sum\n```yaml\nversion: 2.1\njobs: build\nname: test\n```",
        "loops\n```python\ndef f(xs):\n    for x in xs:\n        if x:\n            pass\n"
        "    else:\n        pass\n```",
    ):
        assert without_template(text) == text, text


def test_an_interpreters_banner_goes_and_the_session_after_it_stays():
    session = (
        "Wrong result with apart\n```\n"
        "Python 3.6.0 |Continuum Analytics, Inc.| (default, Dec 23 2016, 12:22:00) \n"
        'Type "copyright", "credits" or "license" for more information.\n\n'
        "IPython 5.1.0 -- An enhanced Interactive Python.\n"
        "?         -> Introduction and overview of IPython's features.\n"
        "%quickref -> Quick reference.\n"
        "help      -> Python's own help system.\n"
        "object?   -> Details about 'object', use 'object??' for extra details.\n\n"
        "In [1]: bug.apart(t)\nOut[1]: -a*t\n```\n"
        "Tested on\n"
        "Python 3.10.9 (main, Dec  7 2022, 02:03:23) [Clang 13.0.0 (clang-1300.0.29)] on darwin\n"
        "[GCC 8.4.0] on linux\n"
        'Type "help", "copyright", "credits" or "license" for more information.\n'
        ">>> apart(x)\n"
        "Welcome to Node.js v20.9.0.\n"
        'Type ".help" for more information.\n'
        "> parse('a')\n"
    )
    kept = without_template(session)
    expected = "Wrong result with apart ``` In [1]: bug.apart(t) Out[1]: -a*t ``` Tested on"
    assert kept.split() == [*expected.split(), ">>>", "apart(x)", ">", "parse('a')"]
    # a fence that held only a banner is gone with it
    emptied = without_template("title\n```\n[GCC 12.2.0] on linux\n```\nwords")
    assert emptied.split() == ["title", "words"]
    # the same words in the reporter's own sentences stay
    for text in (
        "title\nPython 3.11.4 (the one from Debian) breaks the build",
        "title\nType help for more information about the license check.",
        "title\nThe help system (`help -> topics`) lists the features.",
    ):
        assert without_template(text) == text, text


def test_gos_bug_template_goes_its_settings_dump_and_its_questions_with_it():
    report = (
        "Router drops the trailing slash\n\n"
        "### What version of Go are you using (`go version`)?\n\n"
        "<pre>\n$ go version\ngo version go1.21.5 linux/amd64\n</pre>\n\n"
        "### What operating system and processor architecture are you using (`go env`)?\n\n"
        '<pre>\nGOARCH="amd64"\nGOCACHE="/home/u/.cache/go-build"\nCGO_CFLAGS="-O2 -g"\n</pre>\n\n'
        '```\nset GOOS="windows"\nset GOPATH="C:\\go"\n```\n\n'
        '### What did you do?\n\nMounted `r.Get("/a/", h)` and asked for /a/.\n'
    )
    words = without_template(report).split()
    for gone in ('GOARCH="amd64"', "set", "linux/amd64", "operating", "processor", "did"):
        assert gone not in words, gone
    assert words[:5] == ["Router", "drops", "the", "trailing", "slash"]
    assert 'r.Get("/a/",' in " ".join(words) and words[-1] == "/a/."
    # a reproduction that sets one variable among its commands, and a heading naming code, stay
    for text in (
        'title\n```sh\nFOO="bar"\ngo run ./cmd/server\ncurl localhost:8080/a/\n```',
        "title\n## Why does `Router.Get` drop it?\nwords",
    ):
        assert without_template(text) == text, text


def test_unclosed_comments_and_long_inputs_are_read_in_linear_time():
    assert without_template("title\n<!-- never closed\n- OS: Linux") == "title\n"
    # thousands of comment openers, headings and key lines: read once each
    text = "title\n" + "<!-- " * 20_000 + "\n" + "### h\nnumpy: 1.0\n" * 20_000
    assert without_template(text) == "title\n"
    # a heading-like line of 60,000 characters that is not one, and one of spaces
    for line in ("# " + "a" * 60_000 + ".", " " * 60_000 + "x", "- " + "a " * 30_000):
        assert without_template("title\n" + line) == "title\n" + line
    # lines that start like a banner, a settings line or a quoting heading and never end so
    for line in (
        "Python 3.1.1 " + "(" * 60_000,
        "Python 3.1.1 |" + "a|" * 30_000,
        'A="' + "x" * 60_000,
        "A_" * 30_000 + "=x",
        "## " + "(`" * 30_000,
        "go version go1" + ".1" * 30_000,
    ):
        assert without_template("title\n" + line) == "title\n" + line


def test_a_link_to_a_file_of_a_repository_names_that_file():
    ev = read_issue(
        "The check is wrong here: https://github.com/acme/tracker/blob/4f2a9c1/tracker/parser.py#L17"
        " (also https://github.com/acme/tracker/blob/main/src/lib/parse.rs#L10-L20, and raw"
        " https://raw.githubusercontent.com/acme/tracker/main/pkg/x.go, and on our mirror"
        " https://gitlab.example.org/grp/tracker/-/blob/main/lib/a.rb#L3); see issue"
        " https://github.com/acme/tracker/issues/12."
    )
    assert ev.paths == ["tracker/parser.py", "src/lib/parse.rs", "pkg/x.go", "lib/a.rb"]
