"""The recorded list of mined repositories (`repos.json`): name, language, the commit mined,
its split and the counts of the last build. The split is by repository and never changes once
recorded: a reader of the test split can rely on it across rebuilds."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

MANIFEST = Path(__file__).with_name("repos.json")
SPLITS = ("train", "dev", "test")
# about 70/10/20 of the repositories, by a hash of the lower-cased name
_TRAIN, _DEV = 70, 80


@dataclass
class RepoEntry:
    """One mined repository."""

    repo: str  # owner/name as GitHub spells it
    language: str
    commit: str  # the HEAD mined; history is read from it
    split: str
    counts: dict = field(default_factory=dict)

    @property
    def folder_name(self) -> str:
        """`owner+name`, as mirrors and data files are named."""
        return self.repo.replace("/", "+")


def hash_split(repo: str) -> str:
    """The split a repository's name hashes to."""
    bucket = int(hashlib.sha256(repo.lower().encode()).hexdigest()[:8], 16) % 100
    return "train" if bucket < _TRAIN else "dev" if bucket < _DEV else "test"


def assign_split(repo: str, language: str, entries: list[RepoEntry]) -> str:
    """The split of a repository being added: its hash's, except that a language's fifth or
    later repository goes to test while the language has fewer than one test repository per
    five (every language must be measurable)."""
    same = [e for e in entries if e.language == language]
    tests = sum(e.split == "test" for e in same)
    if len(same) >= 4 and tests < (len(same) + 1) // 5:
        return "test"
    return hash_split(repo)


def load(path: Path = MANIFEST) -> list[RepoEntry]:
    """The recorded repositories, in recorded order."""
    if not path.exists():
        return []
    raw = json.loads(path.read_text())
    return [RepoEntry(**entry) for entry in raw["repositories"]]


def save(entries: list[RepoEntry], path: Path = MANIFEST) -> None:
    """Write the manifest (sorted by language, then name, so diffs stay small)."""
    ordered = sorted(entries, key=lambda e: (e.language, e.repo.lower()))
    data = {
        "about": "Repositories mined by `python -m lab.fixes build` (lab/fixes).",
        "repositories": [asdict(e) for e in ordered],
    }
    path.write_text(json.dumps(data, indent=1) + "\n")


def record_counts(repo: str, counts: dict, path: Path = MANIFEST) -> list[RepoEntry]:
    """Store one repository's counts in the manifest on disk, leaving every other entry as the
    file has it (builds of different repositories may run at once); the entries written."""
    entries = load(path)
    for entry in entries:
        if entry.repo.lower() == repo.lower():
            entry.counts = counts
    save(entries, path)
    return entries
