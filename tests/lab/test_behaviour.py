"""lab.behaviour: scores split by question type, paired against the windows, and the windows'
hits read (edge hits, the question's words around the answer)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lab.baselines.bm25 import BM25, readme_tokens
from lab.baselines.windows import line_windows
from lab.behaviour import _coverage, _coverage_all, _edge_hits, by_type

QUERIES = [
    {"id": "b1", "type": "behavior", "query": "how", "gold": []},
    {"id": "b2", "type": "behavior", "query": "how", "gold": []},
    {"id": "i1", "type": "identifier", "query": "x", "gold": []},
]


def _result(lexical: dict, windows: dict) -> dict:
    return {
        "scores": {
            "codeatlas-lexical": {"first_hit_rank": lexical},
            "bm25-2048": {"first_hit_rank": windows},
        }
    }


def test_by_type_splits_behaviour_questions_from_the_rest_and_pairs_them() -> None:
    split = by_type(_result({"b1": 1, "b2": None, "i1": 2}, {"b1": 6, "b2": 2, "i1": 2}), QUERIES)
    assert split["behavior"]["queries"] == 2
    assert split["other"]["queries"] == 1
    lexical = split["behavior"]["systems"]["codeatlas-lexical"]
    assert lexical["recall@5"][0] == 0.5
    assert lexical["mrr@10"][0] == 0.5
    windows = split["behavior"]["systems"]["bm25-2048"]
    assert windows["mrr@10"][0] == (1 / 6 + 1 / 2) / 2
    delta = split["behavior"]["against_windows"]["codeatlas-lexical"]["recall@5"]
    assert delta[0] == 0.0  # one found only by each
    assert split["other"]["against_windows"]["codeatlas-lexical"]["mrr@10"][0] == 0.0


def test_a_window_touching_the_answer_by_a_line_is_an_edge_hit(tmp_path: Path) -> None:
    # the answer is the last line of the first window: a hit by the eval rules, not a strict one
    lines = [f"filler number {i}\n" for i in range(9)] + ["def refund_limit(): pass\n"]
    lines += ["def other(): pass\n"] * 10
    (tmp_path / "shop.py").write_text("".join(lines))
    windows = line_windows(tmp_path, 170, (".py",))
    assert (windows[0].start_line, windows[0].end_line) == (1, 10)
    bm25 = BM25([w.text for w in windows], tokens=readme_tokens)
    queries = [
        {
            "id": "q",
            "type": "behavior",
            "query": "how is the refund limit applied",
            "gold": [{"path": "shop.py", "start_line": 10, "end_line": 12}],
        }
    ]
    assert _edge_hits(queries, windows, bm25) == {
        "questions": 1,
        "recall@5": 1,
        "recall@5_half_overlap": 0,
    }


def test_coverage_weighs_the_questions_words_by_their_idf(tmp_path: Path) -> None:
    assert _coverage({"refund": 3.0, "the": 1.0}, "def refund(): the") == 1.0
    assert _coverage({"refund": 3.0, "the": 1.0}, "the") == 0.25
    text = '"""Refunds are capped by the limit."""\n' + "x = 1\n" * 30 + "def cap():\n    pass\n"
    (tmp_path / "shop.py").write_text(text)
    queries = [
        {
            "id": "q",
            "type": "behavior",
            "query": "refunds capped",
            "gold": [{"path": "shop.py", "start_line": 32, "end_line": 33}],
        }
    ]
    shares = _coverage_all(queries, tmp_path, Counter({"refunds": 1, "capped": 1}), 10)
    assert shares["gold"] == 0.0  # the answer's lines hold none of the question's words
    assert shares["file"] == 1.0  # its file's docstring holds them all
