"""Lexical retriever: BM25 over the inverted index of chunk terms (docs/lexical.md).

Document frequencies and lengths are those of the scope's repositories at their current
snapshots, summed over the scope. A term's postings are read best-first (by `impact`), at most a
budget in proportion to its weight (`TERM_BUDGET` for the query's rarest term: the words that
identify an answer are read further than the common ones), shared between repositories by their
document frequency; the best candidates are then scored exactly with every query term before the
visibility check.
"""

from __future__ import annotations

from typing import LiteralString

from core.database import Row
from core.sql_files import statement, statement_template
from core.terms import K1, B, query_terms, term_id
from retrieval.concurrency import Connections, run_concurrently
from retrieval.hits import CHUNK_TEXT_COLUMNS, OUTLINE_END
from retrieval.scope import DbConnection, Scope, visible_files_among

TERM_BUDGET = 4000  # postings read for the query's rarest term (all of a rarer term's)
UNSEEN_READS = 4  # postings read per repository of a term its statistics do not hold
RESCORE_FACTOR = 4  # candidates scored exactly per result asked for
MIN_CANDIDATES = 200  # and at least this many
# with spare connections, a scope of this many repositories is scored in `GROUPS` groups at once
GROUP_MIN_REPOSITORIES = 8
GROUPS = 2

BM25_QUERY = statement("lexical", "bm25_candidates")  # parameters: the file's header
_VISIBLE_SCORED = statement_template("lexical", "visible_scored")
_VISIBLE_CANDIDATES = visible_files_among("SELECT file_version_id FROM x")


def lexical_candidates(
    conn: DbConnection,
    scope: Scope,
    query: str,
    limit: int,
    connections: Connections | None = None,
    terms: dict[str, float] | None = None,
) -> list[Row]:
    """The best chunks by BM25, as candidate rows (see `CANDIDATE_COLUMNS`). Given spare
    `connections`, a scope of many repositories is scored in groups at the same time. `terms`
    (term -> query weight) replaces the query's own (`query_terms`) for a caller that chose
    them itself (retrieval/locate.py: the rarest words of a long bug report)."""
    terms = query_terms(query) if terms is None else terms
    if not terms or not scope.repositories:
        return []
    repos = sorted({r.repository_id for r in scope.repositories})
    candidates = max(MIN_CANDIDATES, limit * RESCORE_FACTOR)
    params = {
        "terms": [term_id(t) for t in terms],
        "weights": list(terms.values()),
        "repos": repos,
        "budget": TERM_BUDGET,
        "unseen": UNSEEN_READS,
        "candidates": candidates,
        "k1": K1,
        "b": B,
    }
    groups = (
        [repos[i::GROUPS] for i in range(GROUPS)]
        if connections is not None and len(repos) >= GROUP_MIN_REPOSITORIES
        else [repos]
    )
    scored = _best_of_groups(
        run_concurrently(
            conn,
            [
                lambda c, group=group: c.execute(BM25_QUERY, {**params, "read": group}).fetchall()
                for group in groups
            ],
            connections,
        ),
        candidates,
    )
    if not scored:
        return []
    # a second statement, so the planner sees how few candidates the visibility check gets;
    # only the candidates' files are looked up, also in one repository: joined whole, the
    # Linux kernel's file list (55,000 files) cost 30 of a lexical search's 55 ms (p50)
    return conn.execute(
        _VISIBLE_SCORED.format(
            visible_files=_VISIBLE_CANDIDATES, candidate_columns=CANDIDATE_COLUMNS
        ),
        {
            **scope.params(),
            "ids": [r["chunk_id"] for r in scored],
            "scores": [r["score"] for r in scored],
            "limit": limit,
        },
    ).fetchall()


def _best_of_groups(groups: list[list[Row]], candidates: int) -> list[Row]:
    """The rows one statement over all the groups' repositories returns: a chunk's postings are
    all in its own repository's group, so the best `candidates` by their partial sums are the
    best of each group's best, and they are ordered by their exact scores."""
    if len(groups) == 1:
        return groups[0]
    best = sorted(
        (row for group in groups for row in group), key=lambda r: (-r["partial"], r["chunk_id"])
    )
    return sorted(best[:candidates], key=lambda r: (-r["score"], r["chunk_id"]))


# what every retriever returns per chunk, so hits are assembled the same way
CANDIDATE_COLUMNS: LiteralString = (
    """
    c.id AS chunk_id, c.symbol_id, c.file_version_id, c.piece, c.piece_count, c.symbol_kind,
    c.qualified_name, c.start_line AS chunk_start, c.end_line AS chunk_end,
    s.start_line AS symbol_start, s.end_line AS symbol_end,
    f.repository, f.path, f.commit_sha, f.source,
"""
    + CHUNK_TEXT_COLUMNS
    + ","
    + OUTLINE_END
)
