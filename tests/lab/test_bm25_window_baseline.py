"""The BM25-window baseline is the eval READMEs' definition and reproduces their numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.eval_sets import EVAL_SETS, missing_tools
from benchmarks.scoring import Result, score_run
from lab.baselines.bm25 import BM25, readme_tokens
from lab.baselines.windows import line_windows


def test_readme_tokens_split_identifiers_into_lower_cased_words() -> None:
    assert readme_tokens("getHTTPHeader(user_id, 42)") == [
        "get",
        "http",
        "header",
        "user",
        "id",
        "42",
    ]


def test_line_windows_keep_whole_lines_up_to_the_size(tmp_path: Path) -> None:
    (tmp_path / "a.php").write_text("".join(f"line {i:03}\n" for i in range(10)))  # 9 chars each
    (tmp_path / "skip.txt").write_text("not a source file\n")
    windows = line_windows(tmp_path, 30, (".php",))
    assert [(w.start_line, w.end_line) for w in windows] == [(1, 3), (4, 6), (7, 9), (10, 10)]
    assert {w.path for w in windows} == {"a.php"}


@pytest.mark.parametrize("name", list(EVAL_SETS))
def test_bm25_over_line_windows_reproduces_the_readme_reference(name: str) -> None:
    from benchmarks.guard import cached_corpus

    eval_set = EVAL_SETS[name]
    if not eval_set.folder.is_dir():
        pytest.skip(f"the shared eval set is not at {eval_set.folder} (CODEATLAS_EVAL_DIR)")
    if missing_tools(eval_set):
        pytest.skip(f"fetching the {eval_set.language} corpus needs {missing_tools(eval_set)}")
    windows = line_windows(cached_corpus(eval_set), 2048, eval_set.source_suffixes)
    bm25 = BM25([w.text for w in windows], tokens=readme_tokens)
    queries = eval_set.queries()
    ranked = {
        q["id"]: [
            Result(windows[i].path, windows[i].start_line, windows[i].end_line)
            for i in bm25.top(q["query"], 10)
        ]
        for q in queries
    }
    scores = score_run(queries, ranked, lambda _result: 1)
    assert (scores["recall@5"], scores["tight@5"], scores["mrr@10"]) == eval_set.reference
