"""The semantic retriever on a real indexed repository (fake embedder, real pgvector): nearest
chunks first, only for repositories on the asked model, nothing for a vector of the wrong size."""

from __future__ import annotations

from dataclasses import replace

from tests.retrieval.indexing import fake_embedder


def test_the_nearest_chunk_comes_first_and_distances_only_grow(conn, operator_scope):
    from retrieval.semantic import semantic_candidates

    embedder = fake_embedder()
    vector = embedder.embed_query("round an amount of money to whole cents")
    rows = semantic_candidates(conn, operator_scope, embedder.model_name, vector, 4)
    assert len(rows) == 4
    assert (rows[0]["path"], rows[0]["qualified_name"]) == ("shop/money.py", "round_cents")
    distances = [r["distance"] for r in rows]
    assert distances == sorted(distances) and 0 <= distances[0] < distances[-1]


def test_a_model_is_registered_with_its_dimensions(conn, operator_scope):
    from retrieval.semantic import model_dimensions

    assert model_dimensions(conn, fake_embedder().model_name) == 384
    assert model_dimensions(conn, "never-stored") is None


def test_nothing_is_searched_for_another_model_or_a_vector_of_the_wrong_size(conn, operator_scope):
    from retrieval.semantic import semantic_candidates

    embedder = fake_embedder()
    vector = embedder.embed_query("refund")
    assert semantic_candidates(conn, operator_scope, "other-model", vector, 5) == []
    assert semantic_candidates(conn, operator_scope, embedder.model_name, vector[:100], 5) == []
    nobody = replace(operator_scope, repositories=())
    assert semantic_candidates(conn, nobody, embedder.model_name, vector, 5) == []


def test_a_repository_on_another_model_is_left_out_of_the_scope(conn, operator_scope):
    from retrieval.semantic import semantic_candidates

    embedder = fake_embedder()
    [view] = operator_scope.repositories
    upgraded = replace(operator_scope, repositories=(replace(view, active_model="next-model"),))
    vector = embedder.embed_query("refund")
    assert semantic_candidates(conn, upgraded, embedder.model_name, vector, 5) == []
