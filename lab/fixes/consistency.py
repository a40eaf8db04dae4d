"""The consistency filter: a pair is kept for training when its query names what its positives
are, so a message that only says "fix the bug reported in #123" does not teach the ranker to
match nothing.

Informative terms are the query's words and identifier parts (split at case changes and
underscores) of at least three letters that are not English stop words nor the words every fix
message uses ("fix", "bug", "error", "issue", ...).

- strict (`consistency` in the records; train keeps only these): an informative term is a part
  of a positive's qualified name or of a changed file's path, or at least two distinct
  informative terms occur in the positives' code;
- lenient (reported for dev and test): an informative term occurs in a positive's name, path
  or code.

Dev and test keep every pair, with the flag: filtering them by words shared with the code would
favour exactly the lexical baseline they are used to compare against.
"""

from __future__ import annotations

from lab.fixes.functions import Function, term_bag, terms

_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "when",
        "then",
        "than",
        "are",
        "was",
        "were",
        "been",
        "being",
        "has",
        "have",
        "had",
        "not",
        "but",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "its",
        "it's",
        "our",
        "your",
        "their",
        "there",
        "here",
        "which",
        "what",
        "where",
        "who",
        "how",
        "why",
        "all",
        "any",
        "each",
        "some",
        "such",
        "only",
        "also",
        "just",
        "more",
        "most",
        "other",
        "same",
        "very",
        "too",
        "use",
        "used",
        "using",
        "uses",
        "add",
        "added",
        "adds",
        "adding",
        "make",
        "makes",
        "made",
        "new",
        "old",
        "now",
        "get",
        "gets",
        "got",
        "set",
        "sets",
        "one",
        "two",
        "does",
        "did",
        "doing",
        "done",
        "don",
        "instead",
        "still",
        "even",
        "like",
        "via",
        "per",
        "able",
        "about",
        "after",
        "before",
        "again",
        "against",
        "because",
        "between",
        "both",
        "during",
        "until",
        "while",
        "within",
        "without",
        "over",
        "under",
        "fix",
        "fixes",
        "fixed",
        "fixing",
        "bug",
        "bugs",
        "bugfix",
        "issue",
        "issues",
        "error",
        "errors",
        "problem",
        "problems",
        "wrong",
        "incorrect",
        "incorrectly",
        "correct",
        "correctly",
        "properly",
        "proper",
        "case",
        "cases",
        "crash",
        "crashes",
        "crashed",
        "regression",
        "fail",
        "fails",
        "failed",
        "failing",
        "failure",
        "broken",
        "break",
        "breaks",
        "work",
        "works",
        "working",
        "closes",
        "close",
        "closed",
        "resolve",
        "resolves",
        "resolved",
        "see",
        "ref",
        "refs",
        "pull",
        "request",
        "merge",
        "merged",
        "commit",
        "commits",
        "change",
        "changes",
        "changed",
        "update",
        "updates",
        "updated",
        "handle",
        "handles",
        "handled",
        "support",
        "supports",
        "test",
        "tests",
        "testing",
        "code",
        "file",
        "files",
        "function",
        "functions",
        "method",
        "methods",
        "value",
        "values",
        "return",
        "returns",
        "returned",
        "call",
        "calls",
        "called",
    ]
)


def informative_terms(query: str) -> set[str]:
    """The query's terms that can name code."""
    return {t for t in terms(query) if len(t) >= 3 and t not in _STOP and not t.isdigit()}


def consistency(query: str, positives: list[Function], files: list[str]) -> tuple[bool, bool]:
    """The (strict, lenient) verdicts for a query and its positives."""
    wanted = informative_terms(query)
    named = set()
    for function in positives:
        named.update(terms(function.symbol))
    for path in files:
        named.update(terms(path))
    code = set()
    for function in positives:
        code.update(term_bag(function.text))
    strict = bool(wanted & named) or len(wanted & code) >= 2
    lenient = bool(wanted & (named | code))
    return strict, lenient
