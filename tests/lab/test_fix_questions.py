"""Long questions from mined fixes (lab/ranker/fix_questions.py): a fix's message read as a
question, asked through search's own candidates at the fix's parent commit, and labelled by the
functions the fix changed."""

from __future__ import annotations

from lab import loc_fixes
from lab.ranker.fix_questions import MIN_TERMS, collect, question_of
from tests.lab.test_loc_fixes import mined  # noqa: F401
from tests.retrieval.indexing import fake_embedder
from tests.retrieval.test_search import _embed


def test_a_question_is_the_title_and_the_first_paragraph_on_one_line():
    message = (
        "Decode header values once\n\nThe parser decoded every header value from latin-1 even"
        " when the splitter had already returned text, so subjects came out garbled.\n\n"
        "Closes #12"
    )
    question = question_of(message)
    assert question is not None and "\n" not in question
    assert question.startswith("Decode header values once The parser decoded")
    assert "Closes" not in question
    # too short to be beyond the short questions' model, or a list of changes only
    assert question_of("Fix typo") is None
    assert question_of("Fix typo\n\n* rename a variable\n* reword a docstring") is None
    # a pasted report is `locate`'s, not search's
    trace = "Traceback (most recent call last):\n" + '  File "a.py", line 3, in f\n' * 20
    assert question_of("Crash when decoding a header value of a message\n\n" + trace) is None
    assert MIN_TERMS == 12


def test_rows_are_searchs_candidates_labelled_by_the_changed_functions(
    mined,  # noqa: F811
    database_url,
):
    data, mirrors, _ = mined
    pairs = loc_fixes.load_pairs(["python"], "test", data=data)
    assert not loc_fixes.ensure_indexed(
        database_url, pairs, embedder=fake_embedder(), mirrors=mirrors
    )
    rows = collect(database_url, pairs, _embed)
    # the header fix reads as a question; the badge's and the new file's are too short
    assert [r.query_id for r in rows] == ["a-header"]
    header = rows[0]
    assert header.set_name == "fixes-python"
    assert header.features.shape[0] == len(header.labels) > 1
    assert header.labels.max() == 2  # parse_header, the function the fix changed
