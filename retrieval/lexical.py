"""Lexical retriever: `ts_rank_cd` over `code_chunks.tsv`, with the query tokenized the same
code-aware way as the stored vectors (`codeatlas_code_words` in sql/001_schema.sql)."""

from __future__ import annotations

import re
from typing import LiteralString

from retrieval.scope import VISIBLE_FILES, DbConnection, Scope

# Words that carry no meaning in a question about code (English function words and the
# framing of questions); dropping them lets an OR query rank by the words that matter.
_STOPWORDS_TEXT = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    either else ever every few for from further had has have having he her here hers him his
    how i if in into is it its itself just let like may me might more most much must my no nor
    not now of off on once only or other our ours out over own same shall she should so some
    such than that the their theirs them then there these they this those though through to too
    under until up upon us very via was we were what whatever when where whether which while who
    whom whose why will with within without would yet you your yours actually anything
    something someone thing things way ways happen happens happened instead still already really
    want wants need needs code function functions method methods class classes"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_MIN_WORD = 2
_MAX_TERMS = 32
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "es", "ed", "s")


def code_words(text: str) -> str:
    """Python twin of the SQL `codeatlas_code_words`: identifiers split into their parts."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return re.sub(r"[^A-Za-z0-9]+", " ", text)


def _stem(word: str) -> str:
    """A light suffix strip, so `parsing`/`parsed` reach `parse`/`parser` by prefix match."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def query_terms(query: str) -> list[str]:
    """The tsquery terms of a query: identifier parts and whole identifiers, stopwords dropped."""
    terms: list[str] = []
    whole = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", query.replace("_", ""))]
    parts = code_words(query).lower().split()
    for word in parts + whole:
        if len(word) < _MIN_WORD or word in STOPWORDS or word.isdigit():
            continue
        if word not in terms:
            terms.append(word)
    return terms[:_MAX_TERMS]


def build_tsquery(query: str) -> str | None:
    """An OR tsquery (prefix-matched stems) for `to_tsquery('simple', ...)`, or None if empty."""
    alternatives: list[str] = []
    for term in query_terms(query):
        stem = _stem(term)
        item = f"{stem}:*" if len(stem) >= 3 else term
        if item not in alternatives:
            alternatives.append(item)
    # only [a-z0-9] reach here, so the string is a well-formed tsquery
    return " | ".join(alternatives) or None


def lexical_candidates(conn: DbConnection, scope: Scope, query: str, limit: int) -> list[dict]:
    """The best chunks by cover density, as candidate rows (see `CANDIDATE_COLUMNS`)."""
    tsquery = build_tsquery(query)
    if tsquery is None or not scope.repositories:
        return []
    sql = (
        f"WITH {VISIBLE_FILES}, q AS (SELECT to_tsquery('simple', %(tsq)s) AS q)"
        f" SELECT {CANDIDATE_COLUMNS}, ts_rank_cd(c.tsv, q.q, 1) AS rank"
        " FROM files f JOIN code_chunks c ON c.file_version_id = f.file_version_id"
        " LEFT JOIN code_symbols s ON s.id = c.symbol_id CROSS JOIN q"
        " WHERE c.tsv @@ q.q ORDER BY rank DESC, c.id LIMIT %(limit)s"
    )
    return conn.execute(sql, {**scope.params(), "tsq": tsquery, "limit": limit}).fetchall()


# what every retriever returns per chunk, so hits are assembled the same way
CANDIDATE_COLUMNS: LiteralString = """
    c.id AS chunk_id, c.symbol_id, c.file_version_id, c.piece_count, c.symbol_kind,
    c.qualified_name, c.start_line AS chunk_start, c.end_line AS chunk_end,
    s.start_line AS symbol_start, s.end_line AS symbol_end,
    f.repository, f.path, f.commit_sha, f.source, left(c.content, 400) AS head
"""
