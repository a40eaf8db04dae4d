"""Regression guard: hybrid search on a slice of each eval set (Python, PHP, TypeScript) must
not lose Recall@5 or tight@5."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.eval_sets import EVAL_SETS, missing_tools
from benchmarks.guard import load_floor, measure, shortfalls


@pytest.mark.parametrize("name", list(EVAL_SETS))
@pytest.mark.usefixtures("settings_env")
def test_hybrid_quality_stays_above_the_recorded_floor(
    name: str, database_url: str, tmp_path: Path
) -> None:
    eval_set = EVAL_SETS[name]
    if not eval_set.folder.is_dir():
        pytest.skip(f"the shared eval set is not at {eval_set.folder} (CODEATLAS_EVAL_DIR)")
    if missing_tools(eval_set):
        pytest.skip(f"fetching the {eval_set.language} corpus needs {missing_tools(eval_set)}")
    floor = load_floor(eval_set)
    if floor is None:
        pytest.skip(
            f"no floor recorded for the {name} set"
            f" (python -m benchmarks.guard --record --sets {name})"
        )
    result = measure(database_url, tmp_path, eval_set)
    assert result["queries"] >= 15, f"the guard's slice of the {name} set shrank"
    below = shortfalls(result, floor)
    assert not below, (
        f"hybrid search on the {eval_set.language} slice {result['prefixes']} fell:"
        f" {'; '.join(below)}; if the drop is deliberate, re-record with"
        " `python -m benchmarks.guard --record`"
    )
