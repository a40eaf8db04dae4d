"""`locate`: a bug report against a real indexed repository (git, tree-sitter, PostgreSQL)."""

from __future__ import annotations

import math

import pytest

from retrieval.locate import LocateWeights, locate
from tests.retrieval.tracker_repo import REPORT, WORDS_REPORT, tracker_repo  # noqa: F401


@pytest.fixture
def tracker(tracker_repo):  # noqa: F811
    """(connection, the operator's scope over the tracker repository)."""
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    conn = connect(tracker_repo.database_url, autocommit=True)
    yield conn, resolve_scope(conn, ensure_operator(conn), ["tracker"])
    conn.close()


def _paths(report) -> list[str]:
    return [f.path for f in report.files]


def test_a_report_with_a_stack_trace_and_a_quoted_path_ranks_the_faulty_file_first(tracker):
    conn, scope = tracker
    # the hand-set order (a shipped learned order may leave the tests out of the ten)
    report = locate(conn, scope, REPORT, ranker=None)
    paths = _paths(report)
    assert paths[0] == "tracker/parser.py"
    first = report.files[0]
    assert any(e.startswith("stack frame") for e in first.evidence)
    assert any(e.startswith("path named") for e in first.evidence)
    assert first.functions[0].symbol == "parse_header"
    parse_header = first.functions[0]
    assert (parse_header.start_line, parse_header.end_line) == (10, 18)
    # the tests and the vendored copy repeat the report's words, and still come after the code
    assert paths.index("tests/test_parser.py") > paths.index("tracker/inbox.py")
    assert paths.index("tracker/packages/textlib/headers.py") > paths.index("tracker/inbox.py")
    roles = {f.path: f.role for f in report.files}
    assert roles["tests/test_parser.py"] == "test"
    assert roles["tracker/packages/textlib/headers.py"] == "vendored"


def test_a_report_in_words_only_still_puts_the_code_above_its_tests_and_copies(tracker):
    conn, scope = tracker
    paths = _paths(locate(conn, scope, WORDS_REPORT))
    assert paths[0] == "tracker/parser.py"
    assert paths.index("tests/test_parser.py") > 1
    assert paths.index("tracker/packages/textlib/headers.py") > 1


def test_without_the_demotion_the_tests_would_outrank_the_code_on_words_alone(tracker):
    conn, scope = tracker
    # the hand-set order's demotion (a shipped learned order has its own weight for tests)
    flat = locate(conn, scope, WORDS_REPORT, weights=LocateWeights(auxiliary=1.0), ranker=None)
    demoted = locate(conn, scope, WORDS_REPORT, ranker=None)
    rank = {f.path: i for i, f in enumerate(flat.files)}
    assert rank["tests/test_parser.py"] < rank["tracker/inbox.py"]
    assert _paths(demoted).index("tests/test_parser.py") > _paths(demoted).index("tracker/inbox.py")


def test_a_report_that_names_a_test_file_gets_that_test_file_near_the_top(tracker):
    conn, scope = tracker
    report = locate(
        conn,
        scope,
        "tests/test_parser.py fails: test_parse_header_stops_at_the_blank_line_of_a_message"
        " is flaky on Windows line endings",
    )
    assert _paths(report)[0] == "tests/test_parser.py"
    assert report.files[0].role == "test"


def test_a_report_that_links_a_file_of_the_repository_puts_that_file_first(tracker):
    conn, scope = tracker
    words = "Every message with a header is stored twice: the inbox reads it again."
    linked = words + " See https://github.com/acme/tracker/blob/4f2a9c1/tracker/storage.py#L2"
    assert _paths(locate(conn, scope, words))[0] != "tracker/storage.py"
    report = locate(conn, scope, linked)
    assert _paths(report)[0] == "tracker/storage.py"
    assert "path named tracker/storage.py" in report.files[0].evidence


