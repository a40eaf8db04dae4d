"""Bootstrap intervals of per-query metrics, alone and paired."""

from __future__ import annotations

from benchmarks.intervals import fmt_delta, found_within, interval, paired, reciprocal_rank


def test_an_interval_brackets_the_mean_and_narrows_with_more_questions():
    few = interval([1.0, 0.0] * 20)
    many = interval([1.0, 0.0] * 500)
    assert few[1] < 0.5 < few[2] and many[1] < 0.5 < many[2]
    assert few[0] == many[0] == 0.5
    assert many[2] - many[1] < few[2] - few[1]
    assert interval([1.0, 0.0] * 20) == few  # the seed is fixed


def test_a_paired_difference_is_starred_only_outside_noise():
    better = [1.0] * 30 + [0.0] * 10
    worse = [1.0] * 10 + [0.0] * 30
    mean, low, high = paired(better, worse)
    assert mean == 0.5 and low > 0
    assert fmt_delta(mean, low, high).endswith("*")
    assert not fmt_delta(*paired(better, better)).endswith("*")


def test_metric_terms_of_a_first_hit_rank():
    assert [reciprocal_rank(r) for r in (1, 4, 11, None)] == [1.0, 0.25, 0.0, 0.0]
    assert [found_within(5)(r) for r in (5, 6, None)] == [1.0, 0.0, 0.0]
