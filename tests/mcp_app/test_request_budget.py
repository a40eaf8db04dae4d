"""The bound on one request through a real in-memory MCP client: pathological texts within the
limit answered, a request past its time budget stopped with an error naming the setting, and the
same text limit as the CLI's."""

from __future__ import annotations

from tests.mcp_app.conftest import call_tools, make_server, payload
from tests.retrieval.tracker_repo import REPORT, tracker_repo  # noqa: F401

# the shapes of lab/worst_inputs.py that took 20 s to a minute each (issue 47)
DOTTED = "a." * 32_768
PARENS = "(" * 65_536
BACKTICKS = "`" * 65_536


def test_pathological_texts_within_the_limit_are_answered(tracker_repo):  # noqa: F811
    server = make_server(tracker_repo.database_url, "local")
    calls = [
        ("locate", {"issue_text": DOTTED}),
        ("locate", {"issue_text": BACKTICKS}),
        ("search_code", {"query": PARENS}),
        ("search_code", {"query": DOTTED}),
        ("locate", {"issue_text": REPORT}),
    ]
    results = call_tools(server, calls)
    assert [r.is_error for r in results] == [False] * len(calls)
    assert payload(results[-1])["files"][0]["path"] == "tracker/parser.py"


def test_a_request_past_its_budget_is_an_error_naming_the_setting(tracker_repo):  # noqa: F811
    server = make_server(tracker_repo.database_url, "local", request_seconds=0.000001)
    located, searched = call_tools(
        server, [("locate", {"issue_text": REPORT}), ("search_code", {"query": "parse header"})]
    )
    for result in (located, searched):
        assert result.is_error
        text = result.content[0].text
        assert "took more than its 1e-06 s budget" in text
        assert "CODEATLAS_REQUEST_SECONDS" in text


def test_the_query_limit_is_the_cli_s(tracker_repo):  # noqa: F811
    from mcp_app.inputs import MAX_ISSUE, MAX_QUERY
    from retrieval.request_budget import MAX_REQUEST_CHARS

    assert MAX_ISSUE == MAX_QUERY == MAX_REQUEST_CHARS
    server = make_server(tracker_repo.database_url, "local")
    (result,) = call_tools(server, [("search_code", {"query": "q" * (MAX_REQUEST_CHARS + 1)})])
    assert result.is_error and "at most 65,536 allowed" in result.content[0].text