def test_at_least_ten_distinct_files_come_back_when_the_index_has_them(tracker):
    conn, scope = tracker
    for text in (REPORT, WORDS_REPORT, "decode"):
        paths = _paths(locate(conn, scope, text, limit_files=10))
        assert len(paths) == len(set(paths)) == 10


def test_an_empty_report_locates_nothing(tracker):
    conn, scope = tracker
    assert locate(conn, scope, "   \n").files == []


def test_the_functions_of_all_files_form_one_ranking_led_by_the_reported_function(tracker):
    conn, scope = tracker
    report = locate(conn, scope, REPORT)
    ranked = report.functions()
    assert (ranked[0][0].path, ranked[0][1].symbol) == ("tracker/parser.py", "parse_header")
    scores = [f.score * u.score for f, u in ranked]
    assert len(ranked) == sum(len(f.functions) for f in report.files)
    assert ranked[1][1].symbol in {"read_message", "split_header"} and scores[0] >= scores[-1]


def test_the_three_lookups_on_lent_connections_give_the_same_answer(tracker, tracker_repo):  # noqa: F811
    """As the MCP server runs it: paths, identifiers and prose looked up at the same time on
    pooled connections, and the same files, functions and evidence as one after another."""
    from contextlib import contextmanager

    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from retrieval.concurrency import spare_connections

    conn, scope = tracker
    lent: list[int] = []
    with ConnectionPool(
        tracker_repo.database_url, min_size=2, max_size=2, kwargs={"row_factory": dict_row}
    ) as pool:
        pool.wait()
        spare = spare_connections(pool)

        @contextmanager
        def counted():
            with spare() as other:
                if other is not None:
                    lent.append(other.info.backend_pid)
                yield other

        for text in (REPORT, WORDS_REPORT):
            alone = locate(conn, scope, text)
            together = locate(conn, scope, text, connections=counted)
            assert [f.as_dict() for f in together.files] == [f.as_dict() for f in alone.files]
            assert together.notes == alone.notes
    assert len(lent) == 4 and conn.info.backend_pid not in lent


def test_search_answers_a_pasted_report_with_locates_ranking_as_hits(tracker):
    from retrieval.search import search_code

    conn, scope = tracker
    located = locate(conn, scope, REPORT)
    found = search_code(conn, scope, REPORT, limit=10)
    first = found.hits[0]
    assert (first.path, first.symbol, first.start_line, first.end_line) == (
        "tracker/parser.py",
        "parse_header",
        10,
        18,
    )
    assert first.retrievers[0] == "locate" and "frame" in first.retrievers
    assert any("bug report" in note for note in found.notes)
    # the hits follow locate's functions and function-less files, in its order
    expected = [(f.path, u.symbol if u else None) for f, u, _ in located.units()][:10]
    assert [(h.path, h.symbol) for h in found.hits] == expected
    scores = [h.score for h in found.hits]
    assert scores == sorted(scores, reverse=True)
    # a file located without a function is one hit spanning the file's indexed lines
    bare = {h.path: h for h in search_code(conn, scope, REPORT, limit=30).hits if not h.symbol}
    assert (bare["docs/conf.py"].kind, bare["docs/conf.py"].end_line) == ("file", 2)
    # paged like any search
    second = search_code(conn, scope, REPORT, limit=3, offset=3)
    assert [(h.path, h.symbol) for h in second.hits] == expected[3:6]


def test_a_question_and_a_report_read_as_a_question_keep_the_fused_ranking(tracker):
    from retrieval.search import search_code

    conn, scope = tracker
    question = search_code(conn, scope, "where is a header value decoded from latin-1", limit=10)
    assert question.hits and all("locate" not in h.retrievers for h in question.hits)
    as_question = search_code(conn, scope, REPORT, limit=10, read_reports=False)
    assert as_question.hits and all("locate" not in h.retrievers for h in as_question.hits)
    lexical = search_code(conn, scope, REPORT, limit=10, mode="lexical")
    assert all("locate" not in h.retrievers for h in lexical.hits)


