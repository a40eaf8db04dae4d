"""Pinned packages from the registries (PyPI, npm, Debian binary and source packages), each
downloaded once with its ordinary client into `benchmarks/.work/mined/downloads/` and unpacked
once into `.../unpacked/`; the sha256 of every archive is recorded so a build says what it read.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from corpora.languages import extract_tar

# Debian 12's source index, read through a private apt configuration (the system's apt needs no
# deb-src line): binary packages ship compiled Java and C#, their sources are in the .orig tarballs
_DEB_SRC = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


class FetchError(RuntimeError):
    """A package could not be downloaded or unpacked; the message says which and how to retry."""


@dataclass(frozen=True)
class Archive:
    """A downloaded package: where it is and its sha256."""

    path: Path
    sha256: str


def fetch(registry: str, spec: str, area: Path) -> Archive:
    """The archive of `spec` ("toolz==1.0.0", "lodash@4.17.21", "ruby-i18n=1.10.0-2") from the
    registry, downloaded into `area/downloads` unless it is already there."""
    folder = area / "downloads" / registry
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / (_key(spec) + ".name")
    if done.is_file() and (folder / done.read_text().strip()).is_file():
        path = folder / done.read_text().strip()
        return Archive(path, _sha256(path))
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        into = Path(tmp)
        if registry in ("pypi", "pypi-sdist"):
            kind = ["--only-binary=:all:"] if registry == "pypi" else ["--no-binary=:all:"]
            _run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", *kind, "-d", tmp, spec]
            )
        elif registry == "npm":
            _run(["npm", "pack", "--silent", "--pack-destination", tmp, spec])
        elif registry == "debian":
            _run(["apt-get", "-o", "APT::Sandbox::User=root", "download", spec], cwd=into)
        elif registry == "debian-source":
            _download_orig(spec, into, area)
        else:
            raise FetchError(f"unknown registry {registry!r} for {spec}")
        files = [p for p in into.iterdir() if p.is_file()]
        if len(files) != 1:
            raise FetchError(f"expected one archive for {spec}, got {[p.name for p in files]}")
        path = folder / files[0].name
        files[0].replace(path)
    done.write_text(path.name + "\n")
    return Archive(path, _sha256(path))


def unpack(archive: Archive, area: Path) -> Path:
    """The archive's files in a folder of their own (unpacked once)."""
    target = area / "unpacked" / archive.path.name
    if (target / ".complete").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    name = archive.path.name
    if name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive.path) as zf:
            zf.extractall(target)
    elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")):
        with tarfile.open(archive.path) as tf:
            extract_tar(tf, target)
    elif name.endswith(".deb"):
        _run(["dpkg-deb", "-x", str(archive.path), str(target)])
    else:
        raise FetchError(f"cannot unpack {archive.path}")
    (target / ".complete").touch()
    return target


def _download_orig(spec: str, into: Path, area: Path) -> None:
    """The upstream (.orig) tarball of a Debian source package `name=version`."""
    options = _source_index(area)
    listing = _run(["apt-get", *options, "-qq", "--print-uris", "source", spec], cwd=into)
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) >= 2 and ".orig.tar." in parts[1] and "asc" not in parts[1]:
            uri = parts[0].strip("'")
            _run(["/usr/lib/apt/apt-helper", *options, "download-file", uri, str(into / parts[1])])
            return
    raise FetchError(f"no .orig tarball for the Debian source package {spec}")


def _source_index(area: Path) -> list[str]:
    apt = area / "apt"
    (apt / "sources").mkdir(parents=True, exist_ok=True)
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources" / "bookworm-src.sources").write_text(_DEB_SRC)
    options = [
        "-o",
        "Dir::Etc::SourceList=/dev/null",
        "-o",
        f"Dir::Etc::SourceParts={apt / 'sources'}",
        "-o",
        f"Dir::State::Lists={apt / 'lists'}",
        "-o",
        f"Dir::Cache={apt / 'cache'}",
        "-o",
        "Debug::NoLocking=true",
        "-o",
        "APT::Sandbox::User=root",
    ]
    if not any((apt / "lists").glob("*Sources*")):
        _run(["apt-get", *options, "-qq", "update"])
    return options


def _key(spec: str) -> str:
    return spec.replace("/", "_").replace("@", "_").replace("=", "_").replace(":", "_")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(command: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            command, cwd=cwd, check=True, capture_output=True, text=True, timeout=900
        )
    except subprocess.CalledProcessError as exc:
        raise FetchError(
            f"{' '.join(command[:3])} … failed: {exc.stderr.strip()[-800:]}"
            " (for Debian packages, run `apt-get update` once and retry)"
        ) from exc
    return done.stdout
