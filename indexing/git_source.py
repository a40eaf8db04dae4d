"""Reading repositories with git: resolve refs, list a commit's tree, stream blobs."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from core.errors import CodeatlasError, NotAGitRepositoryError

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


class GitError(CodeatlasError):
    """A git command failed."""


@dataclass(frozen=True)
class TreeEntry:
    """One path of a commit's tree."""

    path: str
    blob_sha: str
    size: int
    mode: str  # 100644, 100755, 120000 (symlink), 160000 (submodule)
    # the blob is not in this clone: a partial clone (`git clone --filter=blob:limit=…`) left it
    # with its promisor remote; its size is unknown (0) and its file is skipped
    absent: bool = False


# Indexing reads what the clone holds: a partial clone's git would otherwise fetch each absent
# blob from its remote, one request at a time, as `ls-tree -l` or `cat-file` touch it (the
# gigabytes the clone was made to leave out), or fail when that remote is gone.
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_NO_LAZY_FETCH": "1"}


def git(repo: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    """Run git in `repo` and return stdout; raise GitError with git's message on failure."""
    env = {**os.environ, **_GIT_ENV}
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        input=input_bytes,
        capture_output=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        message = redact_url_credentials(proc.stderr.decode(errors="replace").strip())
        raise GitError(f"git {args[0]} failed in {repo}: {message}")
    return proc.stdout


def is_remote(origin: str) -> bool:
    """Whether `origin` is a URL (or scp-like address) rather than a local path."""
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://", origin)) or bool(
        re.match(r"^[\w.-]+@[\w.-]+:", origin)
    )


def redact_url_credentials(text: str) -> str:
    """Remove `user:password@` from any URL in `text` (never store or log credentials)."""
    return re.sub(r"([a-z][a-z0-9+.-]*://)[^/@\s]+@", r"\1", text)


def clean_origin(origin: str) -> str:
    """The origin as stored: credentials stripped from URLs, local paths made absolute."""
    if is_remote(origin):
        parts = urlsplit(origin)
        if parts.scheme:
            netloc = parts.hostname or ""
            if parts.port:
                netloc += f":{parts.port}"
            return urlunsplit(parts._replace(netloc=netloc))
        return origin
    return str(Path(origin).expanduser().resolve())


def open_local(path: Path) -> Path:
    """Validate a local repository path and return its git directory root."""
    if not path.exists():
        raise NotAGitRepositoryError(f"{path} does not exist")
    try:
        out = git(path, "rev-parse", "--git-dir")
    except GitError as exc:
        raise NotAGitRepositoryError(
            f"{path} is not a git repository (run `git init` there, or pass a clone URL)"
        ) from exc
    git_dir = Path(out.decode().strip())
    return path if not git_dir.is_absolute() else path


def mirror(origin_url: str, mirror_dir: Path, credentials: tuple[str, str] | None = None) -> Path:
    """Clone (first time) or fetch a bare mirror of a remote repository; return its path.

    Credentials come from the URL given at run time, `credentials` (user name and token: the
    settings' `git_username` and `git_token`) or git's own credential helpers and environment
    (GIT_ASKPASS, ssh agent); they are never written to the database or logs.
    """
    url = _with_credentials(origin_url, credentials)
    mirror_dir.parent.mkdir(parents=True, exist_ok=True)
    if (mirror_dir / "HEAD").exists():
        git(mirror_dir, "fetch", "--prune", "--quiet", url, "+refs/heads/*:refs/heads/*")
    else:
        tmp = mirror_dir.with_name(mirror_dir.name + ".partial")
        if tmp.exists():
            shutil.rmtree(tmp)
        git(mirror_dir.parent, "clone", "--mirror", "--quiet", url, str(tmp))
        # the stored remote must not keep credentials
        git(tmp, "remote", "set-url", "origin", clean_origin(origin_url))
        tmp.rename(mirror_dir)
    return mirror_dir


def _with_credentials(url: str, credentials: tuple[str, str] | None) -> str:
    parts = urlsplit(url)
    if credentials and parts.scheme in ("http", "https") and "@" not in parts.netloc:
        username, token = credentials
        return urlunsplit(parts._replace(netloc=f"{username}:{token}@{parts.netloc}"))
    return url


def resolve_commit(repo: Path, ref: str) -> str:
    """The full commit sha that `ref` names."""
    if _SHA.match(ref):
        return ref
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except GitError as exc:
        if not git(repo, "rev-list", "-n", "1", "--all").strip():
            raise GitError(f"{repo} has no commits yet: commit its files, then index it") from exc
        raise GitError(f"no commit named {ref!r} in {repo}") from exc


def current_branch(repo: Path) -> str | None:
    """The branch HEAD points at, or None when detached."""
    out = subprocess.run(
        ["git", "-C", str(repo), "symbolic-ref", "--quiet", "--short", "HEAD"],
        capture_output=True,
        check=False,
    )
    name = out.stdout.decode().strip()
    return name or None


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    """Whether commit `older` is an ancestor of (or equal to) `newer`."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", older, newer],
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def has_commit(repo: Path, sha: str) -> bool:
    """Whether the repository holds commit `sha` (history rewritten by a force-push and
    collected, or another checkout registered under the name, may not)."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{sha}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def commit_time(repo: Path, sha: str) -> int:
    """Committer time of `sha` as a unix timestamp."""
    return int(git(repo, "show", "-s", "--format=%ct", sha).decode().strip())


