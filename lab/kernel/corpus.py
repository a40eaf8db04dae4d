"""The Linux kernel as a git repository, from Debian's `linux-source-6.1` package.

The package (~140 MB) is downloaded once with `apt-get download` into
`benchmarks/.work/kernel/` (git-ignored) and checked against the size and sha256 apt's index
gives for that version. Its tarball is unpacked (the whole tree, or the sample of issue 30:
`kernel/`, `mm/`, `fs/ext4/`) and committed; then two more commits: one that changes one file
and one that changes 50, tagged `base`, `one-file` and `fifty-files`, so incremental updates are
measured on the same bytes every time.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchmarks.workspace import WORK, git

PACKAGE = "linux-source-6.1"
AREA = WORK / "kernel"
SAMPLE = ("kernel", "mm", "fs/ext4")
# the file the one-file commit changes, and where the fifty-file commit takes its files from:
# both exist in the sample and in the whole tree
ONE_FILE = "kernel/fork.c"
FIFTY_FROM = "kernel"
TAGS = ("base", "one-file", "fifty-files")


class CorpusError(RuntimeError):
    """The package could not be fetched or verified; the message says what to do."""


@dataclass(frozen=True)
class Package:
    """The downloaded .deb, its version and the sha256 apt's index promised for it."""

    path: Path
    version: str
    size: int
    sha256: str


def _apt_record(version: str) -> dict[str, str]:
    out = subprocess.run(
        ["apt-cache", "show", f"{PACKAGE}={version}"], capture_output=True, text=True, check=True
    ).stdout
    record = out.split("\n\n")[0]
    return dict(
        line.split(": ", 1) for line in record.splitlines() if ": " in line and line[0] != " "
    )


def fetch_package() -> Package:
    """The package's .deb (downloaded once), verified against apt's Size and SHA256."""
    AREA.mkdir(parents=True, exist_ok=True)
    debs = sorted(AREA.glob(f"{PACKAGE}_*_all.deb"))
    if not debs:
        subprocess.run(
            ["apt-get", "-o", "APT::Sandbox::User=root", "download", PACKAGE],
            cwd=AREA,
            check=True,
            capture_output=True,
        )
        debs = sorted(AREA.glob(f"{PACKAGE}_*_all.deb"))
    if not debs:
        raise CorpusError(f"apt-get download {PACKAGE} gave no .deb in {AREA}: run apt-get update")
    deb = debs[-1]
    match = re.fullmatch(rf"{re.escape(PACKAGE)}_(.+)_all\.deb", deb.name)
    assert match is not None
    version = match[1].replace("%3a", ":")
    record = _apt_record(version)
    size, sha256 = int(record["Size"]), record["SHA256"]
    digest = hashlib.sha256()
    with deb.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    if deb.stat().st_size != size or digest.hexdigest() != sha256:
        deb.unlink()
        raise CorpusError(
            f"{deb.name} does not match apt's index (size {size}, sha256 {sha256}):"
            " it was deleted; run the benchmark again to download it anew"
        )
    return Package(deb, version, size, sha256)


def tarball(package: Package) -> Path:
    """The kernel tarball inside the .deb (extracted once)."""
    target = AREA / f"{PACKAGE}-{package.version}.tar.xz"
    if not target.is_file():
        partial = target.with_suffix(".part")
        with partial.open("wb") as out:
            deb = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(package.path)], stdout=-1)
            subprocess.run(
                ["tar", "-x", "--to-stdout", f"./usr/src/{PACKAGE}.tar.xz"],
                stdin=deb.stdout,
                stdout=out,
                check=True,
            )
            deb.wait()
        partial.replace(target)
    return target


def _append_marker(path: Path, n: int) -> None:
    """A new small function at the end of a C file: a new blob with new searchable text."""
    text = path.read_bytes().rstrip(b"\n")
    path.write_bytes(
        text + f"\n\nint codeatlas_bench_marker_{n}(void)\n{{\n\treturn {n};\n}}\n".encode()
    )


def _commit_changes(repo: Path) -> None:
    _append_marker(repo / ONE_FILE, 1)
    git(repo, "commit", "-q", "-am", f"benchmark: change {ONE_FILE}")
    git(repo, "tag", "one-file")
    fifty = sorted(
        p for p in (repo / FIFTY_FROM).rglob("*.c") if p.relative_to(repo).as_posix() != ONE_FILE
    )[:50]
    for n, path in enumerate(fifty, start=2):
        _append_marker(path, n)
    git(repo, "commit", "-q", "-am", "benchmark: change 50 files")
    git(repo, "tag", "fifty-files")


def more_commits(repo: Path) -> dict[str, str]:
    """Three more commits on top of the repository's last, each tagged `more-<k>-<what>`: a
    one-file change to warm up (the first commit a checkout indexes after an index built by
    other code pays for what that code did not record), then a one-file and a fifty-file
    change to measure. Tag -> commit."""
    k = len(git(repo, "tag", "--list", "more-*-warm-up").split())
    first = 1000 * (k + 1)
    fifty = sorted(
        p for p in (repo / FIFTY_FROM).rglob("*.c") if p.relative_to(repo).as_posix() != ONE_FILE
    )[:50]
    changes = {
        f"more-{k}-warm-up": [repo / ONE_FILE],
        f"more-{k}-one-file": [repo / ONE_FILE],
        f"more-{k}-fifty-files": fifty,
    }
    refs: dict[str, str] = {}
    for n, (tag, paths) in enumerate(changes.items()):
        for m, path in enumerate(paths):
            _append_marker(path, first + 100 * n + m)
        git(repo, "commit", "-q", "-am", f"benchmark: {tag}")
        git(repo, "tag", tag)
        refs[tag] = git(repo, "rev-parse", "HEAD").strip()
    return refs


def kernel_repo(*, sample: bool) -> Path:
    """The kernel (or its sample) committed in a git repository, with the tags of TAGS."""
    package = fetch_package()
    repo = AREA / ("repo-sample" if sample else "repo-full")
    if (repo / ".git").is_dir() and set(git(repo, "tag", "--list").split()) >= set(TAGS):
        return repo
    source = tarball(package)
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    top = f"{PACKAGE}/"
    members = [top + folder for folder in SAMPLE] if sample else []
    subprocess.run(
        ["tar", "-xJf", str(source), "-C", str(repo), "--strip-components=1", *members],
        check=True,
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", f"{PACKAGE} {package.version} (Debian)")
    git(repo, "tag", "base")
    _commit_changes(repo)
    return repo


def tree_stats(repo: Path, ref: str = "base") -> dict:
    """Files and bytes of the commit's tree (every blob, before codeatlas's skip rules)."""
    out = git(repo, "ls-tree", "-r", "-l", ref)
    sizes = [int(line.split()[3]) for line in out.splitlines() if line.split()[3] != "-"]
    return {"files": len(sizes), "bytes": sum(sizes)}
