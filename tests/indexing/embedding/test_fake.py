"""The fake embedder: deterministic, unit length, and nearer for texts that share words."""

from __future__ import annotations

import math

from indexing.embedding.fake import FakeEmbedder, code_words


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_the_same_text_always_gets_the_same_vector() -> None:
    first, second = FakeEmbedder(), FakeEmbedder()
    text = "def isEligibleForRefund(order): return order.total > 0"
    assert first.embed_query(text) == second.embed_documents([text])[0]


def test_vectors_have_unit_length_and_the_configured_size() -> None:
    embedder = FakeEmbedder(dimensions=64)
    for vector in embedder.embed_documents(["parse_config_file(path)", "", "!!!"]):
        assert len(vector) == 64
        assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, rel_tol=1e-9)


def test_model_name_includes_the_dimensions() -> None:
    assert FakeEmbedder().model_name == "fake-hash-384"
    assert FakeEmbedder(dimensions=16).model_name == "fake-hash-16"


def test_identifiers_split_at_camel_and_snake_case() -> None:
    assert code_words("isEligibleForRefund") == [
        *("is", "eligible", "for", "refund"),
        "iseligibleforrefund",
    ]
    assert code_words("parse_HTTPHeader(x2)") == [
        *("parse", "http", "header"),
        "parse_httpheader",
        *("x", "2"),
        "x2",
    ]


def test_a_query_is_nearer_to_the_chunk_that_shares_its_words() -> None:
    embedder = FakeEmbedder()
    refund, upload = embedder.embed_documents(
        [
            "def is_eligible_for_refund(order):\n    return order.paid and not order.shipped",
            "def upload_avatar(user, image):\n    storage.save(user.id, resize(image))",
        ]
    )
    query = embedder.embed_query("is the order eligible for a refund")
    assert _cosine(query, refund) > _cosine(query, upload)


def test_count_tokens_counts_code_words() -> None:
    assert FakeEmbedder().count_tokens("getUserName") == 4  # get, user, name, getusername
