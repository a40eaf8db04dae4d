"""Corpus archives unpack on every supported Python, including 3.11 releases without tar filters."""

import io
import tarfile
from pathlib import Path

import pytest

from corpora.languages import extract_tar


def archive(path: Path) -> Path:
    """A .tar.gz with one good file and the entries a "data" filter refuses."""
    target = path / "corpus.tar.gz"
    with tarfile.open(target, "w:gz") as tf:
        for name, text in (("package/src/a.py", b"x = 1\n"), ("../escape.py", b"bad\n")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tf.addfile(info, io.BytesIO(text))
        link = tarfile.TarInfo("package/link")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(link)
    return target


def test_without_extraction_filters_only_files_inside_the_target_are_unpacked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delattr(tarfile, "data_filter", raising=False)  # as on Python 3.11.2
    into = tmp_path / "out" / "unpacked"
    with tarfile.open(archive(tmp_path)) as tf:
        extract_tar(tf, into)
    assert (into / "package" / "src" / "a.py").read_text() == "x = 1\n"
    assert not (into / "package" / "link").exists()
    assert not (tmp_path / "out" / "escape.py").exists()
