"""The bug-report localisation corpora: one git repository per project, one commit (and tag)
per release, built from the releases' sdists on PyPI (git history is not reachable here).

The release of an instance is the first release of its `version` (docs/benchmarks: the
SWE-bench `version` is the minor version under development at the base commit, so its first
release is the nearest published source). The pins are written out below, not resolved at run
time, so that two runs index the same bytes. An sdist's top folder (`Django-3.0/`) is stripped
so that paths match the gold paths (`django/db/models/query.py`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
import urllib.request
import zipfile
from pathlib import Path

from benchmarks.workspace import WORK, git

LOC = WORK / "loc"
SDISTS = LOC / "sdists"
REPOS = LOC / "repos"

# SWE-bench repository -> (our repository name, PyPI project)
PROJECTS = {
    "psf/requests": ("requests", "requests"),
    "pallets/flask": ("flask", "Flask"),
    "mwaskom/seaborn": ("seaborn", "seaborn"),
    "pydata/xarray": ("xarray", "xarray"),
    "astropy/astropy": ("astropy", "astropy"),
    "scikit-learn/scikit-learn": ("scikit-learn", "scikit-learn"),
    "matplotlib/matplotlib": ("matplotlib", "matplotlib"),
    "sympy/sympy": ("sympy", "sympy"),
    "django/django": ("django", "Django"),
}

# (project, SWE-bench version) -> the PyPI release indexed for it: the first final release of
# that minor version, or the next patch release when that one has no sdist (resolved once from
# PyPI's simple index, 2026-12-03)
RELEASES = {
    ("requests", "0.14"): "0.14.0",
    ("requests", "2.3"): "2.3.0",
    ("requests", "2.4"): "2.4.0",
    ("requests", "2.7"): "2.7.0",
    ("requests", "2.10"): "2.10.0",
    ("flask", "2.0"): "2.0.0",
    ("flask", "2.3"): "2.3.0",
    ("seaborn", "0.12"): "0.12.0",
    ("seaborn", "0.13"): "0.13.0",
    ("astropy", "1.3"): "1.3",
    ("astropy", "4.3"): "4.3",
    ("astropy", "5.1"): "5.1",
    ("astropy", "5.2"): "5.2",
    ("scikit-learn", "0.20"): "0.20.0",
    ("scikit-learn", "0.21"): "0.21.1",  # 0.21.0 has no sdist on PyPI
    ("scikit-learn", "0.22"): "0.22",
    ("scikit-learn", "1.3"): "1.3.0",
    ("matplotlib", "3.3"): "3.3.0",
    ("matplotlib", "3.5"): "3.5.0",
    ("matplotlib", "3.6"): "3.6.0",
    ("matplotlib", "3.7"): "3.7.0",
    ("sympy", "1.0"): "1.0",
    ("sympy", "1.1"): "1.1",
    ("sympy", "1.2"): "1.2",
    ("sympy", "1.4"): "1.4",
    ("sympy", "1.5"): "1.5",
    ("sympy", "1.6"): "1.6",
    ("sympy", "1.7"): "1.7",
    ("sympy", "1.8"): "1.8",
    ("sympy", "1.9"): "1.9",
    ("sympy", "1.10"): "1.10",
    ("sympy", "1.11"): "1.11",
    ("sympy", "1.12"): "1.12",
    ("sympy", "1.13"): "1.13.0",
    ("django", "3.0"): "3.0",
    ("django", "3.1"): "3.1",
    ("django", "3.2"): "3.2",
    ("django", "4.0"): "4.0",
    ("django", "4.1"): "4.1",
    ("django", "4.2"): "4.2",
    ("django", "5.0"): "5.0",
}

# xarray's `version` is 0.12 for every instance although they were filed from 2019 to 2021
# (0.13 to 0.17): for them, the last release before the issue was filed (dates from PyPI)
INSTANCE_RELEASES = {
    "pydata__xarray-3364": ("xarray", "0.13.0"),  # filed 2019-10-01; 0.13.0 of 2019-09-17
    "pydata__xarray-4094": ("xarray", "0.15.1"),  # 2020-05-26; 2020-03-23
    "pydata__xarray-4248": ("xarray", "0.16.0"),  # 2020-07-22; 2020-07-11
    "pydata__xarray-4493": ("xarray", "0.16.1"),  # 2020-10-06; 2020-09-20
    "pydata__xarray-5131": ("xarray", "0.17.0"),  # 2021-04-08; 2021-02-26
}

SIMPLE_INDEX = "https://pypi.org/simple/{project}/"


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def releases_of(project: str) -> list[str]:
    """The pinned releases of one of our projects, oldest first."""
    pinned = {r for (p, _v), r in RELEASES.items() if p == project}
    pinned |= {r for p, r in INSTANCE_RELEASES.values() if p == project}
    return sorted(pinned, key=version_key)


def tag(release: str) -> str:
    """The git tag of a release in its project's repository."""
    return f"v{release}"


