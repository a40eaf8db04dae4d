"""The learned order of `locate` (retrieval/locate_ranker.py): its features read from locate's
own evidence on a real indexed repository, and a model trained on a small set made here, written
as JSON, loaded and applied to a long report (no length gate)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from lab.loc_learned import fit
from lab.ranker.locate_train import Recorder
from retrieval.locate import locate
from retrieval.locate_ranker import (
    FILE_FEATURES,
    FUNCTION_FEATURES,
    LearnedOrder,
    as_model,
    load_ranker,
    ranker_from,
)
from retrieval.path_roles import CODE, path_role
from retrieval.trees import Trees, flatten_tree
from tests.retrieval.indexing import fake_embedder, index_repository
from tests.retrieval.tracker_repo import (  # noqa: F401
    MODULES,
    REPORT,
    WORDS_REPORT,
    tracker_repo,
)

# a test suite in a folder `path_roles` does not list: only its content says it is one
CHECKS_PATH = "checks/header_checks.py"
CHECKS = '''import pytest

from tracker.parser import parse_header


@pytest.mark.parametrize("value", ["text", "latin-1 text"])
def test_a_header_value_of_a_message_is_text(value):
    """The header value of a message line, decoded once."""
    assert parse_header([f"Subject: {value}"]) == {"subject": value}
'''

# a report far longer than the 11 terms the learned ranker of search stops at
LONG_REPORT = (
    WORDS_REPORT
    + " Opening the inbox of a project with many issues, every notification, reply, export"
    " and timeline view fails the same way once a message carries a subject or a label."
)


@pytest.fixture
def tracker(tracker_repo):  # noqa: F811
    """(connection, the operator's scope over the tracker repository)."""
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    conn = connect(tracker_repo.database_url, autocommit=True)
    yield conn, resolve_scope(conn, ensure_operator(conn), ["tracker"])
    conn.close()


@pytest.fixture
def tracker_with_checks(settings_env, database_url, git_repo):
    """(connection, scope) over the tracker with a test suite under `checks/`."""
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    for path, text in {**MODULES, CHECKS_PATH: CHECKS}.items():
        git_repo.write(path, text)
    git_repo.commit("tracker with checks")
    index_repository(database_url, git_repo.path, "tracker", embedder=fake_embedder())
    conn = connect(database_url, autocommit=True)
    yield conn, resolve_scope(conn, ensure_operator(conn), ["tracker"])
    conn.close()


def _trained(part: str, feature: str) -> LearnedOrder:
    """A model fitted on lists whose gold candidate is the one `feature` marks (every other
    feature constant): deterministic, and it weighs that feature alone."""
    names = FILE_FEATURES if part == "files" else FUNCTION_FEATURES
    column = names.index(feature)
    rng = np.random.default_rng(3)
    lists = []
    for _ in range(30):
        x = np.zeros((8, len(names)))
        x[:, column] = rng.random(8)
        y = (x[:, column] == x[:, column].max()).astype(float)
        lists.append((x, y))
    return LearnedOrder(names, fit(lists, l2=1.0))


def test_recording_reads_the_features_of_locates_candidates_and_keeps_its_order(tracker):
    conn, scope = tracker
    recorder = Recorder()
    recorded = locate(conn, scope, REPORT, ranker=recorder)
    plain = locate(conn, scope, REPORT, ranker=None)
    assert [f.path for f in recorded.files] == [f.path for f in plain.files]
    assert [(f.path, u.symbol) for f, u in recorded.functions()] == [
        (f.path, u.symbol) for f, u in plain.functions()
    ]
    assert not recorded.learned_order

    assert recorder.file_x.shape == (len(recorder.file_paths), len(FILE_FEATURES))
    assert recorder.file_paths[0] == "tracker/parser.py"
    row = dict(zip(FILE_FEATURES, recorder.file_x[0], strict=True))
    assert row["evidence_score"] == 1.0 and row["evidence_rank"] == 0.0
    assert row["frame"] > 0 and row["path_named"] > 0 and row["name_in_report"] == 1.0
    tests = recorder.file_x[recorder.file_paths.index("tests/test_parser.py")]
    test_row = dict(zip(FILE_FEATURES, tests, strict=True))
    assert test_row["test"] == 1.0 and test_row["auxiliary"] == 1.0

    # every function of the located files, each file's own rank with it
    symbols = [c.symbol for c in recorder.candidates]
    assert "parse_header" in symbols and "split_header" in symbols
    assert recorder.function_x.shape == (len(symbols), len(FUNCTION_FEATURES))
    parse_row = recorder.function_x[symbols.index("parse_header")]
    parse = dict(zip(FUNCTION_FEATURES, parse_row, strict=True))
    assert parse["file_rank"] == 0.0 and parse["named"] > 0 and parse["name_in_report"] == 1.0


def test_the_text_depth_bounds_the_candidates_that_the_prose_brings(tracker):
    from retrieval.locate import WEIGHTS

    conn, scope = tracker
    shallow, deep = Recorder(), Recorder()
    locate(conn, scope, WORDS_REPORT, weights=replace(WEIGHTS, text_depth=1), ranker=shallow)
    locate(conn, scope, WORDS_REPORT, ranker=deep)
    text = FILE_FEATURES.index("text")
    assert np.count_nonzero(shallow.file_x[:, text]) == 1
    assert np.count_nonzero(deep.file_x[:, text]) > 1
    assert set(shallow.file_paths) < set(deep.file_paths)


def test_the_role_features_read_the_role_stored_from_the_files_content(tracker_with_checks):
    conn, scope = tracker_with_checks
    assert path_role(CHECKS_PATH) == CODE
    recorder = Recorder()
    report = locate(conn, scope, WORDS_REPORT, ranker=recorder)
    # locate itself ranks the file as a test (the role its content showed when indexed) ...
    assert {f.path: f.role for f in report.files}[CHECKS_PATH] == "test"
    # ... and so do the learned order's features
    row = {
        p: dict(zip(FILE_FEATURES, x, strict=True))
        for p, x in zip(recorder.file_paths, recorder.file_x, strict=True)
    }
    checks = row[CHECKS_PATH]
    assert checks["test"] == 1.0 and checks["auxiliary"] == 1.0
    assert checks["docs_example"] == 0.0 and checks["vendored"] == 0.0
    parser = row["tracker/parser.py"]
    assert parser["test"] == 0.0 and parser["auxiliary"] == 0.0


def test_a_trained_model_is_loaded_and_orders_a_long_report(tracker, tmp_path):
    conn, scope = tracker
    from core.terms import query_terms

    assert len(query_terms(LONG_REPORT)) > 11
    files = _trained("files", "test")
    functions = _trained("functions", "position")
    assert files.weights[FILE_FEATURES.index("test")] > 0
    assert np.count_nonzero(files.weights) == 1
    path = tmp_path / "model.json"
    path.write_text(json.dumps(as_model(files, functions, {"trained": "here"})))
    model = load_ranker(path)

    plain = locate(conn, scope, LONG_REPORT, ranker=None)
    learned = locate(conn, scope, LONG_REPORT, ranker=model)
    assert plain.files[0].path != "tests/test_parser.py"
    # the model says tests come first: the only test file leads, the rest keeps its order
    assert learned.files[0].path == "tests/test_parser.py"
    rest = [f.path for f in learned.files[1:]]
    assert rest == [f.path for f in plain.files if f.path != "tests/test_parser.py"][: len(rest)]
    # the functions: the last in its file first, over all the located files' functions
    assert learned.learned_order
    tests = learned.files[0]
    starts = [u.start_line for u in tests.functions]
    assert starts == sorted(starts, reverse=True)
    scores = [score for _, u, score in learned.units() if u is not None]
    assert scores == sorted(scores, reverse=True)


def test_trees_on_top_of_the_linear_score_are_stored_and_reorder_the_files(tracker, tmp_path):
    conn, scope = tracker
    # one tree: a test file gains 10 over the linear score, which is 0 for every file
    tree = flatten_tree(
        {
            "split_feature": FILE_FEATURES.index("test"),
            "threshold": 0.5,
            "decision_type": "<=",
            "left_child": {"leaf_value": 0.0},
            "right_child": {"leaf_value": 10.0},
        }
    )
    weights = np.zeros(len(FILE_FEATURES))
    path = tmp_path / "model.json"
    path.write_text(
        json.dumps(as_model(LearnedOrder(FILE_FEATURES, weights, Trees([tree])), None, {}))
    )
    model = load_ranker(path)
    assert model.files is not None and model.files.trees is not None
    assert len(model.files.trees) == 1

    plain = locate(conn, scope, LONG_REPORT, ranker=None)
    learned = locate(conn, scope, LONG_REPORT, ranker=model)
    assert plain.files[0].path != "tests/test_parser.py"
    assert learned.files[0].path == "tests/test_parser.py"
    # the same weights without the trees keep locate's order
    linear = ranker_from(as_model(LearnedOrder(FILE_FEATURES, weights), None, {}))
    assert linear.files is not None and linear.files.trees is None
    kept = locate(conn, scope, LONG_REPORT, ranker=linear)
    assert [f.path for f in kept.files] == [f.path for f in plain.files]


def test_a_model_of_other_features_says_to_retrain():
    model = as_model(None, LearnedOrder(("lines",), np.ones(1)), {})
    with pytest.raises(ValueError, match="retrain it"):
        ranker_from(model)
    with pytest.raises(ValueError, match="locate-ranker"):
        ranker_from({"kind": "trees"})