_PARTIAL_CLONE_KEYS = r"^(remote\..*\.promisor|extensions\.partialclone)$"


def is_partial_clone(repo: Path) -> bool:
    """Whether `repo` may lack blobs it names: a remote of it is a promisor (`git clone
    --filter=…` sets that), or it names a partial clone's filter remote."""
    try:
        out = git(repo, "config", "--get-regexp", _PARTIAL_CLONE_KEYS)
    except GitError:  # none set: git config exits 1
        return False
    return any(
        not key.endswith(b".promisor") or value.strip().lower() in (b"true", b"yes", b"on", b"1")
        for key, _, value in (line.partition(b" ") for line in out.splitlines())
    )


def absent_blobs(repo: Path, sha: str) -> set[str]:
    """The blobs of commit `sha`'s tree that this clone lacks (none unless a partial clone)."""
    if not is_partial_clone(repo):
        return set()
    out = git(repo, "rev-list", "--objects", "--missing=print", "--no-walk", sha)
    return {line[1:].split()[0].decode() for line in out.splitlines() if line.startswith(b"?")}


def list_tree(repo: Path, sha: str) -> list[TreeEntry]:
    """Every path of the commit's tree (recursively) with blob sha, size and mode; a blob this
    clone lacks is listed `absent` with size 0."""
    absent = absent_blobs(repo, sha)
    if absent:  # `ls-tree -l` needs every blob for its size: sizes come from the present ones
        out = git(repo, "ls-tree", "-r", "-z", "--full-tree", sha)
    else:
        out = git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", sha)
    listed = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, obj, *size = meta.split()
        listed.append(
            (path.decode("utf-8", errors="surrogateescape"), obj.decode(), kind, mode, size)
        )
    present = {obj for _, obj, kind, _, _ in listed if kind == b"blob"} - absent
    sizes = _blob_sizes(repo, sorted(present)) if absent else {}
    entries = []
    for path, obj, kind, mode, size in listed:
        if absent:
            known = sizes.get(obj)
        else:  # a size git could not read is "BAD" (or "-" for a submodule)
            known = int(size[0]) if kind == b"blob" and size and size[0].isdigit() else None
        missing = kind == b"blob" and (obj in absent or (not absent and known is None))
        entries.append(
            TreeEntry(path=path, blob_sha=obj, size=known or 0, mode=mode.decode(), absent=missing)
        )
    return entries


def changed_entries(repo: Path, old: str, new: str) -> tuple[list[TreeEntry], list[str]]:
    """What `new`'s tree changes against `old`'s: the entries added or changed (as `list_tree`
    gives them: blob sha, size, mode) and the paths that are gone (no rename detection: a rename
    is a path gone and a path added)."""
    out = git(repo, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)
    fields = out.split(b"\0")
    changed: list[tuple[str, str, str]] = []  # (path, sha, mode)
    gone: list[str] = []
    i = 0
    while i + 1 < len(fields):
        meta, path = fields[i], fields[i + 1].decode("utf-8", errors="surrogateescape")
        i += 2
        if not meta.startswith(b":"):
            raise GitError(f"git diff-tree: unexpected output {meta[:80]!r}")
        _old_mode, new_mode, _old_sha, new_sha, status = meta[1:].decode().split()
        if status == "D":
            gone.append(path)
        else:
            changed.append((path, new_sha, new_mode))
    absent = absent_blobs(repo, new) if changed else set()
    blobs = {sha for _, sha, mode in changed if mode != "160000"}
    sizes = _blob_sizes(repo, sorted(blobs - absent))
    entries = [
        TreeEntry(path=path, blob_sha=sha, size=sizes.get(sha, 0), mode=mode, absent=sha in absent)
        for path, sha, mode in changed
    ]
    return entries, gone


def _blob_sizes(repo: Path, shas: list[str]) -> dict[str, int]:
    """The size of each blob (`git cat-file --batch-check`)."""
    if not shas:
        return {}
    out = git(repo, "cat-file", "--batch-check", input_bytes="\n".join(shas).encode() + b"\n")
    sizes = {}
    for line in out.decode().splitlines():
        sha, kind, *size = line.split()
        if kind == "blob" and size and size[0].isdigit():
            sizes[sha] = int(size[0])
    return sizes


def _cat_file(repo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **_GIT_ENV},
    )


def _close(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(OSError):  # a git that exited has closed its end already
        proc.stdin.close()
    proc.wait(timeout=30)


def read_blobs(repo: Path, shas: Iterable[str]) -> Iterator[tuple[str, bytes | None]]:
    """Stream (sha, content) for each blob through one `git cat-file --batch` process; content is
    None for a blob git cannot read (missing from a partial clone, or corrupt), and the next one
    is read by a new process if git gave up on this one."""
    proc = _cat_file(repo)
    try:
        for sha in shas:
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(sha.encode() + b"\n")
                proc.stdin.flush()
                header = proc.stdout.readline().split()
            except BrokenPipeError:
                header = []
            if len(header) < 3 or not header[2].isdigit():
                if not header:  # git exited (a partial clone's absent blob is fatal to it)
                    _close(proc)
                    proc = _cat_file(repo)
                yield sha, None
                continue
            content = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)  # trailing newline
            yield sha, content
    finally:
        _close(proc)