def _index_files(pypi_name: str) -> list[dict]:
    """The project's files on PyPI's simple index (PEP 691 JSON): what pip reads. pip itself
    cannot download these sdists: it builds metadata, and old setup.py files do not run on
    today's Python."""
    request = urllib.request.Request(
        SIMPLE_INDEX.format(project=pypi_name.lower()),
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["files"]


def sdist_releases(pypi_name: str, filenames: list[str] | None = None) -> list[str]:
    """The project's final releases (numbers only: no `rc`, `b`, `post`) that have an sdist,
    oldest first, among `filenames` (by default its files on PyPI)."""
    if filenames is None:
        filenames = [f["filename"] for f in _index_files(pypi_name)]
    found = set()
    for name in filenames:
        match = re.fullmatch(
            rf"{re.escape(pypi_name)}-(\d+(?:\.\d+)*)\.(?:tar\.gz|zip)", name, re.I
        )
        if match:
            found.add(match.group(1))
    return sorted(found, key=version_key)


def _sdist_url(pypi_name: str, release: str) -> tuple[str, str]:
    """(file name, URL) of the release's sdist on PyPI's simple index."""
    files = _index_files(pypi_name)
    stems = {f"{pypi_name}-{release}".lower(), f"{pypi_name.replace('-', '_')}-{release}".lower()}
    for f in files:
        name = f["filename"]
        for ext in (".tar.gz", ".zip"):
            if name.endswith(ext) and name[: -len(ext)].lower() in stems:
                return name, f["url"]
    raise LookupError(f"no sdist of {pypi_name}=={release} on PyPI")


def sdist(pypi_name: str, release: str) -> Path:
    """The release's sdist, downloaded once into the cache."""
    SDISTS.mkdir(parents=True, exist_ok=True)
    cached = [p for p in SDISTS.glob(f"{pypi_name}-{release}.*".lower()) if p.is_file()]
    cached += [p for p in SDISTS.glob(f"{pypi_name}-{release}.*") if p.is_file()]
    if cached:
        return cached[0]
    name, url = _sdist_url(pypi_name, release)
    with urllib.request.urlopen(url, timeout=600) as response:
        payload = response.read()
    target = SDISTS / name
    target.write_bytes(payload)
    return target


def _unpack(archive: Path, dest: Path) -> None:
    """Extract the archive's members under `dest` without their first path component."""
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            for member in zf.infolist():
                rel = member.filename.split("/", 1)[1] if "/" in member.filename else ""
                if not rel or member.is_dir():
                    continue
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(zf.read(member))
        return
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            rel = member.name.split("/", 1)[1] if "/" in member.name else ""
            if not rel or not member.isfile() or ".." in rel.split("/"):
                continue
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            handle = tf.extractfile(member)
            if handle is not None:
                out.write_bytes(handle.read())


def project_repo(
    project: str,
    releases: list[str] | None = None,
    *,
    root: Path | None = None,
    pypi_name: str | None = None,
) -> Path:
    """The project's git repository (under `root`, `REPOS` by default) with every release
    (the pinned ones by default) committed and tagged, in the order given (built once; a
    missing release is appended)."""
    pypi_name = pypi_name or next(p for (ours, p) in PROJECTS.values() if ours == project)
    repo = (root or REPOS) / project
    if not (repo / ".git").is_dir():
        repo.mkdir(parents=True, exist_ok=True)
        git(repo, "init", "-q", "-b", "main")
    tags = set(git(repo, "tag", "--list").split())
    for release in releases_of(project) if releases is None else releases:
        if tag(release) in tags:
            continue
        archive = sdist(pypi_name, release)
        for child in repo.iterdir():
            if child.name != ".git":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        _unpack(archive, repo)
        git(repo, "add", "-A", "-f")
        git(repo, "commit", "-q", "--allow-empty", "-m", f"{pypi_name} {release} (sdist)")
        git(repo, "tag", tag(release))
    return repo


def release_commit(project: str, release: str, root: Path | None = None) -> str | None:
    """The commit sha of a release in its project's repository; None while the release is not
    in it yet (its sdist not downloaded, or the repository being built by another run)."""
    repo = (root or REPOS) / project
    if not (repo / ".git").is_dir():
        return None
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"{tag(release)}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    return out.stdout.strip() or None


def _main() -> None:
    import sys

    for project in sys.argv[1:] or [p for p, _ in PROJECTS.values()]:
        repo = project_repo(project)
        print(project, repo, file=sys.stderr, flush=True)


if __name__ == "__main__":
    _main()