# a report in words that no indexed code uses: BM25, paths and identifiers find nothing in it
MEANING_REPORT = (
    "Badges appear indistinguishable\n"
    "Whenever badges coincide visually nobody recognises which badge means what. Expected"
    " recognisable tints."
)


def _stored_vector(conn, path: str) -> tuple[str, list[float]]:
    """(model, the stored vector of the first chunk of `path`)."""
    row = conn.execute(
        "SELECT e.embedding_model, e.embedding::text AS v FROM snapshot_files sf"
        " JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
        " JOIN chunk_embeddings e ON e.content_hash = c.content_hash"
        " WHERE sf.path = %s ORDER BY c.start_line LIMIT 1",
        (path,),
    ).fetchone()
    return row["embedding_model"], [float(x) for x in row["v"].strip("[]").split(",")]


def test_a_report_only_its_meaning_points_at_is_located_through_its_nearest_chunks(tracker):
    """The semantic lookup: the query embedder says the report means `label_colour`'s chunk
    (its stored vector); with it, that file and function lead, marked `meaning`."""

    conn, scope = tracker
    model, vector = _stored_vector(conn, "tracker/labels.py")
    asked: list[tuple[str, str]] = []

    def embed_query(m: str, text: str):
        asked.append((m, text))
        return vector if m == model else None

    with_meaning = LocateWeights(semantic=1.0)
    report = locate(conn, scope, MEANING_REPORT, weights=with_meaning, embed_query=embed_query)
    first = report.files[0]
    assert first.path == "tracker/labels.py" and "meaning" in first.evidence
    assert first.functions[0].symbol == "label_colour"
    assert "meaning" in first.functions[0].evidence
    assert asked == [(model, MEANING_REPORT)]  # the opening only: this report is short
    # without a query embedder, or at weight 0, the lookup does not run: nothing is found
    assert locate(conn, scope, MEANING_REPORT).files == []
    unweighted = locate(
        conn, scope, MEANING_REPORT, embed_query=embed_query, weights=LocateWeights(semantic=0.0)
    )
    assert all("meaning" not in f.evidence for f in unweighted.files)
    assert len(asked) == 1
    # a long report embeds its opening only
    locate(
        conn, scope, MEANING_REPORT + " more" * 2000, weights=with_meaning, embed_query=embed_query
    )
    assert len(asked[-1][1]) == 2000


def test_search_reads_a_pasted_report_by_its_meaning_too(tracker):
    """`search_code` hands its query embedder to `locate`: a report whose words no code uses is
    answered by the chunk its meaning points at, at the default weights, marked `semantic`."""
    from retrieval.search import search_code

    conn, scope = tracker
    model, vector = _stored_vector(conn, "tracker/labels.py")
    report = MEANING_REPORT + "\n" + " ".join(["Shades merge together everywhere."] * 4)

    def embed_query(m: str, _text: str):
        return vector if m == model else None

    found = search_code(conn, scope, report, limit=5, embed_query=embed_query)
    assert any("bug report" in note for note in found.notes)
    first = found.hits[0]
    assert (first.path, first.symbol) == ("tracker/labels.py", "label_colour")
    assert first.retrievers[0] == "locate" and "semantic" in first.retrievers
    assert not search_code(conn, scope, report, limit=5).hits  # no embedder: nothing to go on


