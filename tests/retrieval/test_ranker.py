"""The learned ranker: its trees evaluated with numpy exactly as LightGBM lays them out, its
features computed from what the retrievers found, and hybrid search ordered by it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrieval.ranker import FEATURES, TreeEnsemble, as_model, flatten_tree, shipped_model


def _split(feature: str, threshold: float, left: dict, right: dict) -> dict:
    return {
        "split_feature": FEATURES.index(feature),
        "threshold": threshold,
        "decision_type": "<=",
        "left_child": left,
        "right_child": right,
    }


def _leaf(value: float) -> dict:
    return {"leaf_value": value}


def _dump(*trees: dict) -> dict:
    """What LightGBM's `Booster.dump_model()` gives, reduced to what the ranker reads."""
    return {
        "feature_names": list(FEATURES),
        "tree_info": [{"tree_structure": t} for t in trees],
    }


def test_trees_add_up_their_leaves_along_each_rows_path():
    deep = _split(
        "lexical_bm25_share",
        0.5,
        _leaf(-1.0),
        _split("path_test", 0.5, _leaf(2.0), _leaf(-3.0)),
    )
    model = TreeEnsemble(as_model(_dump(deep, _leaf(0.25)), {"trained": "test"}))
    x = np.zeros((3, len(FEATURES)))
    x[1, FEATURES.index("lexical_bm25_share")] = 0.9
    x[2, FEATURES.index("lexical_bm25_share")] = 0.9
    x[2, FEATURES.index("path_test")] = 1.0
    assert model.predict(x).tolist() == [-0.75, 2.25, -2.75]
    assert model.meta == {"trained": "test"}


def test_a_threshold_equal_to_the_value_goes_left_as_in_lightgbm():
    flat = flatten_tree(_split("pieces", 2.0, _leaf(1.0), _leaf(5.0)))
    model = TreeEnsemble({"features": list(FEATURES), "trees": [flat]})
    x = np.zeros((2, len(FEATURES)))
    x[:, FEATURES.index("pieces")] = [2.0, 2.0001]
    assert model.predict(x).tolist() == [1.0, 5.0]


def test_a_model_of_other_features_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="make train-ranker"):
        TreeEnsemble({"features": ["bm25"], "trees": []})


def test_the_shipped_model_reads_todays_features():
    model = shipped_model()
    assert model is not None, "retrieval/models/ranker.json is missing: make train-ranker"
    assert model.meta["sets"] and all(s.startswith("mined-") for s in model.meta["sets"])
    assert len(model.predict(np.zeros((4, len(FEATURES))))) == 4


def test_features_say_which_retrievers_found_each_hit(conn, operator_scope):
    from retrieval.search import candidates
    from tests.retrieval.test_search import _embed

    found = candidates(conn, operator_scope, "round_cents of an amount", embed_query=_embed)
    x = found.features()
    assert x.shape == (len(found.hits), len(FEATURES))
    top = next(i for i, h in enumerate(found.hits) if h.symbol == "round_cents")
    row = dict(zip(FEATURES, x[top], strict=True))
    assert row["symbol_found"] == 1.0 and row["named"] == 1.0
    assert row["lexical_found"] == 1.0 and row["lexical_rank"] >= 1
    assert row["is_function"] == 1.0 and row["path_test"] == 0.0
    assert row["query_identifiers"] == 1.0
    assert x[:, FEATURES.index("fused_rank")].tolist() == list(range(1, len(found.hits) + 1))


def test_hybrid_search_orders_its_hits_by_the_ranker(conn, operator_scope):
    from retrieval.search import search_code
    from tests.retrieval.test_search import _embed

    fused = search_code(conn, operator_scope, "refund", embed_query=_embed, ranker=None).hits
    assert len(fused) >= 2
    # a model that prefers the hit the fusion put last: its score grows with the fused rank
    last = _split("fused_rank", len(fused) - 0.5, _leaf(0.0), _leaf(1.0))
    model = TreeEnsemble(as_model(_dump(last), {}))
    learned = search_code(conn, operator_scope, "refund", embed_query=_embed, ranker=model).hits
    assert (learned[0].path, learned[0].symbol) == (fused[-1].path, fused[-1].symbol)
    assert [h.score for h in learned] == sorted((h.score for h in learned), reverse=True)
    assert json.dumps([h.contract() for h in learned])  # scores stay plain floats


def test_a_ranker_is_used_only_with_the_embedding_model_it_learned(conn, operator_scope):
    from retrieval.search import search_code
    from tests.retrieval.indexing import fake_embedder
    from tests.retrieval.test_search import _embed

    trained = TreeEnsemble(
        {"features": list(FEATURES), "meta": {"embedding_model": "some-other-model"}, "trees": []}
    )
    assert not trained.fits([fake_embedder().model_name])
    assert trained.fits(["some-other-model"])
    shipped = search_code(conn, operator_scope, "refund amount", embed_query=_embed).hits
    fused = search_code(conn, operator_scope, "refund amount", embed_query=_embed, ranker=None)
    model = shipped_model()
    if model is not None and not model.fits([fake_embedder().model_name]):
        assert [(h.path, h.symbol, h.score) for h in shipped] == [
            (h.path, h.symbol, h.score) for h in fused.hits
        ]
