"""Regression guard: hybrid search on a slice of the eval set must not lose recall."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.guard import load_floor, measure
from benchmarks.scoring import EVAL_DIR


@pytest.mark.skipif(not EVAL_DIR.is_dir(), reason=f"the shared eval set is not at {EVAL_DIR}")
@pytest.mark.usefixtures("settings_env")
def test_hybrid_recall_at_5_stays_above_the_recorded_floor(
    database_url: str, tmp_path: Path
) -> None:
    floor = load_floor()
    result = measure(database_url, tmp_path)
    minimum = floor["recall@5"] - floor["margin"]
    assert result["queries"] >= 15, "the guard's slice of the eval set shrank"
    assert result["recall@5"] >= minimum, (
        f"hybrid Recall@5 on {result['packages']} fell to {result['recall@5']:.3f}"
        f" (floor {floor['recall@5']:.3f} - margin {floor['margin']}); if the drop is"
        " deliberate, re-record with `python -m benchmarks.guard --record`"
    )
