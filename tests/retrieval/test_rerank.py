"""The optional reranking stage: off by default, fused with the hybrid ranking when given."""

from __future__ import annotations

import json
from collections.abc import Sequence

import httpx


class PrefersCurrency:
    """A deterministic stand-in for a rerank model: currency first, rounding last."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        self.seen = list(passages)
        return [
            1.0 if "convert_currency" in p else -1.0 if "round_cents\n" in p else 0.0
            for p in passages
        ]


def test_without_a_reranker_search_is_the_plain_hybrid_ranking(conn, operator_scope):
    from retrieval.search import search_code

    plain = search_code(conn, operator_scope, "round money amount to cents", mode="lexical")
    again = search_code(
        conn, operator_scope, "round money amount to cents", mode="lexical", reranker=None
    )
    assert [h.symbol for h in plain.hits] == [h.symbol for h in again.hits]


def test_a_reranker_reads_each_hits_source_and_its_ranking_is_fused_with_the_hybrid_one(
    conn, operator_scope
):
    from retrieval.search import search_code

    query = "round money amount to cents"
    plain = [h.symbol for h in search_code(conn, operator_scope, query, mode="lexical").hits]
    reranker = PrefersCurrency()
    hits = search_code(conn, operator_scope, query, mode="lexical", reranker=reranker).hits
    reranked = [h.symbol for h in hits]
    assert sorted(map(str, reranked)) == sorted(map(str, plain))
    # second in the hybrid ranking and first in the reranker's, it passes the hybrid first,
    # which the reranker puts last
    assert plain[:2] == ["round_cents", "convert_currency"]
    assert reranked[0] == "convert_currency"
    assert reranked.index("round_cents") > 1
    passage = next(p for p in reranker.seen if "convert_currency" in p)
    assert passage.startswith("shop/money.py convert_currency\n")
    assert "return round_cents(amount * rate)" in passage


def test_a_rerank_service_is_called_with_the_question_and_the_passages():
    from retrieval.rerank import HttpReranker

    def service(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert request.url.path == "/rerank" and body["query"] == "refund"
        assert request.headers["authorization"] == "Bearer k"
        return httpx.Response(200, json=[{"index": 1, "score": 0.9}, {"index": 0, "score": 0.1}])

    reranker = HttpReranker("http://rerank.test", api_key="k")
    reranker._client = httpx.Client(
        base_url="http://rerank.test",
        headers={"Authorization": "Bearer k"},
        transport=httpx.MockTransport(service),
    )
    assert reranker.scores("refund", ["a", "b"]) == [0.1, 0.9]
