"""Lexical terms: identifiers split and stemmed the same way for code and for questions."""

from __future__ import annotations

from core.terms import CONTEXT_WEIGHT, NAME_WEIGHT, chunk_document, query_terms, term_id


def test_identifiers_give_stemmed_parts_and_the_whole_name():
    assert query_terms("getPreferredLanguage") == {
        "get": 1.0,
        "prefer": 1.0,
        "languag": 1.0,
        "getpreferredlanguage": 1.0,
    }
    # snake_case and camelCase spellings of one name meet on the same whole term
    assert "getpreferredlanguage" in query_terms("get_preferred_language")


def test_questions_drop_stopwords_and_stem_plurals():
    terms = query_terms("How does the router match the locales of a request?")
    assert set(terms) == {"router", "match", "local", "request"}


def test_a_chunk_weights_its_own_name_above_its_text():
    doc = chunk_document(
        "def refund(order):\n    return order.total\n", "refund", "Shop.refund", "shop/billing.py"
    )
    # text (1) + name field; the enclosing class and the path are context
    assert doc.tf[term_id("refund")] == 1 + NAME_WEIGHT
    assert doc.tf[term_id("shop")] == 2 * CONTEXT_WEIGHT  # class Shop and folder shop/
    assert doc.tf[term_id("bill")] == CONTEXT_WEIGHT  # billing.py
    assert (
        doc.length == 6 + 1 + 4
    )  # def refund order return order total; refund; shop shop billing py


def test_the_enclosing_type_is_context_whatever_the_language_writes_between_the_names():
    body = "fn parse_userinfo(&mut self) {}\n"
    rust = chunk_document(body, "parse_userinfo", "Parser::parse_userinfo", "src/lib.rs")
    assert rust.tf[term_id("parser")] == CONTEXT_WEIGHT  # impl Parser, written `Parser::`
    cpp = chunk_document("void run() {}\n", "run", "net::Server::run", "src/main.cc")
    assert cpp.tf[term_id("server")] == cpp.tf[term_id("net")] == CONTEXT_WEIGHT
    ruby = chunk_document("def call(env)\nend\n", "call", "Rack::Utils.call", "lib/x.rb")
    assert ruby.tf[term_id("util")] == CONTEXT_WEIGHT
    # a name with nothing around it has no enclosing context (PHP's namespace is in its path)
    php = chunk_document("class Process {}\n", "Process", "App\\Process", "src/a.php")
    assert term_id("app") not in php.tf


def test_term_ids_are_stable_signed_64_bit_integers():
    assert term_id("zebra") == term_id("zebra")
    assert -(2**63) <= term_id("zebra") < 2**63


C_WITH_REPEATS = """static int ext4_map_blocks(handle_t *handle, struct inode *inode)
{
\tstruct ext4_map_blocks map; /* the inode's map: inode->i_blocks, 2 x inode */
\tif (!inode || inode->i_blocks == 0x10)
\t\treturn ext4_map_blocks(handle, inode) + ext4_map_blocks(NULL, NULL);
\treturn 0;
}
"""


def test_term_counts_are_those_of_the_terms_in_order():
    from collections import Counter

    from core.terms import text_term_counts, text_terms

    counts = text_term_counts(C_WITH_REPEATS)
    assert counts == Counter(text_terms(C_WITH_REPEATS))
    assert counts["inod"] == 8 and counts["ext4mapblocks"] == 4


def test_a_repeated_identifier_is_split_once_and_counted_each_time():
    # (64 KiB of `a.` was 32,768 identifiers split one by one; the counts are the same)
    assert query_terms("parse_header parse_header header") == {
        "pars": 2.0,
        "header": 3.0,
        "parseheader": 2.0,
    }


def test_a_request_s_64_kib_word_is_stemmed_and_hashed_without_being_kept_in_the_caches():
    from core import terms

    word = "x" * 65_536
    sizes = [terms._cached_stem.cache_info().currsize, terms._cached_term_id.cache_info().currsize]
    (term,) = query_terms(word)
    assert term == terms._stemmer.stemWord(word)
    assert term_id(term) == term_id(term)
    after = [terms._cached_stem.cache_info().currsize, terms._cached_term_id.cache_info().currsize]
    assert after == sizes
    # short words are cached as before
    terms.stem("refunds")
    assert terms._cached_stem.cache_info().currsize >= 1
