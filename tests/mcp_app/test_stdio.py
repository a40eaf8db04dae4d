"""The reply to each line the SDK's stdio transport cannot read, from the error its own parser
raises for that line: a parse error for text that is no JSON, an invalid request carrying the
request's id when it can be written back, and nothing for a notification."""

from __future__ import annotations

import pytest


def _refusal(line: str):
    """What `serve_stdio` answers for `line`, parsed as the SDK's stdio transport parses it."""
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    from mcp_app.stdio import refusal

    with pytest.raises(ValidationError) as raised:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    return refusal(raised.value)


def test_a_line_that_is_not_json_gets_a_parse_error_with_a_null_id():
    from mcp_app.stdio import PARSE_ERROR

    reply = _refusal("{this is not json")
    assert reply is not None and reply.id is None
    assert reply.error.code == PARSE_ERROR and "not JSON" in reply.error.message


@pytest.mark.parametrize("request_id", [7, "req-7"])
def test_a_lone_surrogate_in_an_argument_is_answered_with_the_requests_own_id(request_id):
    from mcp_app.stdio import INVALID_REQUEST

    line = (
        '{"jsonrpc": "2.0", "id": %s, "method": "tools/call",'
        ' "params": {"name": "search_code", "arguments": {"query": "a\\ud800b"}}}'
    ) % ('"req-7"' if request_id == "req-7" else "7")
    reply = _refusal(line)
    assert reply is not None and reply.id == request_id
    assert reply.error.code == INVALID_REQUEST and "lone surrogate" in reply.error.message
    assert "send valid UTF-8" in reply.error.message


def test_an_id_that_cannot_be_written_back_is_null():
    reply = _refusal('{"jsonrpc": "2.0", "id": "x\\udc00", "method": "ping"}')
    assert reply is not None and reply.id is None and "lone surrogate" in reply.error.message


def test_a_boolean_or_object_id_is_no_id():
    for line in (
        '{"jsonrpc": "2.0", "id": true, "method": "ping", "params": 3}',
        '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping", "params": 3}',
    ):
        reply = _refusal(line)
        assert reply is not None and reply.id is None
        assert "not a JSON-RPC 2.0 request" in reply.error.message


def test_a_well_formed_json_line_of_the_wrong_shape_is_an_invalid_request_with_its_id():
    reply = _refusal('{"jsonrpc": "1.0", "id": 3, "method": "ping"}')
    assert reply is not None and reply.id == 3
    assert "not a JSON-RPC 2.0 request, notification or response" in reply.error.message


def test_a_malformed_notification_gets_no_reply(caplog):
    assert _refusal('{"jsonrpc": "2.0", "method": "notifications/x", "params": "\\ud800"}') is None
    assert "ignored a malformed notification" in caplog.text


def test_an_error_that_is_no_validation_error_still_gets_a_reply():
    from mcp_app.stdio import INVALID_REQUEST, refusal

    reply = refusal(OSError("stdin broke"))
    assert reply is not None and reply.id is None and reply.error.code == INVALID_REQUEST
