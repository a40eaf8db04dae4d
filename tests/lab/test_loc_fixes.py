"""The mined-fix localisation harness (lab/loc_fixes.py) on a real repository with two
commits: each pair searched at its own parent, scored against the files and functions it
changed, `locate` against BM25 over functions, paired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab import loc_fixes
from lab.loc_gold import GoldFunction
from lab.loc_metrics import FoundFunction
from tests.conftest import GitRepo
from tests.retrieval.tracker_repo import MODULES, PARSER

LABELS = "def label_colour(label):\n    return hash(label) % 0xFFFFFF\n"
LABELS_2 = (
    LABELS + "\n\ndef label_badge(label, colour):\n"
    '    """The badge of a label: its colour as a hex string beside its name."""\n'
    '    return f"{label} #{colour:06x}"\n'
)


def _pair(pair_id: str, parent: str, query: str, files: list[str], positives: list) -> dict:
    return {
        "id": pair_id,
        "repo": "acme/tracker",
        "language": "python",
        "split": "test",
        "commit": "0" * 40,
        "parent": parent,
        "query": query,
        "files": files,
        "positives": [
            {"path": p, "symbol": s, "kind": "function", "start_line": a, "end_line": b}
            for p, s, a, b in positives
        ],
        "negatives": [],
        "touches_tests": True,
        "consistency": 1.0,
    }


@pytest.fixture
def mined(tmp_path: Path, settings_env: Path) -> tuple[Path, Path, list[str]]:
    """(the pairs' folder, the mirrors' folder, the two parent commits) of a tracker
    repository with two commits, each the parent of one mined fix."""
    repo = GitRepo(tmp_path / "mirrors" / "acme+tracker" / "repo")
    for path, text in MODULES.items():
        repo.write(path, text)
    first = repo.commit("tracker")
    repo.write("tracker/labels.py", LABELS_2)
    second = repo.commit("label badges")
    data = tmp_path / "fixes"
    (data / "python").mkdir(parents=True)
    parse_header = PARSER.splitlines().index("def parse_header(lines):") + 1
    pairs = [
        _pair(
            "a-header",
            first,
            "Fix parse_header: the header value of a message is decoded from latin-1 although"
            " split_header already returns text",
            ["tracker/parser.py"],
            [("tracker/parser.py", "parse_header", parse_header, parse_header + 8)],
        ),
        _pair(
            "b-badge",
            second,
            "label badge shows the colour without its leading zeros in the hex string",
            ["tracker/labels.py"],
            [("tracker/labels.py", "label_badge", 5, 7)],
        ),
        # the fix adds the file it changes: nothing at the parent to find
        _pair("c-new", first, "add a new exporter", ["tracker/new.py"], []),
        _pair("d-train", first, "a training pair", ["tracker/cli.py"], []) | {"split": "train"},
    ]
    (data / "python" / "acme+tracker.jsonl").write_text(
        "".join(json.dumps(p) + "\n" for p in pairs)
    )
    return data, tmp_path / "mirrors", [first, second]


def test_pairs_are_searched_at_their_parents_and_scored_against_what_the_fix_changed(
    mined, database_url
):
    data, mirrors, parents = mined
    pairs = loc_fixes.load_pairs(["python"], "test", data=data)
    assert [p.id for p in pairs] == ["a-header", "b-badge", "c-new"]  # the test split only

    failed = loc_fixes.ensure_indexed(database_url, pairs, mirrors=mirrors)
    assert not failed
    from core.database import connection

    with connection(database_url) as conn:
        stored = conn.execute(
            "SELECT count(DISTINCT s.commit_sha) AS snapshots, count(*) AS listed,"
            " count(DISTINCT sf.file_version_id) AS versions FROM snapshots s"
            " JOIN snapshot_files sf ON sf.snapshot_id = s.id WHERE s.status = 'ready'"
        ).fetchone()
    # both parents are snapshots; the second stores only the one file its commit changed
    assert stored["snapshots"] == 2
    assert stored["versions"] == stored["listed"] // 2 + 1

    measured = loc_fixes.measure(database_url, pairs, ["locate", "bm25-functions"], mirrors=mirrors)
    per = measured["pairs"]
    assert sorted(per) == ["a-header", "b-badge"]
    assert measured["dropped"] == {"python: gold file absent": 1}
    header = per["a-header"]["locate"]
    assert header["file_acc@5"] == 1.0 and header["file_mrr@10"] == 1.0
    assert header["func_acc@10"] == 1.0
    # the second pair is found in the second snapshot, where its function exists
    assert per["b-badge"]["locate"]["func_acc@10"] == 1.0
    assert per["b-badge"]["bm25-functions"]["func_acc@10"] == 1.0

    # a model of locate's own file order (its evidence score alone, no function part) beside
    # locate in the hand-set order: the same files and functions
    import numpy as np

    from retrieval.locate_ranker import FILE_FEATURES, LearnedOrder, LocateRanker

    weights = np.asarray([float(f == "evidence_score") for f in FILE_FEATURES])
    own_order = LocateRanker(LearnedOrder(FILE_FEATURES, weights))
    both = loc_fixes.measure(
        database_url,
        pairs,
        ["locate", "locate-learned"],
        mirrors=mirrors,
        ranker=own_order,
        locate_ranker=None,
    )["pairs"]
    for record in both.values():
        assert record["locate-learned"]["top_files"] == record["locate"]["top_files"]
        for metric in loc_fixes.METRICS:
            assert record["locate-learned"][metric] == record["locate"][metric]

    summary = loc_fixes.summarise(per, ["locate", "bm25-functions"])
    python = summary["languages"]["python"]
    assert python["n"] == 2
    mean, low, high = python["minus_bm25"]["locate"]["file_acc@5"]
    assert low <= mean <= high
    text = loc_fixes.markdown(
        summary,
        {
            "split": "test",
            "mode": "lexical",
            "finished": "now",
            "machine": "here",
            "command": "python -m lab.loc_fixes",
            "dropped": measured["dropped"],
        },
    )
    assert "| python | 2 | locate − bm25-functions |" in text


def test_reciprocal_ranks_count_the_first_gold_file_and_function_within_ten():
    assert loc_fixes.file_rank_score(["a", "b", "a", "c"], ["c"]) == pytest.approx(1 / 3)
    assert loc_fixes.file_rank_score([f"f{i}" for i in range(12)], ["f11"]) == 0.0
    gold = [GoldFunction("a.py", "g", 10, 20)]
    found = [FoundFunction("a.py", "f", 1, 5), FoundFunction("a.py", None, 15, 30)]
    assert loc_fixes.function_rank_score(found, gold) == 0.5


def test_a_language_without_mined_pairs_says_what_to_run(tmp_path):
    with pytest.raises(SystemExit, match="run the miner first"):
        loc_fixes.load_pairs(["cobol"], "test", data=tmp_path)


def test_a_run_against_an_earlier_one_is_paired_by_pair_per_system_and_language(tmp_path):
    def record(language: str, hit: float) -> dict:
        scores = {m: hit for m in loc_fixes.METRICS}
        return {"language": language, "repo": "o/r", "locate": {**scores, "seconds": 0.1}}

    earlier = tmp_path / "before.json"
    before = {"go@1": record("go", 0.0), "go@2": record("go", 1.0), "py@1": record("python", 1.0)}
    before["gone@1"] = record("go", 0.0)  # not measured now: left out of the pairing
    earlier.write_text(json.dumps({"pairs": before}))
    now = {"go@1": record("go", 1.0), "go@2": record("go", 1.0), "py@1": record("python", 0.0)}

    result = loc_fixes.against(now, earlier)
    assert result["run"] == "before.json"
    go = result["languages"]["go"]["locate"]
    assert go["n"] == 2 and go["file_acc@5"][0] == 0.5
    overall = result["languages"]["all"]["locate"]
    assert overall["n"] == 3 and abs(overall["func_acc@10"][0]) < 1e-9
    summary = loc_fixes.summarise(now, ["locate"])
    summary["against"] = result
    meta = {"split": "test", "mode": "lexical", "finished": "now", "machine": "here"}
    text = loc_fixes.markdown(summary, {**meta, "command": "x", "dropped": {}})
    assert "## Minus the same system of before.json (paired by pair)" in text
    assert "| go | 2 | locate | +0.500" in text


def test_a_lexical_index_gains_its_vectors_when_a_hybrid_run_reaches_it(mined, database_url):
    from core.database import connection
    from tests.retrieval.indexing import fake_embedder

    data, mirrors, _ = mined
    pairs = loc_fixes.load_pairs(["python"], "test", data=data, repos=["acme/tracker"])
    assert [p.id for p in pairs] == ["a-header", "b-badge", "c-new"]
    assert loc_fixes.load_pairs(["python"], "test", data=data, repos=["acme/other"]) == []
    assert not loc_fixes.ensure_indexed(database_url, pairs, mirrors=mirrors)

    def vectors() -> tuple[int, str | None, list[bool]]:
        with connection(database_url) as conn:
            stored = conn.execute("SELECT count(*) AS n FROM chunk_embeddings").fetchone()
            model = conn.execute(
                "SELECT active_embedding_model AS m FROM repositories WHERE name = 'acme/tracker'"
            ).fetchone()
            marked = conn.execute(
                "SELECT coalesce(stats -> 'vectors', '[]'::jsonb) ? %s AS marked"
                " FROM snapshots ORDER BY id",
                (fake_embedder().model_name,),
            ).fetchall()
        return stored["n"], model["m"], [r["marked"] for r in marked]

    stored, model, _ = vectors()
    assert stored == 0 and model == "none"

    embedder = fake_embedder()
    assert not loc_fixes.ensure_indexed(database_url, pairs, embedder=embedder, mirrors=mirrors)
    stored, model, marked = vectors()
    assert stored > 0 and model == embedder.model_name and marked == [True, True]
    # a second run finds both snapshots whole and embeds nothing
    assert not loc_fixes.ensure_indexed(database_url, pairs, embedder=embedder, mirrors=mirrors)
    assert vectors()[0] == stored
