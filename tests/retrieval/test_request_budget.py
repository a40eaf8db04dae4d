"""The bound on one request: its text's length, its time budget (checked between steps, also on
the threads of concurrent lookups), and what a pathological text is reduced to before the
costly steps."""

from __future__ import annotations

import pytest

from retrieval.concurrency import run_concurrently
from retrieval.issue_text import MAX_MODULE_PARTS, MAX_MODULES, MAX_PATHS, read_issue
from retrieval.request_budget import (
    MAX_REQUEST_CHARS,
    RequestOverBudgetError,
    RequestTooLargeError,
    check_budget,
    checked_request_text,
    release_memory,
    request_budget,
    resident_bytes,
)
from retrieval.symbols import normalize_name, query_identifiers
from retrieval.trace_frames import MAX_FRAMES

# the shapes of lab/worst_inputs.py, each filling the limit
WORST = {
    "dotted": "a." * (MAX_REQUEST_CHARS // 2),
    "parens": "(" * MAX_REQUEST_CHARS,
    "backticks": "`" * MAX_REQUEST_CHARS,
    "frames": "".join(
        f'  File "/src/pkg{i}/mod_{i}.py", line {i}, in fn_{i}\n' for i in range(2000)
    )[:MAX_REQUEST_CHARS],
    "paths": " ".join(f"src/d{i}/f{i}.py:{i}" for i in range(5000))[:MAX_REQUEST_CHARS],
}


def test_a_text_over_the_limit_is_refused_with_its_length_and_what_to_cut():
    assert checked_request_text("x" * MAX_REQUEST_CHARS, "query") == "x" * MAX_REQUEST_CHARS
    too_long = "the query is 65,537 characters; at most 65,536"
    with pytest.raises(RequestTooLargeError, match=too_long):
        checked_request_text("x" * (MAX_REQUEST_CHARS + 1), "query")


def test_a_request_past_its_budget_stops_at_its_next_step_naming_the_setting():
    check_budget("anything")  # outside a request: no budget to run out
    with request_budget(60):
        check_budget("the lookups")
    with request_budget(0), pytest.raises(RequestOverBudgetError) as refused:
        check_budget("the lookups")
    assert "stopped at the lookups" in str(refused.value)
    assert "CODEATLAS_REQUEST_SECONDS" in str(refused.value)


def test_a_request_that_grows_the_process_past_its_memory_budget_stops_naming_the_setting():
    with request_budget(60, memory_mb=256):
        ballast = bytearray(8 * 2**20)  # 8 MB: well inside
        check_budget("the lookups")
        del ballast
    with request_budget(60, memory_mb=1), pytest.raises(RequestOverBudgetError) as refused:
        ballast = bytearray(32 * 2**20)  # touched pages: the process grows by 32 MB
        ballast[::4096] = b"x" * len(ballast[::4096])
        check_budget("ranking the files")
    del ballast
    assert "MB budget (stopped at ranking the files" in str(refused.value)
    assert "CODEATLAS_REQUEST_MEMORY_MB" in str(refused.value)
    assert resident_bytes() > 0


def test_the_budget_reaches_the_lookups_running_on_other_threads(conn):
    def lent_connections():
        from contextlib import nullcontext

        return nullcontext(conn)

    def step(_conn):
        check_budget("a lookup")
        return "done"

    with request_budget(60):
        assert run_concurrently(conn, [step, step], lent_connections) == ["done", "done"]
    with request_budget(0), pytest.raises(RequestOverBudgetError):
        run_concurrently(conn, [lambda c: "first", step], lent_connections)


def test_memory_is_handed_back_without_error_after_a_long_text():
    with request_budget(60, "x" * MAX_REQUEST_CHARS):
        pass
    release_memory()


def test_a_dotted_run_is_no_module_path_and_evidence_is_capped_per_kind():
    assert read_issue(WORST["dotted"]).modules == []
    deep = ".".join(["pkg"] * (MAX_MODULE_PARTS + 1))
    assert read_issue(f"see {deep} and pkg.sub.mod").modules == ["pkg.sub.mod"]
    many = " ".join(f"pkg{i}.sub.mod" for i in range(MAX_MODULES + 50))
    assert len(read_issue(many).modules) == MAX_MODULES
    frames = read_issue(WORST["frames"])
    assert len(frames.frames) == MAX_FRAMES and len(frames.paths) == MAX_PATHS
    assert len(read_issue(WORST["paths"]).frames) <= MAX_FRAMES


def test_a_line_number_longer_than_any_file_is_read_as_no_line():
    # (int() of more than 4,300 digits raises in Python 3.11)
    frames = read_issue("pkg/mod.py:" + "9" * 5000).frames
    assert [(f.path, f.line) for f in frames] == [("pkg/mod.py", None)]


def test_the_usual_frames_are_read_as_before():
    text = (
        'File "/x/pkg/a.py", line 3, in f\nFile "/x/pkg/a.py", line 3, in f\n'
        "pkg/b.py:7 and pkg/b.py:9 and pkg/a.py:3"
    )
    frames = [(f.path, f.line, f.function) for f in read_issue(text).frames]
    # a recursion's repeated frame counts each time; a bare path:line once per file not framed
    assert frames == [
        ("x/pkg/a.py", 3, "f"),
        ("x/pkg/a.py", 3, "f"),
        ("pkg/b.py", 7, None),
        ("pkg/a.py", 3, None),
    ]


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("Foo->bar()", "Foo.bar"),
        ("`Foo::bar(a, b)`", "Foo.bar"),
        ("Foo  #  bar", "Foo.bar"),
        ("f(x)\ng(y)", "f(x) g"),  # (the last line's call; whitespace runs as one space)
        ("(" * 1000 + ")", ""),
        ("(" * 1000, "(" * 1000),
        ("((a)", ""),
    ],
)
def test_a_name_is_normalized_as_the_regex_did_in_linear_time(name, normalized):
    assert normalize_name(name) == normalized


def test_a_query_longer_than_a_name_is_never_one_identifier():
    assert query_identifiers("a" * 600) == []
    assert query_identifiers("parse_header") == ["parse_header"]


@pytest.mark.parametrize(
    "text",
    [
        "```python\nx = 1\n```\nafter",
        "no fence ```a``` here\nand ```\nopen to the end\n",
        "``` ``` ```\n`code`\n```",
        "```\n```\n```\n",
        "tail without newline ``` ```",
        "```x\n",
        "`" * 1000,
    ],
)
def test_fenced_blocks_are_found_as_the_regex_found_them(text):
    import re

    from retrieval.issue_text import _fences, _without_fences

    regex = re.compile(r"```[^\n]*\n(?P<code>.*?)(?:```|$)", re.S)
    assert _fences(text) == [(m.start(), m.end(), m["code"]) for m in regex.finditer(text)]
    assert _without_fences(text, _fences(text)) == regex.sub(" ", text)
