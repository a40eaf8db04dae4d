"""The symbol retriever on a real indexed repository: exact names (case-sensitive first), names
qualified by class or module, the language's own separators, similar names, and paging."""

from __future__ import annotations

import pytest


def _found(matches):
    return [(m.symbol, m.path, m.match, m.score) for m in matches]


def test_an_exact_name_matches_case_sensitively_before_insensitively(conn, operator_scope):
    from retrieval.symbols import exact_symbols

    assert _found(exact_symbols(conn, operator_scope, "round_cents")) == [
        ("round_cents", "shop/money.py", "exact", 1.0)
    ]
    assert _found(exact_symbols(conn, operator_scope, "ROUND_Cents")) == [
        ("round_cents", "shop/money.py", "exact-insensitive", 0.9)
    ]


def test_a_match_carries_its_definition_and_snapshot(conn, operator_scope, shop_repo):
    from retrieval.symbols import exact_symbols

    [match] = exact_symbols(conn, operator_scope, "InvoiceBuilder.add_line")
    assert (match.kind, match.signature) == ("method", "def add_line(self, sku, amount)")
    assert (match.start_line, match.end_line) == (20, 22)
    assert (match.repository, match.commit, match.source) == ("shop", shop_repo.sha, "commit")
    assert match.symbol_id > 0 and match.file_version_id > 0


@pytest.mark.parametrize(
    "asked", ["InvoiceBuilder::total", "InvoiceBuilder#total", "InvoiceBuilder->total()", "`total`"]
)
def test_other_languages_separators_and_call_syntax_name_the_same_definition(
    conn, operator_scope, asked
):
    from retrieval.symbols import exact_symbols

    assert [m.symbol for m in exact_symbols(conn, operator_scope, asked)] == [
        "InvoiceBuilder.total"
    ]


def test_a_module_qualified_name_is_a_suffix_match_of_the_files_path(conn, operator_scope):
    from retrieval.symbols import exact_symbols

    assert _found(exact_symbols(conn, operator_scope, "shop.money.round_cents")) == [
        ("round_cents", "shop/money.py", "suffix", 0.8)
    ]
    assert _found(exact_symbols(conn, operator_scope, "billing.InvoiceBuilder.total")) == [
        ("InvoiceBuilder.total", "shop/billing.py", "suffix", 0.8)
    ]
    # a qualifier that is neither the class nor the module names nothing
    assert exact_symbols(conn, operator_scope, "shipping.round_cents") == []


def test_similar_names_come_after_exact_ones_without_repeating_them(conn, operator_scope):
    from retrieval.symbols import search_symbols

    found = search_symbols(conn, operator_scope, "round_cents", limit=10)
    assert found[0].match == "exact"
    assert [m.match for m in found[1:]] == ["similar"] * (len(found) - 1)
    assert len({(m.path, m.start_line) for m in found}) == len(found)
    [typo] = [m for m in search_symbols(conn, operator_scope, "round_cent") if m.match == "similar"]
    assert typo.symbol == "round_cents" and 0 < typo.score < 1


def test_pages_of_symbols_follow_each_other_without_overlap(conn, operator_scope):
    from retrieval.symbols import search_symbols

    everything = search_symbols(conn, operator_scope, "total", limit=50)
    assert everything[0].symbol == "InvoiceBuilder.total"
    first = search_symbols(conn, operator_scope, "total", limit=1)
    rest = search_symbols(conn, operator_scope, "total", limit=49, offset=1)
    assert [m.symbol_id for m in first + rest] == [m.symbol_id for m in everything]


def test_nothing_is_found_for_an_empty_or_too_short_name_or_an_empty_scope(conn, operator_scope):
    from dataclasses import replace

    from retrieval.symbols import exact_symbols, search_symbols, similar_symbols

    assert exact_symbols(conn, operator_scope, "  ") == []
    assert similar_symbols(conn, operator_scope, "r") == []
    nobody = replace(operator_scope, repositories=())
    assert search_symbols(conn, nobody, "round_cents") == []


@pytest.mark.parametrize(
    ("query", "identifiers"),
    [
        ("round_cents", ["round_cents"]),
        ("Foo::bar()", ["Foo.bar"]),
        ("where is round_cents called from", ["round_cents"]),
        ("why does `total` differ from addLine()", ["total", "addLine"]),
        ("how is an invoice rendered", []),
        ("a.b c_d eF g_h i_j k_l m_n", ["a.b", "c_d", "eF", "g_h", "i_j"]),
    ],
)
def test_only_unmistakable_code_words_of_a_question_are_looked_up(query, identifiers):
    from retrieval.symbols import query_identifiers

    assert query_identifiers(query) == identifiers
