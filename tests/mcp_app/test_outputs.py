"""The tools answer with retrieval's own records: each output schema is derived from the record
(a field added in `retrieval/` reaches the schema), and the wire carries the record's public
fields only, the same in the structured content and the text block."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, get_type_hints

import anyio
import jsonschema
import pytest
from pydantic import TypeAdapter

from retrieval.hits import CallSite, Definition, Hit, OutlineEntry, SymbolMatch, SymbolSource
from retrieval.locate import LocatedFile, LocatedFunction
from tests.mcp_app.conftest import call_tools, make_server, payload

# (tool, key of its answer holding the records, retrieval's record)
RECORDS = [
    ("search_code", "results", Hit),
    ("locate", "files", LocatedFile),
    ("search_symbols", "symbols", SymbolMatch),
    ("read_symbol", "symbols", SymbolSource),
    ("find_callers", "callers", CallSite),
    ("find_callers", "definitions", Definition),
    ("find_callees", "callees", CallSite),
    ("find_callees", "definitions", Definition),
    ("file_outline", "symbols", OutlineEntry),
]
INTERNAL_FIELDS = {"symbol_id", "file_version_id", "outline_end"}


def _output_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's published output schema (no database is needed to list tools)."""
    tools = anyio.run(make_server("", "local").list_tools)
    return {t.name: t.output_schema for t in tools}


@pytest.mark.parametrize(("tool", "key", "record"), RECORDS)
def test_each_tool_publishes_the_schema_of_retrievals_own_record(tool, key, record):
    schema = _output_schemas()[tool]
    reference = schema["properties"][key]["items"]["$ref"]
    published = schema["$defs"][reference.removeprefix("#/$defs/")]
    own = TypeAdapter(record).json_schema(mode="serialization")
    nested = own.pop("$defs", {})
    assert published == own
    assert all(schema["$defs"][name] == definition for name, definition in nested.items())


@pytest.mark.parametrize(("tool", "key", "record"), RECORDS)
def test_the_answer_types_name_retrievals_record_and_no_copy_of_it(tool, key, record):
    from mcp_app.tools import TOOLS

    [registered] = [t for t in TOOLS if t.name == tool]
    answer = get_type_hints(registered.fn)["return"]
    assert get_type_hints(answer)[key] == list[record]


def test_internal_fields_are_neither_published_nor_sent():
    schema = _output_schemas()["search_symbols"]["$defs"]["SymbolMatch"]
    public = {f.name for f in fields(SymbolMatch)} - INTERNAL_FIELDS
    assert set(schema["properties"]) == public
    match = SymbolMatch(
        "r", "a.py", 1, 2, "f", "f", "function", "def f()", "c", "commit", "exact", 1.0, 7, 8, 9
    )
    assert set(match.as_dict()) == public
    assert (match.symbol_id, match.file_version_id, match.outline_end) == (7, 8, 9)


def test_a_hit_without_a_preview_has_no_preview_key_and_the_schema_says_it_may_be_absent():
    hit = Hit("r", "a.py", 1, 2, None, "module", 0.5, ["lexical"], "c", "commit")
    assert "preview" not in hit.as_dict() and hit.as_dict()["symbol"] is None
    assert Hit(**{**hit.as_dict(), "preview": "def f():"}).as_dict()["preview"] == "def f():"
    published = _output_schemas()["search_code"]["$defs"]["Hit"]
    assert published["properties"]["preview"] == {"title": "Preview", "type": "string"}
    assert "preview" not in published["required"] and "symbol" in published["required"]


def test_located_records_always_carry_their_evidence_and_functions():
    schema = _output_schemas()["locate"]["$defs"]
    assert {"evidence", "functions"} <= set(schema["LocatedFile"]["required"])
    assert "evidence" in schema["LocatedFunction"]["required"]
    assert (
        TypeAdapter(LocatedFunction).json_schema(mode="serialization") == schema["LocatedFunction"]
    )


def test_every_answer_matches_its_schema_and_its_text_block(operator_server):
    calls = [
        ("search_code", {"query": "round cents invoice", "limit": 5}),
        ("locate", {"issue_text": "InvoiceBuilder.total rounds cents wrongly in shop/billing.py"}),
        ("search_symbols", {"name": "InvoiceBuilder.total"}),
        ("read_symbol", {"repository": "shop", "name": "round_cents"}),
        ("find_callers", {"repository": "shop", "name": "round_cents"}),
        ("find_callees", {"repository": "shop", "name": "InvoiceBuilder.render"}),
        ("file_outline", {"repository": "shop", "path": "shop/billing.py"}),
        ("index_status", {}),
        ("list_repositories", {}),
    ]
    schemas = _output_schemas()
    results = call_tools(operator_server, calls)
    answers: dict[str, Any] = {}
    for (tool, _args), result in zip(calls, results, strict=True):
        assert not result.is_error, (tool, result.content)
        answers[tool] = payload(result)
        jsonschema.validate(answers[tool], schemas[tool])
        assert json.loads(result.content[0].text) == answers[tool], tool
        assert not INTERNAL_FIELDS & _keys(answers[tool]), tool
    assert all(answers[tool][key] for tool, key, _record in RECORDS)  # each kind really sent


def _keys(value: Any) -> set[str]:
    """Every key of a JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_the_cli_json_of_a_record_is_what_agents_receive():
    from dataclasses import asdict

    from mcp_app.outputs import LocateResult

    function = LocatedFunction("parse", "function", 3, 9, 1.0, ["stack frame"])
    located = LocatedFile("r", "a.py", "c", "commit", "code", 2.0, ["path named"], [function])
    sent = TypeAdapter(LocateResult).dump_python({"files": [located]}, mode="json")
    assert located.as_dict() == sent["files"][0]
    # the internal file version (how search spans a function-less file) is never sent
    assert "file_version_id" in asdict(located) and "file_version_id" not in sent["files"][0]
