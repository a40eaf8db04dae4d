"""Group texts into provider-sized batches by item count and token budget."""

from __future__ import annotations

from collections.abc import Sequence


def plan_batches(
    lengths: Sequence[int], *, max_items: int, max_tokens: int, padded: bool = False
) -> list[list[int]]:
    """Split positions 0..n-1, in order, into batches within `max_items` and `max_tokens`.

    With `padded`, a batch costs its item count times its longest item (what a padded tensor
    holds); otherwise the sum of lengths (what a remote API bills). An item over the budget on
    its own still gets a batch of one, so nothing is ever dropped.
    """
    if max_items < 1 or max_tokens < 1:
        raise ValueError("max_items and max_tokens must be positive")
    batches: list[list[int]] = []
    current: list[int] = []
    total = longest = 0
    for position, length in enumerate(lengths):
        new_longest = max(longest, length)
        cost = (len(current) + 1) * new_longest if padded else total + length
        if current and (len(current) >= max_items or cost > max_tokens):
            batches.append(current)
            current, total, new_longest = [], 0, length
        current.append(position)
        total += length
        longest = new_longest
    if current:
        batches.append(current)
    return batches


def shortest_first(lengths: Sequence[int]) -> list[int]:
    """Positions ordered by length, so each padded batch holds texts of similar size."""
    return sorted(range(len(lengths)), key=lengths.__getitem__)
