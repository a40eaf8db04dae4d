"""The localisation benchmark's bookkeeping: releases not built yet, weights from the command
line, and runs measured apart merged into one results file."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from lab import loc, loc_corpora
from retrieval.locate import WEIGHTS


def test_a_release_not_in_its_repository_yet_has_no_commit_instead_of_an_error(
    tmp_path: Path, monkeypatch, git_repo
):
    monkeypatch.setattr(loc_corpora, "REPOS", tmp_path)
    git_repo.write("pkg/a.py", "x = 1\n")
    sha = git_repo.commit("pkg 1.0 (sdist)")
    git_repo.git("tag", loc_corpora.tag("1.0"))
    assert loc_corpora.release_commit("repo", "1.0") == sha
    # another run is still building 2.0, and a project not downloaded at all
    assert loc_corpora.release_commit("repo", "2.0") is None
    assert loc_corpora.release_commit("absent", "1.0") is None


def test_the_ranker_option_names_locates_order_and_the_model_beside_it(tmp_path: Path):
    from retrieval.locate_ranker import FILE_FEATURES, LearnedOrder, as_model

    assert loc.ranker_option(None) == ("shipped", None)
    assert loc.ranker_option("none") == (None, None)
    with pytest.raises(SystemExit, match="no such model"):
        loc.ranker_option(str(tmp_path / "absent.json"))
    path = tmp_path / "model.json"
    order = LearnedOrder(FILE_FEATURES, np.ones(len(FILE_FEATURES)))
    path.write_text(json.dumps(as_model(order, None, {"trained": "here"})))
    locate_order, learned = loc.ranker_option(str(path))
    # the model is measured beside locate's hand-set order, not beside another model
    assert locate_order is None
    assert learned is not None and learned.files is not None and learned.functions is None
    assert learned.meta == {"trained": "here"}


def test_weights_are_read_as_the_type_of_each_field():
    weights = loc.parse_weights("frame=2,max_terms=64,file_functions=false", WEIGHTS)
    assert weights.frame == 2.0 and weights.max_terms == 64
    assert weights.file_functions is False and isinstance(weights.max_terms, int)
    assert loc.parse_weights("", WEIGHTS) == WEIGHTS


def _run(path: Path, instances: dict, reasons: dict) -> Path:
    path.write_text(
        json.dumps(
            {
                "meta": {"seconds": 1.0, "finished": "now", "machine": "here", "embedder": "fake"},
                "summary": {},
                "instances": instances,
                "drop_reasons": reasons,
            }
        )
    )
    return path


def _record(project: str, index: int, **systems: float) -> dict:
    scores = {m: 1.0 for m in loc.METRICS}
    out: dict = {"project": project, "release": "1", "index": index}
    for name, acc in systems.items():
        out[name] = {
            **scores,
            "file_acc@5": acc,
            "seconds": 0.1,
            "top_files": [],
            "test_share@10": 0.0,
        }
    return out


def test_runs_measured_apart_merge_into_one_summary_the_later_run_winning(tmp_path: Path):
    first = _run(
        tmp_path / "a.json",
        {"psf__requests-1": _record("requests", 0, **{"bm25-files": 1.0, "locate": 0.0})},
        {"psf__requests-2": "release not indexed", "django__django-3": "gold file x not in it"},
    )
    second = _run(
        tmp_path / "b.json",
        {
            "psf__requests-1": _record("requests", 0, locate=1.0),  # re-measured
            "psf__requests-2": _record("requests", 1, **{"bm25-files": 0.0, "locate": 1.0}),
        },
        {},
    )
    assert loc.merge_runs([first, second], tmp_path / "merged") == 0
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert merged["instances"]["psf__requests-1"]["locate"]["file_acc@5"] == 1.0
    assert merged["instances"]["psf__requests-1"]["bm25-files"]["file_acc@5"] == 1.0
    assert merged["summary"]["n"] == 2
    assert merged["summary"]["overall"]["locate"]["file_acc@5"]["mean"] == 1.0
    # the report the second run scored is no longer dropped; the absent gold still is
    assert merged["dropped"] == {"django: gold absent": 1}
    assert (tmp_path / "merged.md").read_text().startswith("# Bug-report localisation")


def test_a_run_against_an_earlier_one_is_paired_by_report_per_system(tmp_path: Path):
    earlier = _run(
        tmp_path / "packaged.json",
        {
            "psf__requests-1": _record("requests", 0, locate=0.0, **{"bm25-files": 1.0}),
            "psf__requests-2": _record("requests", 1, locate=1.0),
            "psf__requests-9": _record("requests", 2, locate=0.0),  # not scored now
        },
        {},
    )
    now = {
        "psf__requests-1": _record("requests", 0, locate=1.0, **{"bm25-files": 1.0}),
        "psf__requests-2": _record("requests", 1, locate=1.0, **{"bm25-files": 0.0}),
        "psf__requests-3": _record("requests", 3, locate=0.0, **{"bm25-files": 0.0}),  # new
    }
    summary = loc.summarise(now, ["locate", "bm25-files"])
    summary["against"] = loc.against(now, earlier)

    locate = summary["against"]["systems"]["locate"]["file_acc@5"]
    assert (locate["n"], locate["mean"], locate["up"], locate["down"]) == (2, 0.5, 1, 0)
    files = summary["against"]["systems"]["bm25-files"]["file_acc@5"]
    assert (files["n"], files["mean"], files["up"], files["down"]) == (1, 0.0, 0, 0)
    meta = {"finished": "now", "machine": "here", "embedder": "local:tuned", "dropped": {}}
    text = loc.markdown(summary, meta)
    assert "## minus the same system of packaged.json (paired by report)" in text
    assert "| locate | 2 | " in text


def test_a_text_shared_by_two_releases_is_tokenized_once_with_the_same_tokens():
    from lab.baselines.bm25 import code_tokens
    from lab.loc_systems import shared_tokens

    text = "def parse_header(lines):\n    return HTTPHeaderParser(lines).parse()\n"
    first = shared_tokens(text)
    assert first == code_tokens(text)
    copy = "".join(list(text))  # the same text read again for the next release
    assert copy is not text and shared_tokens(copy) is first


def test_a_model_folders_database_is_the_local_one_copied_and_embedded_again(
    settings_env, database_url, git_repo, pg_server
):
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    from core.database import connection
    from indexing.embedding.fake import FakeEmbedder
    from lab.loc_index import copy_with_vectors
    from tests.retrieval.indexing import index_repository

    git_repo.write("shop/refunds.py", "def approve_refund(order):\n    return order.paid\n")
    first = git_repo.commit("1.0")
    index_repository(database_url, git_repo.path, "shop", embedder=FakeEmbedder())
    git_repo.write("shop/orders.py", "def cancel(order):\n    order.cancelled = True\n")
    second = git_repo.commit("2.0")
    index_repository(database_url, git_repo.path, "shop", embedder=FakeEmbedder())
    source = conninfo_to_dict(database_url)["dbname"]
    tuned = FakeEmbedder(dimensions=8)
    log = io.StringIO()

    url = copy_with_vectors(pg_server, source, source + "_tuned", tuned, log=log)

    assert "copying" in log.getvalue()
    with connection(url) as conn:
        row = conn.execute("SELECT active_embedding_model FROM repositories").fetchone()
        assert row["active_embedding_model"] == "fake-hash-8"
        # both releases have the new model's vectors of every chunk, beside the old model's
        counts = conn.execute(
            "SELECT s.commit_sha, count(DISTINCT c.id) AS chunks, count(DISTINCT e.content_hash)"
            " FILTER (WHERE e.embedding_model = 'fake-hash-8') AS tuned,"
            " count(DISTINCT e.content_hash) FILTER (WHERE e.embedding_model = 'fake-hash-384')"
            " AS packaged"
            " FROM snapshots s JOIN snapshot_files sf ON sf.snapshot_id = s.id"
            " JOIN code_chunks c ON c.file_version_id = sf.file_version_id"
            " LEFT JOIN chunk_embeddings e ON e.content_hash = c.content_hash"
            " GROUP BY s.commit_sha"
        ).fetchall()
    assert {r["commit_sha"] for r in counts} == {first, second}
    for r in counts:
        assert r["chunks"] > 0 and r["tuned"] == r["packaged"] == r["chunks"]
    with connection(database_url) as conn:  # the source keeps its model
        row = conn.execute("SELECT active_embedding_model FROM repositories").fetchone()
        assert row["active_embedding_model"] == "fake-hash-384"

    # a rerun finds the copy and nothing left to embed; a missing source says what to do
    again = io.StringIO()
    assert copy_with_vectors(pg_server, source, source + "_tuned", tuned, log=again) == url
    assert "copying" not in again.getvalue()
    with pytest.raises(SystemExit, match="index the releases first"):
        copy_with_vectors(pg_server, "no_such_database", "no_such_copy", tuned)
    # a source in use (a benchmark searching it) cannot be copied: said, and no copy is left
    with connection(database_url), pytest.raises(SystemExit, match="while it is in use"):
        copy_with_vectors(pg_server, source, source + "_busy", tuned)
    with psycopg.connect(pg_server) as conn:
        busy = (source + "_busy",)
        assert not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", busy).fetchone()
