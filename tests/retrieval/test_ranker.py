"""The learned ranker: its trees evaluated with numpy exactly as LightGBM lays them out, its
features computed from what the retrievers found, and hybrid search ordered by it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrieval.ranker import (
    FEATURES,
    SHIPPED_MODEL,
    TreeEnsemble,
    as_model,
    load_model,
    shipped_model,
)
from retrieval.trees import flatten_tree


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


def test_a_written_model_loads_back(tmp_path):
    path = tmp_path / "ranker.json"
    path.write_text(json.dumps(as_model(_dump(_leaf(0.5)), {"sets": ["mined-go-train"]})))
    model = load_model(path)
    assert model.meta == {"sets": ["mined-go-train"]}
    assert model.predict(np.zeros((4, len(FEATURES)))).tolist() == [0.5] * 4


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


def test_outside_the_shipped_models_domain_hybrid_search_keeps_the_fused_order(
    conn, operator_scope
):
    """The shipped model read the local model's similarities; an index of another embedding
    model (here the fake one) is ranked in the fused order."""
    from retrieval.search import candidates, search_code
    from tests.retrieval.test_search import _embed

    found = candidates(conn, operator_scope, "refund amount", embed_query=_embed)
    assert not found.within(shipped_model())
    hits = search_code(conn, operator_scope, "refund amount", embed_query=_embed).hits
    assert [(h.path, h.symbol) for h in hits] == [(h.path, h.symbol) for h in found.hits[:10]]


def _last_first(hits: int, domain: dict) -> TreeEnsemble:
    """A model that puts the fused order's last hit first, inside `domain`."""
    last = _split("fused_rank", hits - 0.5, _leaf(0.0), _leaf(1.0))
    return TreeEnsemble(as_model(_dump(last), {}, domain=domain))


def test_a_model_orders_only_the_queries_inside_its_domain(conn, operator_scope):
    from retrieval.search import search_code
    from tests.retrieval.indexing import fake_embedder
    from tests.retrieval.test_search import _embed

    def order(query: str, model: TreeEnsemble | None) -> list[tuple[str, str | None]]:
        hits = search_code(conn, operator_scope, query, embed_query=_embed, ranker=model).hits
        return [(h.path, h.symbol) for h in hits]

    short = "refund"
    fused = order(short, None)
    inside = {"embedding_model": fake_embedder().model_name, "max_query_terms": 3}
    assert order(short, _last_first(len(fused), inside))[0] == fused[-1]
    # another embedding model's similarities: not the model's domain
    other = {**inside, "embedding_model": "all-MiniLM-L6-v2:ct2-int8-ctx256"}
    assert order(short, _last_first(len(fused), other)) == fused
    # unless the model was measured on this one's similarities too (a fine-tuned model)
    measured = {**other, "also_embedding_models": [fake_embedder().model_name]}
    assert order(short, _last_first(len(fused), measured))[0] == fused[-1]
    # a question longer than the training queries were
    long = "how is the refund amount of an order computed when it was partly shipped"
    fused_long = order(long, None)
    assert order(long, _last_first(len(fused_long), inside)) == fused_long
    # no semantic ranking at all (no query embedder): the model read similarities, so no
    plain = search_code(conn, operator_scope, short, ranker=None).hits
    model = _last_first(len(plain), inside)
    learned = search_code(conn, operator_scope, short, ranker=model).hits
    assert [(h.path, h.symbol) for h in learned] == [(h.path, h.symbol) for h in plain]


def test_a_long_questions_model_and_a_short_ones_each_order_only_their_own_queries(
    conn, operator_scope
):
    """Two models with adjoining domains (the short and the long questions'): the first whose
    domain holds a query orders it, the other never does."""
    from retrieval.search import candidates
    from tests.retrieval.indexing import fake_embedder
    from tests.retrieval.test_search import _embed

    shape = {"embedding_model": fake_embedder().model_name}
    short_model = _last_first(50, {**shape, "max_query_terms": 3})
    long_model = _last_first(50, {**shape, "min_query_terms": 4})
    short = candidates(conn, operator_scope, "refund", embed_query=_embed)
    long = candidates(
        conn,
        operator_scope,
        "how is the refund amount of an order computed when it was partly shipped",
        embed_query=_embed,
    )
    assert short.model_among([long_model, short_model]) is short_model
    assert long.model_among([short_model, long_model]) is long_model
    assert long.model_among([short_model]) is None


def test_the_prior_keeps_the_fused_order_where_the_trees_say_nothing():
    flat = TreeEnsemble(as_model(_dump(_leaf(0.0)), {}, prior=3.0))
    x = np.zeros((4, len(FEATURES)))
    x[:, FEATURES.index("fused_rank")] = [1, 2, 3, 4]
    scores = flat.predict(x)
    assert list(np.argsort(-scores)) == [0, 1, 2, 3]
    # a correction the size of the gap between ranks 1 and 2 (3 ln 2) is needed to swap them
    nudge = _split("fused_rank", 1.5, _leaf(0.0), _leaf(2.0))
    assert TreeEnsemble(as_model(_dump(nudge), {}, prior=3.0)).predict(x)[1] < scores[0]
    bigger = _split("fused_rank", 1.5, _leaf(0.0), _leaf(2.2))
    assert TreeEnsemble(as_model(_dump(bigger), {}, prior=3.0)).predict(x)[1] > scores[0]


def test_the_shipped_model_loads_with_its_domain_and_provenance():
    model = shipped_model()
    assert model.prior > 0
    assert model.embedding_model and model.max_query_terms
    assert model.meta["sets"] and all(
        s.startswith("mined-") and s.endswith("-train") for s in model.meta["sets"]
    )
    assert model.predict(np.ones((2, len(FEATURES)))).shape == (2,)
    assert SHIPPED_MODEL.stat().st_size < 256 * 1024  # small enough to ship in the wheel
    # and it applies to the two fine-tuned models it was measured on, by their default folders'
    # names (lab/ranker/finetune.py: `train` and `interpolate`)
    from lab.ranker.finetune import HALF_MODEL, PACKAGED_MODEL, TUNED_MODEL

    assert model.embedding_model == PACKAGED_MODEL
    assert model.also_embedding_models == [TUNED_MODEL, HALF_MODEL]
