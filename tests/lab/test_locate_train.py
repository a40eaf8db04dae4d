"""The learned order's training rows (lab/ranker/locate_train.py): collected through `locate` at
each pair's parent commit, cached per split and language, and collected again only for pairs the
cache does not hold."""

from __future__ import annotations

import io

from lab import loc_fixes
from lab.ranker import locate_train
from retrieval.locate_ranker import FILE_FEATURES
from tests.lab.test_loc_fixes import mined  # noqa: F401


def test_rows_are_cached_and_a_larger_selection_collects_only_the_new_pairs(
    mined,  # noqa: F811
    database_url,
    tmp_path,
    monkeypatch,
):
    data, mirrors, _ = mined
    pairs = loc_fixes.load_pairs(["python"], "test", data=data)
    assert not loc_fixes.ensure_indexed(database_url, pairs, mirrors=mirrors)
    cache = tmp_path / "rows" / "test-python.pkl"
    collected: list[list[str]] = []
    real_collect = locate_train.collect

    def counted(url, chosen, **kwargs):
        collected.append([p.id for p in chosen])
        return real_collect(url, chosen, log=io.StringIO(), **kwargs)

    monkeypatch.setattr(locate_train, "collect", counted)

    first = locate_train._rows(database_url, pairs[:1], cache, refresh=False)
    assert [r.id for r in first] == ["a-header"]
    header = first[0]
    assert header.file_x.shape[1] == len(FILE_FEATURES)
    assert header.file_paths[0] == "tracker/parser.py" and header.file_labels[0] == 1.0
    assert header.function_labels.sum() == 1.0

    # the whole selection: the cached pair is not collected again; the pair whose gold file
    # is absent at its parent yields no row (and is tried again next time)
    rows = locate_train._rows(database_url, pairs, cache, refresh=False)
    assert [r.id for r in rows] == ["a-header", "b-badge"]
    assert collected == [["a-header"], ["b-badge", "c-new"]]
    assert (rows[0].file_x == header.file_x).all()

    # fitting from the cache reads every row collected so far
    assert [r.id for r in locate_train._cached(cache.parent, "test", ["python", "go"])] == [
        "a-header",
        "b-badge",
    ]
