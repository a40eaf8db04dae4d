"""Reading a repository's history with git plumbing: first-parent commits with their changed
files, the parent side of a commit's diff, and file versions through one `git cat-file` process.

Merge commits are read through their first parent's diff (`--diff-merges=first-parent`), so a
merged pull request is one change, as a squash-merged one is. Renames are not followed
(`--no-renames`): a renamed file is a deletion and an addition, and an addition has no parent
version to find functions in.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_RECORD = "\x1e"
_FIELD = "\x1f"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class MirrorMissing(Exception):
    """The repository's git directory is not on this machine."""


@dataclass(frozen=True)
class Commit:
    """One first-parent commit: its message and the files it changed against its first parent."""

    sha: str
    parent: str | None
    merge: bool
    date: str
    author: str
    message: str
    changes: tuple[tuple[str, str], ...]  # (status letter, path)


@dataclass(frozen=True)
class Hunk:
    """One hunk of a diff, by the lines of the parent side it removes or inserts after."""

    start: int  # first removed line; for a pure insertion, the line it is inserted after
    count: int  # removed lines; 0 for a pure insertion
    removed: tuple[str, ...]
    added: tuple[str, ...]


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run git in the repository and return its output (undecodable bytes replaced)."""
    done = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, check=False)
    if check and done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, args, done.stdout, done.stderr)
    return done.stdout.decode("utf-8", "replace")


def git_dir(path: Path) -> Path:
    """The git directory of a mirror folder (`repo/` of a fetched snapshot) or of a work tree."""
    for candidate in (path, path / ".git", path / "repo", path / "repo" / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise MirrorMissing(str(path))


def first_parent_commits(repo: Path, head: str, limit: int) -> Iterator[Commit]:
    """The newest `limit` commits of `head`'s first-parent history, newest first."""
    out = git(
        repo,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--no-renames",
        "--name-status",
        f"--format={_RECORD}%H{_FIELD}%P{_FIELD}%cI{_FIELD}%an <%ae>{_FIELD}%B{_FIELD}",
        f"-n{limit}",
        head,
        "--",
    )
    for record in out.split(_RECORD)[1:]:
        sha, parents, date, author, message, names = record.split(_FIELD, 5)
        parent_list = parents.split()
        changes = []
        for line in names.strip().splitlines():
            status, _, path = line.partition("\t")
            if path:
                changes.append((status[:1], path))
        yield Commit(
            sha=sha,
            parent=parent_list[0] if parent_list else None,
            merge=len(parent_list) > 1,
            date=date,
            author=author,
            message=message.strip(),
            changes=tuple(changes),
        )


def parent_hunks(repo: Path, parent: str, commit: str, paths: list[str]) -> dict[str, list[Hunk]]:
    """The hunks of the diff from parent to commit of each path, without context lines."""
    out = git(
        repo,
        "diff",
        "-U0",
        "--no-renames",
        "--no-ext-diff",
        "--no-color",
        parent,
        commit,
        "--",
        *paths,
    )
    hunks: dict[str, list[Hunk]] = {}
    path: str | None = None
    current: list | None = None
    # lines end at "\n" only: a form feed or a lone "\r" inside a source line is part of it
    for line in out.split("\n"):
        if line.startswith("diff --git "):
            path, current = None, None
        elif line.startswith("--- "):
            old = line[4:]
            path = old[2:] if old.startswith("a/") else None
        elif line.startswith("+++ ") and path is None:
            new = line[4:]
            path = new[2:] if new.startswith("b/") else None
        elif (match := _HUNK.match(line)) and path is not None:
            start, count = int(match.group(1)), int(match.group(2) or "1")
            current = [start, count, [], []]
            hunks.setdefault(path, []).append(current)  # type: ignore[arg-type]
        elif current is not None and line[:1] in ("-", "+"):
            current[2 if line[0] == "-" else 3].append(line[1:])
    return {
        p: [Hunk(h[0], h[1], tuple(h[2]), tuple(h[3])) for h in found]  # type: ignore[index]
        for p, found in hunks.items()
    }


def is_formatting_only(hunks: list[Hunk]) -> bool:
    """True when the hunks change nothing but whitespace and blank lines."""
    removed = sorted("".join(line.split()) for h in hunks for line in h.removed)
    added = sorted("".join(line.split()) for h in hunks for line in h.added)
    return [r for r in removed if r] == [a for a in added if a]


class Blobs:
    """File versions read through one long-running `git cat-file --batch`."""

    def __init__(self, repo: Path) -> None:
        self._process = subprocess.Popen(
            ["git", "--git-dir", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, commit: str, path: str) -> tuple[str, bytes] | None:
        """The blob sha and bytes of `path` at `commit`; None when absent from the snapshot."""
        assert self._process.stdin and self._process.stdout
        self._process.stdin.write(f"{commit}:{path}\n".encode())
        self._process.stdin.flush()
        header = self._process.stdout.readline().decode("utf-8", "replace").split()
        if len(header) != 3:
            return None
        sha, kind, size = header[0], header[1], int(header[2])
        data = self._process.stdout.read(size + 1)[:size]
        return (sha, data) if kind == "blob" else None

    def close(self) -> None:
        """End the git process."""
        if self._process.stdin:
            self._process.stdin.close()
        self._process.wait(timeout=30)

    def __enter__(self) -> Blobs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tree_files(repo: Path, commit: str, folder: str) -> list[str]:
    """The files directly in `folder` ('' for the top) at `commit`."""
    spec = f"{commit}:{folder}" if folder else f"{commit}:"
    out = git(repo, "ls-tree", "--name-only", spec, check=False)
    prefix = f"{folder}/" if folder else ""
    return [prefix + name for name in out.splitlines() if name]
