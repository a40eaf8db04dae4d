"""BENCHMARKS.md's headline tables are what `python -m benchmarks.tables` writes from the stored
results (benchmarks/published/), and every stored result names raw results that exist."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import tables

ROOT = Path(__file__).resolve().parents[2]


def test_the_tables_in_benchmarks_md_are_generated_from_the_stored_results():
    page = tables.PAGE.read_text()
    assert tables.render(page) == page, "BENCHMARKS.md differs: python -m benchmarks.tables"
    assert tables.main(["--check"]) == 0


def test_a_changed_result_changes_its_table(tmp_path: Path):
    folder = tmp_path / "published"
    shutil.copytree(tables.PUBLISHED, folder)
    quality = json.loads((folder / "quality.json").read_text())
    quality["sets"]["rust"]["systems"]["codeatlas-hybrid"]["recall@5"] = 0.123
    (folder / "quality.json").write_text(json.dumps(quality))
    page = tables.PAGE.read_text()
    changed = tables.render(page, folder)
    assert changed != page
    assert "| Rust (held out) | 40 | **0.123** |" in changed
    # only the tables change: the hand-written text around them stays
    outside = tables.MARKER.sub("", page)
    assert tables.MARKER.sub("", changed) == outside


def test_check_fails_on_a_stale_page(tmp_path: Path):
    stale = tmp_path / "BENCHMARKS.md"
    stale.write_text(tables.PAGE.read_text().replace("| **mean** |", "| **average** |"))
    assert tables.main(["--check", "--page", str(stale)]) == 1
    assert tables.main(["--page", str(stale)]) == 0
    assert stale.read_text() == tables.PAGE.read_text()


def test_a_missing_marker_says_which_table_and_how_to_place_it():
    page = tables.PAGE.read_text()
    start = page.index("<!-- table:freshness -->")
    end = page.index("<!-- /table:freshness -->") + len("<!-- /table:freshness -->")
    with pytest.raises(SystemExit, match="no markers for freshness"):
        tables.render(page[:start] + page[end:])


def test_every_stored_result_names_raw_results_that_exist():
    def sources(node: object):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "source" and isinstance(value, str):
                    yield value
                else:
                    yield from sources(value)
        elif isinstance(node, list):
            for value in node:
                yield from sources(value)

    for path in sorted(tables.PUBLISHED.glob("*.json")):
        named = [s.split()[0].rstrip(";") for s in sources(json.loads(path.read_text()))]
        assert named, f"{path.name} names no source"
        for source in named:
            if source.startswith(("lab/", "benchmarks/")):
                assert (ROOT / source).is_file(), f"{path.name}: {source} does not exist"
