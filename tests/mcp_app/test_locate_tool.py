"""The `locate` tool through a real in-memory MCP client session, with grants."""

from __future__ import annotations

import pytest

from tests.mcp_app.conftest import call_tools, make_server, payload
from tests.retrieval.tracker_repo import REPORT, tracker_repo  # noqa: F401


@pytest.fixture
def granted_and_not(tracker_repo):  # noqa: F811
    """Principal alice granted `tracker`; principal bob granted nothing."""
    from core.database import connect
    from retrieval.principals import create_principal, grant

    conn = connect(tracker_repo.database_url, autocommit=True)
    create_principal(conn, "alice")
    create_principal(conn, "bob")
    grant(conn, "alice", "tracker")
    conn.close()
    return make_server(tracker_repo.database_url, "alice"), make_server(
        tracker_repo.database_url, "bob"
    )


def test_locate_ranks_the_reported_file_first_with_its_functions_and_evidence(
    granted_and_not,
):
    alice, _ = granted_and_not
    (result,) = call_tools(alice, [("locate", {"issue_text": REPORT, "limit": 10})])
    assert not result.is_error
    files = payload(result)["files"]
    assert len({f["path"] for f in files}) == 10
    first = files[0]
    assert first["path"] == "tracker/parser.py" and first["role"] == "code"
    assert first["repository"] == "tracker" and len(first["commit"]) == 40
    assert any(e.startswith("stack frame") for e in first["evidence"])
    function = first["functions"][0]
    assert function["symbol"] == "parse_header"
    assert (function["start_line"], function["end_line"]) == (10, 18)


def test_locate_ranks_the_functions_of_all_its_files_in_one_list(granted_and_not):
    """`functions`: every function of the files' lists once, in the order a whole report pasted
    into search_code ranks them (the order the function metrics are measured in)."""
    alice, _ = granted_and_not
    located, searched = call_tools(
        alice,
        [
            ("locate", {"issue_text": REPORT, "limit": 10}),
            # (a page of nine hits, ten with the one that tells of a next page, is ranked over
            # ten located files, as locate's answer here)
            ("search_code", {"query": REPORT, "limit": 9}),
        ],
    )
    answer = payload(located)
    ranked = [(u["path"], u["symbol"], u["start_line"]) for u in answer["functions"]]
    listed = {
        (f["path"], u["symbol"], u["start_line"]) for f in answer["files"] for u in f["functions"]
    }
    assert len(ranked) == len(set(ranked)) and set(ranked) == listed
    assert ranked[0] == ("tracker/parser.py", "parse_header", 10)
    assert all(
        u["repository"] == "tracker" and u["source"] == "commit" for u in answer["functions"]
    )
    hits = [
        (h["path"], h["symbol"], h["start_line"])
        for h in payload(searched)["results"]
        if h.get("symbol")
    ]
    assert len(hits) >= 5 and hits == ranked[: len(hits)]


def test_a_principal_without_a_grant_locates_nothing_and_cannot_name_the_repository(
    granted_and_not,
):
    _, bob = granted_and_not
    everything, named = call_tools(
        bob,
        [
            ("locate", {"issue_text": REPORT}),
            ("locate", {"issue_text": REPORT, "repositories": ["tracker"]}),
        ],
    )
    assert payload(everything)["files"] == []
    assert named.is_error
    assert "no repository named 'tracker' is available to you" in named.content[0].text
    assert "parser.py" not in named.content[0].text


def test_locate_refuses_an_empty_report_and_a_limit_out_of_range(granted_and_not):
    alice, _ = granted_and_not
    empty, too_many = call_tools(
        alice,
        [("locate", {"issue_text": ""}), ("locate", {"issue_text": REPORT, "limit": 51})],
    )
    assert empty.is_error and "issue_text" in empty.content[0].text
    assert too_many.is_error and "limit" in too_many.content[0].text


def test_locate_is_annotated_read_only(granted_and_not):
    from mcp_app.tools import TOOLS

    (tool,) = [t for t in TOOLS if t.name == "locate"]
    assert tool.annotations is not None and tool.annotations.read_only_hint


def test_a_working_tree_file_the_report_quotes_is_located_in_place_of_its_commit(
    granted_and_not,
):
    """Quoted paths are looked up among the scope's snapshot files and the caller's
    working-tree files: an unsaved edit of the quoted file is the one located."""
    alice, _ = granted_and_not
    edited = "def parse_header(lines):\n    return dict(line.split(':', 1) for line in lines)\n"
    added = "def route_webhook(event):\n    return event['kind']\n"
    report = (
        'Traceback (most recent call last):\n  File "/srv/app/tracker/webhooks.py", line 2,'
        " in route_webhook\nKeyError: 'kind'\n\nAlso tracker/parser.py splits on every colon."
    )
    *_, result = call_tools(
        alice,
        [
            (
                "index_file",
                {"repository": "tracker", "path": "tracker/parser.py", "content": edited},
            ),
            (
                "index_file",
                {"repository": "tracker", "path": "tracker/webhooks.py", "content": added},
            ),
            ("locate", {"issue_text": report, "limit": 10}),
        ],
    )
    files = {f["path"]: f for f in payload(result)["files"]}
    assert files["tracker/webhooks.py"]["source"] == "working-tree"
    assert files["tracker/webhooks.py"]["functions"][0]["symbol"] == "route_webhook"
    assert files["tracker/parser.py"]["source"] == "working-tree"
    assert [f["source"] for f in payload(result)["files"]].count("commit") >= 1
    # its committed version is hidden behind the edit, not listed beside it
    assert [f["path"] for f in payload(result)["files"]].count("tracker/parser.py") == 1


def test_search_code_takes_a_whole_report_and_answers_with_locates_ranking(granted_and_not):
    alice, bob = granted_and_not
    # longer than a question may be elsewhere: a report pasted whole, with a long log
    report = REPORT + "\n" + "\n".join(f"DEBUG message {i} read" for i in range(300))
    assert len(report) > 5000
    (found,) = call_tools(alice, [("search_code", {"query": report})])
    assert not found.is_error
    answer = payload(found)
    first = answer["results"][0]
    assert (first["path"], first["symbol"]) == ("tracker/parser.py", "parse_header")
    assert first["retrievers"][0] == "locate"
    assert any("bug report" in note for note in answer["notes"])
    assert all("file_version_id" not in hit for hit in answer["results"])
    # grants hold as for any search: bob reads no repository
    (nothing,) = call_tools(bob, [("search_code", {"query": report})])
    assert payload(nothing)["results"] == []
