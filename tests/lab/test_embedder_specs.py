"""Benchmark embedder specs: `local:<model>` picks a local model other than the default, for the
embedder built in-process, for `codeatlas index` in a child process and for the database name."""

from __future__ import annotations

from benchmarks.embedder import environment, make, split
from benchmarks.eval_sets import EVAL_SETS
from lab.quality import database_name


def test_a_spec_names_the_provider_and_optionally_the_model() -> None:
    assert split("local") == ("local", None)
    assert split("fake") == ("fake", None)
    assert split("local:bge-small-en-v1.5") == ("local", "bge-small-en-v1.5")
    assert environment("local") == {"CODEATLAS_EMBEDDING_PROVIDER": "local"}
    assert environment("local:bge-small-en-v1.5") == {
        "CODEATLAS_EMBEDDING_PROVIDER": "local",
        "CODEATLAS_EMBEDDING_MODEL": "bge-small-en-v1.5",
    }


def test_the_local_models_share_a_sets_database() -> None:
    # an index keeps vectors of several models side by side: a second model adds its vectors
    py = EVAL_SETS["py"]
    assert database_name(py, "local:bge-small-en-v1.5") == database_name(py, "local")
    assert database_name(py, "fake") == "bench_quality_fake_py"


def test_the_fake_spec_builds_the_fake_embedder() -> None:
    assert make("fake").model_name.startswith("fake")


def test_a_model_folder_gets_its_own_database_of_each_set() -> None:
    # a fine-tuned model's index is built beside the packaged model's, not over it; the name
    # stays within PostgreSQL's 63 bytes for the longest set names
    train = EVAL_SETS["py"]
    folder = "local:/work/.work/models/all-MiniLM-L6-v2-code"
    assert database_name(train, folder) == "bench_quality_local_all_minilm_l6_v2_py"
    assert database_name(train, folder) != database_name(train, "local")
    assert len(database_name(train, folder).replace("_py", "_mined-javascript-train")) <= 63


def test_only_a_path_names_a_model_folder() -> None:
    from pathlib import Path

    from benchmarks.embedder import model_folder

    assert model_folder("local:/models/tuned") == Path("/models/tuned")
    assert model_folder("local:bge-small-en-v1.5") is None
    assert model_folder("local") is None and model_folder("fake") is None
