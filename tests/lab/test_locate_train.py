"""The learned order's training rows (lab/ranker/locate_train.py): collected through `locate` at
each pair's parent commit, cached per split and language, and collected again only for pairs the
cache does not hold."""

from __future__ import annotations

import io

import numpy as np
import pytest

from lab import loc_fixes
from lab.ranker import locate_train
from retrieval.locate_ranker import FILE_FEATURES
from tests.lab.test_loc_fixes import mined  # noqa: F401
from tests.retrieval.indexing import fake_embedder
from tests.retrieval.test_search import _embed


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
    assert [r.id for r in locate_train._cached([cache.parent], "test", ["python", "go"])] == [
        "a-header",
        "b-badge",
    ]
    # ... and refuses rows located with other weights than asked
    from dataclasses import replace

    from retrieval.locate import WEIGHTS

    deeper = replace(WEIGHTS, text_depth=WEIGHTS.text_depth + 1)
    with pytest.raises(SystemExit, match="other weights"):
        locate_train._cached([cache.parent], "test", ["python"], deeper)

    # the same pairs on the index with vectors: rows of their own, whose meaning is read
    embedder = fake_embedder()
    assert not loc_fixes.ensure_indexed(database_url, pairs, embedder=embedder, mirrors=mirrors)
    hybrid_cache = tmp_path / "hybrid" / "test-python.pkl"
    hybrid = locate_train._rows(
        database_url,
        pairs,
        hybrid_cache,
        refresh=False,
        mode="hybrid",
        embed_query=_embed,
    )
    assert [r.id for r in hybrid] == ["a-header", "b-badge"]
    meaning = FILE_FEATURES.index("meaning")
    assert all(r.file_x[:, meaning].max() > 0 for r in hybrid)
    assert all(r.file_x[:, meaning].max() == 0 for r in rows)
    # fitting reads both collections, and records their modes
    modes: set[str] = set()
    both = locate_train._cached(
        [cache.parent, hybrid_cache.parent], "test", ["python"], modes=modes
    )
    assert len(both) == 4 and modes == {"lexical", "hybrid"}
    # a cache of the other mode is collected again, not taken
    collected.clear()
    locate_train._rows(database_url, pairs[:1], hybrid_cache, refresh=False)
    assert collected == [["a-header"]]


def _synthetic_rows(seed: int, n: int) -> list[locate_train.PairRows]:
    """Pairs whose gold is the file where `frame` and `test` agree: named by a frame and a
    test, else, where no file is both, neither. No linear score ranks both kinds of pair (the
    gold of one would need a + b > 0, of the other 0 > a and 0 > b)."""
    rng = np.random.default_rng(seed)
    frame, test = FILE_FEATURES.index("frame"), FILE_FEATURES.index("test")
    rows = []
    for i in range(n):
        both = i % 2 == 0
        kinds = [(1, 1) if both else (0, 0), (1, 0), (0, 1), (1, 0), (0, 1), (1, 0)]
        if both:
            kinds.append((0, 0))
        x = rng.random((len(kinds), len(FILE_FEATURES))) * 0.1
        x[:, frame] = [k[0] for k in kinds]
        x[:, test] = [k[1] for k in kinds]
        order = rng.permutation(len(kinds))
        x = x[order]
        paths = [f"f{j}.py" for j in range(len(kinds))]
        gold = paths[int(np.flatnonzero(order == 0)[0])]
        rows.append(
            locate_train.PairRows(f"p{seed}-{i}", "python", x, paths, [gold], x[:0], [], [], 1)
        )
    return rows


def test_trees_on_top_of_the_linear_order_learn_what_it_cannot_and_are_kept_on_dev():
    pytest.importorskip("lightgbm", reason="pip install -e '.[bench]' installs LightGBM")
    train, dev = _synthetic_rows(1, 300), _synthetic_rows(2, 100)
    linear = locate_train.fit_order(train, "files", 1.0)
    assert linear is not None
    boosted = locate_train.fit_trees(train, dev, "files", linear)
    assert boosted is not None and boosted.trees is not None and len(boosted.trees) > 0

    def top1(order) -> float:
        return sum(locate_train.file_hits(r, order.score(r.file_x), k=1) for r in dev)

    assert top1(boosted) > top1(linear) + 20
    chosen, record = locate_train.choose(train, dev, log=io.StringIO())
    assert record["files"]["trees_kept"] and chosen["files"].trees is not None
    # --linear: the same choice without trees
    chosen, record = locate_train.choose(train, dev, log=io.StringIO(), trees=False)
    assert not record["files"]["trees_kept"]