# An app whose support module holds the words an issue template asks with: filed through the
# template, a report about the header parser would lead to it.
_TEMPLATE_APP = {
    "app/headers.py": (
        "def parse_header(lines):\n"
        "    headers = {}\n"
        "    for line in lines:\n"
        "        name, _, value = line.partition(':')\n"
        "        headers[name.lower()] = value.decode('latin-1')\n"
        "    return headers\n"
    ),
    "app/support.py": (
        "def describe_environment(os_name, browser, version):\n"
        '    """Describe the environment for a bug report: the operating system (macOS, Linux,\n'
        "    Windows), the browser (Chrome, Firefox) and the version; search the existing issues\n"
        '    and discussions first, and give steps to reproduce the behaviour."""\n'
        "    return f'{os_name} {browser} {version}'\n"
    ),
    "app/inbox.py": (
        "from app.headers import parse_header\n\n\n"
        "def read_message(raw):\n"
        "    head, _, body = raw.partition('\\n\\n')\n"
        "    return parse_header(head.split('\\n')), body\n"
    ),
}
_FILED_REPORT = """parse_header crashes on a header value that is already text
<!-- Before filing, search the existing issues and discussions. -->
### Describe the bug

The header value is decoded from latin-1 although it is already text.

### Steps to reproduce

<!-- Steps to reproduce the behaviour. -->

### Environment

- OS: macOS 14.2
- Browser: Chrome 120
- Version: 2.4.0

### Validations

- [x] I searched the existing issues and discussions
"""


def test_a_report_filed_through_an_issue_template_locates_as_its_own_words_do(
    settings_env, database_url, git_repo, monkeypatch
):
    from core.database import connect
    from retrieval import locate as locate_module
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from tests.retrieval.indexing import fake_embedder, index_repository

    for path, text in _TEMPLATE_APP.items():
        git_repo.write(path, text)
    git_repo.commit("app")
    index_repository(database_url, git_repo.path, "app", embedder=fake_embedder())
    with connect(database_url, autocommit=True) as conn:
        scope = resolve_scope(conn, ensure_operator(conn), ["app"])
        own_words = (
            "parse_header crashes on a header value that is already text\n\n"
            "The header value is decoded from latin-1 although it is already text."
        )
        filed = _paths(locate(conn, scope, _FILED_REPORT))
        assert filed[0] == "app/headers.py"
        assert filed == _paths(locate(conn, scope, own_words))
        # read with the template's words, the support module would lead
        monkeypatch.setattr(locate_module, "without_template", lambda text: text)
        assert _paths(locate(conn, scope, _FILED_REPORT))[0] == "app/support.py"


def test_the_titles_words_count_more_and_keep_their_place_among_the_chosen_terms(tracker):
    from retrieval.locate import report_terms

    conn, scope = tracker
    # every word here is as rare in the index as the title's `timeline`: by idf alone the
    # alphabet would choose among them
    text = (
        "The timeline comes back empty\n\n"
        "Seen after export_csv, display_name, label_colour and save_issue ran."
    )
    flat = report_terms(conn, scope, text, max_terms=3, title=0)
    titled = report_terms(conn, scope, text, max_terms=3, title=1)
    assert "timelin" not in flat.query_weights  # the stem
    assert titled.query_weights["timelin"] == pytest.approx(1 + math.log(2))
    assert all(w == 1.0 for t, w in titled.query_weights.items() if t != "timelin")
    # in words alone (no identifier to look up), when BM25 may read two terms: the title's
    # module leads only by the title's weight
    words = "The timeline comes back empty\n\nSeen after a csv export and a label colour change."
    titled_paths = _paths(locate(conn, scope, words, weights=LocateWeights(max_terms=2)))
    assert titled_paths[0] == "tracker/timeline.py"
    flat = locate(conn, scope, words, weights=LocateWeights(max_terms=2, title=0))
    assert "tracker/timeline.py" not in _paths(flat)[:2]
    # where the meaning lookup runs (it embeds the opening, title first), the words count the
    # title once: the same files as without the title's weight
    model, vector = _stored_vector(conn, "tracker/storage.py")

    def embed_query(m: str, text: str):
        return vector if m == model else None

    def located(title: float) -> list[str]:
        weights = LocateWeights(max_terms=2, title=title)
        return _paths(locate(conn, scope, words, weights=weights, embed_query=embed_query))

    assert located(1.0) == located(0.0)
    assert located(1.0)[0] != "tracker/timeline.py"
