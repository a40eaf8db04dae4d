"""Batches within an item count and a token budget, padded (local model) or summed (APIs)."""

from __future__ import annotations

import pytest

from indexing.embedding.batching import plan_batches, shortest_first


def test_summed_budgets_split_where_the_next_text_would_pass_the_budget():
    assert plan_batches([3, 3, 3, 3], max_items=10, max_tokens=7) == [[0, 1], [2, 3]]


def test_padded_budgets_count_every_item_at_the_longest_length():
    # [1, 1, 5] costs 3 * 5 = 15 padded but 7 summed
    assert plan_batches([1, 1, 5], max_items=10, max_tokens=10, padded=True) == [[0, 1], [2]]
    assert plan_batches([1, 1, 5], max_items=10, max_tokens=10) == [[0, 1, 2]]


def test_the_item_limit_splits_batches_of_short_texts():
    assert plan_batches([1] * 5, max_items=2, max_tokens=100) == [[0, 1], [2, 3], [4]]


def test_a_text_over_the_budget_alone_still_gets_a_batch_of_its_own():
    assert plan_batches([2, 50, 2], max_items=10, max_tokens=10) == [[0], [1], [2]]


def test_every_position_is_batched_once_in_order():
    lengths = [7, 1, 30, 2, 2, 9, 64, 3]
    batches = plan_batches(lengths, max_items=3, max_tokens=40, padded=True)
    assert [p for batch in batches for p in batch] == list(range(len(lengths)))


def test_budgets_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        plan_batches([1], max_items=0, max_tokens=10)


def test_shortest_first_orders_positions_by_length_keeping_ties_in_order():
    assert shortest_first([5, 1, 3, 1]) == [1, 3, 2, 0]
