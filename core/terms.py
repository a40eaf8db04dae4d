"""Lexical terms of code and of questions, the same way on both sides (BM25, docs/lexical.md).

An identifier gives its parts (`getPreferredLanguage` -> get, prefer, languag), stemmed so that
"locales" meets `locale`, and, when it has several parts, the whole identifier lower-cased and
without underscores (`getpreferredlanguage`), so naming a symbol outweighs sharing its words.
A chunk's terms come from fields of different weight (BM25F): its own name, its context (the
qualified name's enclosing parts and the file path) and its text. Terms are stored as 64-bit
hashes, so indexing never races on a shared dictionary.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from dataclasses import dataclass

import snowballstemmer

# bump when the terms of the same chunk would differ: stored chunks are re-tokenized
LEXICAL_VERSION = "bm25f-4"

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_WORD_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_MIN_PART = 2
_MAX_TEXT = 200_000
_MAX_QUERY_TERMS = 32

# BM25's parameters (term-frequency saturation, length normalisation)
K1 = 1.2
B = 0.75
# field weights (chosen on the three public dev sets together, lab/quality.py)
NAME_WEIGHT = 3.0
CONTEXT_WEIGHT = 2.0
TEXT_WEIGHT = 1.0

# Words that carry no meaning in a question about code (English function words and the
# framing of questions); dropped from queries only, documents keep every term.
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

_stemmer = snowballstemmer.stemmer("english")


# words and terms longer than this are not kept in the caches below: a request's text may be one
# 64 KiB word, and 200,000 of those held would be gigabytes that no later request reads again
_CACHED_CHARS = 100


def stem(word: str) -> str:
    """The English (Porter2) stem of a lower-case word."""
    return _cached_stem(word) if len(word) <= _CACHED_CHARS else _stemmer.stemWord(word)


@functools.lru_cache(maxsize=200_000)
def _cached_stem(word: str) -> str:
    return _stemmer.stemWord(word)


def term_id(term: str) -> int:
    """The signed 64-bit hash a term is stored under."""
    return _cached_term_id(term) if len(term) <= _CACHED_CHARS else _term_hash(term)


@functools.lru_cache(maxsize=200_000)
def _cached_term_id(term: str) -> int:
    return _term_hash(term)


def _term_hash(term: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(term.encode(), digest_size=8).digest(), "big", signed=True
    )


def enclosing_name(qualified: str) -> str:
    """`Class` of `Class.method`, `Parser` of Rust's or C++'s `Parser::parse`, `Rack::Utils` of
    Ruby's `Rack::Utils.unescape`; empty for a top-level name."""
    head = re.sub(r"(?:\.|::)[^.:]+$", "", qualified)
    return "" if head == qualified else head


def identifier_terms(identifier: str) -> list[str]:
    """Stemmed parts of one identifier, plus the whole identifier when it has several parts."""
    return list(_identifier_terms(identifier))


# code repeats its identifiers: a chunk of the kernel names `page` or `inode` dozens of times;
# splitting and stemming each distinct one once took tokenizing fs/ext4's 3,637 chunks from 0.73
# to 0.49 CPU s (lab/results/kernel.md)
def _identifier_terms(identifier: str) -> tuple[str, ...]:
    if len(identifier) > _CACHED_CHARS:
        return _split_identifier(identifier)
    return _cached_identifier_terms(identifier)


@functools.lru_cache(maxsize=200_000)
def _cached_identifier_terms(identifier: str) -> tuple[str, ...]:
    return _split_identifier(identifier)


def _split_identifier(identifier: str) -> tuple[str, ...]:
    parts = [p.lower() for p in _WORD_PART.findall(identifier)]
    terms = [stem(p) for p in parts if len(p) >= _MIN_PART and not p.isdigit()]
    if len(parts) > 1:
        terms.append(identifier.replace("_", "").lower())
    return tuple(terms)


def word_stems(text: str) -> list[str]:
    """The stemmed word parts of a text in order, none dropped: "needs rehash" and `needsRehash`
    are both [need, rehash]."""
    return [stem(p.lower()) for p in _WORD_PART.findall(text)]


def text_terms(text: str) -> list[str]:
    """Terms of a text in order, with repeats (identifiers and words alike)."""
    terms: list[str] = []
    for identifier in _IDENTIFIER.findall(text[:_MAX_TEXT]):
        terms.extend(_identifier_terms(identifier))
    return terms


def text_term_counts(text: str) -> Counter[str]:
    """How often each term of `text` occurs: `Counter(text_terms(text))`, each distinct
    identifier split once."""
    counts: Counter[str] = Counter()
    for identifier, n in Counter(_IDENTIFIER.findall(text[:_MAX_TEXT])).items():
        for term in _identifier_terms(identifier):
            counts[term] += n
    return counts


@dataclass(frozen=True)
class LexicalDocument:
    """A chunk as BM25 sees it: field-weighted term frequencies and its length in terms."""

    tf: dict[int, float]
    length: int


def chunk_document(
    content: str, symbol_name: str | None, qualified_name: str | None, path: str
) -> LexicalDocument:
    """The weighted terms of one chunk: name, context (enclosing names and path) and text."""
    text = text_term_counts(content)
    name = Counter(text_terms(symbol_name or ""))
    enclosing = enclosing_name(qualified_name or "")
    context = Counter(text_terms(enclosing) + text_terms(path))
    weighted: dict[str, float] = {}
    for counts, weight in ((text, TEXT_WEIGHT), (name, NAME_WEIGHT), (context, CONTEXT_WEIGHT)):
        for term, count in counts.items():
            weighted[term] = weighted.get(term, 0.0) + weight * count
    length = sum(text.values()) + sum(name.values()) + sum(context.values())
    return LexicalDocument({term_id(t): w for t, w in weighted.items()}, max(length, 1))


def query_terms(query: str) -> dict[str, float]:
    """The terms of a question with their query weights (repeats count), stopwords dropped."""
    counts: Counter[str] = Counter()
    # each distinct identifier split once, its terms counted as often as it occurs (a pasted
    # log repeats its words; 64 KiB of `a.` was 32,768 identifiers split one by one)
    for identifier, n in Counter(_IDENTIFIER.findall(query[:_MAX_TEXT])).items():
        parts = [p.lower() for p in _WORD_PART.findall(identifier)]
        for part in parts:
            if len(part) >= _MIN_PART and not part.isdigit() and part not in STOPWORDS:
                counts[stem(part)] += n
        if len(parts) > 1:
            counts[identifier.replace("_", "").lower()] += n
    return {term: float(n) for term, n in counts.most_common(_MAX_QUERY_TERMS)}
