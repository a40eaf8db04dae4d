"""Real code per language, fetched from package registries at test time and cached.

Nothing here is committed: each corpus is downloaded once with the ordinary clients (pip, npm,
apt-get) into `${CODEATLAS_TEST_CACHE:-~/.cache/codeatlas-tests}` and unpacked there. PyPI and npm
versions are pinned; Debian packages follow the installed release, so tests only assert on code
that is stable across its updates.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class Corpus:
    """Where one language's real code comes from and which of its files to use."""

    registry: str  # pypi-wheel | pypi-sdist | npm | debian
    package: str
    patterns: tuple[str, ...]


CORPORA: dict[str, Corpus] = {
    "python": Corpus("pypi-wheel", "flask==3.1.3", ("**/*.py",)),
    "typescript": Corpus("npm", "rxjs@7.8.2", ("package/src/internal/**/*.ts",)),
    "tsx": Corpus("npm", "react-native-screens@4.30.1", ("package/src/**/*.tsx",)),
    "kotlin": Corpus("npm", "react-native-screens@4.30.1", ("package/android/**/*.kt",)),
    "javascript": Corpus("npm", "express@5.1.0", ("package/**/*.js",)),
    "php": Corpus("debian", "php-illuminate-support", ("**/*.php",)),
    "go": Corpus("debian", "golang-github-pkg-errors-dev", ("**/*.go",)),
    "rust": Corpus("debian", "librust-anyhow-dev", ("**/*.rs",)),
    "ruby": Corpus("debian", "ruby-rack", ("**/*.rb",)),
    "csharp": Corpus("pypi-sdist", "pythonnet==3.0.5", ("**/*.cs",)),
    "java": Corpus("pypi-sdist", "jpype1==1.7.1", ("**/*.java",)),
    "cpp": Corpus(
        "pypi-sdist", "jpype1==1.7.1", ("**/native/common/*.cpp", "**/native/common/**/*.h")
    ),
    "c": Corpus("pypi-sdist", "lz4==4.4.5", ("**/*.c", "**/lz4libs/*.h")),
}


def cache_root() -> Path:
    """The directory where corpora are kept between runs."""
    configured = os.environ.get("CODEATLAS_TEST_CACHE")
    root = Path(configured) if configured else Path.home() / ".cache" / "codeatlas-tests"
    root.mkdir(parents=True, exist_ok=True)
    return root


@cache
def corpus_dir(language: str) -> Path:
    """The unpacked package holding `language`'s corpus (downloaded on first use)."""
    corpus = CORPORA[language]
    key = f"{corpus.registry}-{corpus.package}".replace("/", "_").replace("@", "_")
    target = cache_root() / key
    if (target / ".complete").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    download = target.with_name(key + ".download")
    shutil.rmtree(download, ignore_errors=True)
    download.mkdir(parents=True)
    archive = _fetch(corpus, download)
    unpacked = target.with_name(key + ".unpack")
    shutil.rmtree(unpacked, ignore_errors=True)
    _unpack(archive, unpacked)
    (unpacked / ".complete").touch()
    unpacked.rename(target)
    shutil.rmtree(download, ignore_errors=True)
    return target


@cache
def corpus_files(language: str) -> tuple[Path, ...]:
    """The files of `language`'s corpus, sorted."""
    root = corpus_dir(language)
    files = {p for pattern in CORPORA[language].patterns for p in root.glob(pattern) if p.is_file()}
    return tuple(sorted(files))


def find_file(language: str, suffix: str) -> Path:
    """The one corpus file whose path ends with `suffix`."""
    matches = [p for p in corpus_files(language) if p.as_posix().endswith(suffix)]
    if len(matches) != 1:
        raise LookupError(f"{suffix!r} matches {len(matches)} files in the {language} corpus")
    return matches[0]


def _fetch(corpus: Corpus, into: Path) -> Path:
    if corpus.registry.startswith("pypi"):
        binary = ["--only-binary", ":all:"] if corpus.registry == "pypi-wheel" else []
        source = ["--no-binary", ":all:"] if corpus.registry == "pypi-sdist" else []
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                *binary,
                *source,
                "-d",
                str(into),
                corpus.package,
            ],
        )
    elif corpus.registry == "npm":
        _run(["npm", "pack", "--silent", corpus.package], cwd=into)
    elif corpus.registry == "debian":
        try:
            _run(["apt-get", "download", corpus.package], cwd=into)
        except subprocess.CalledProcessError:
            _run(["apt-get", "update"], cwd=into)
            _run(["apt-get", "download", corpus.package], cwd=into)
    else:
        raise ValueError(f"unknown registry {corpus.registry}")
    archives = [p for p in into.iterdir() if p.is_file()]
    if len(archives) != 1:
        raise RuntimeError(f"expected one archive for {corpus.package}, got {archives}")
    return archives[0]


def _unpack(archive: Path, into: Path) -> None:
    into.mkdir(parents=True)
    name = archive.name
    if name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(into)
    elif name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive) as tf:
            extract_tar(tf, into)
    elif name.endswith(".deb"):
        _run(["dpkg-deb", "-x", str(archive), str(into)])
    else:
        raise ValueError(f"cannot unpack {archive}")


def extract_tar(tf: tarfile.TarFile, into: Path) -> None:
    """Extract only regular files and folders inside `into` (tarfile's "data" filter)."""
    if hasattr(tarfile, "data_filter"):
        tf.extractall(into, filter="data")
        return
    # Python before 3.11.4 (Debian 12 ships 3.11.2) has no extraction filters: apply the same rule
    root = into.resolve()
    safe = [
        member
        for member in tf.getmembers()
        if (member.isfile() or member.isdir())
        and (root / member.name).resolve().is_relative_to(root)
    ]
    tf.extractall(into, members=safe)


def _run(command: list[str], cwd: Path | None = None) -> None:
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, timeout=600)
