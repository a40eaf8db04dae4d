"""Mining one repository: its first-parent history read newest first, each commit that passes
the message and file rules turned into a (query, functions changed at the parent) pair.

The rules, in the order they are checked (the first that fails is the reason counted):
1. the message (`messages.skip_reason`): a fix or an issue reference; not a merge of a branch,
   a revert, a version bump, a dependency update or a formatting change; 8 words or more;
2. the files: 1 to MAX_SOURCE_FILES of the project's own source files in its languages (tests,
   by their path or their content, docs, changelogs and other files are free), at least one of
   them present at the parent;
3. the diff: more than whitespace changes, every source file readable at the parent (present
   in the snapshot, at most MAX_FILE_BYTES, not generated or minified);
4. the positives: 1 to MAX_POSITIVES functions at the parent whose lines overlap the lines the
   diff removes or changes (a pure insertion counts for the function around it);
5. for the train split only, the strict consistency filter (`consistency.py`).
A repository gives at most MAX_PAIRS pairs, the newest first, from at most MAX_COMMITS commits
and MAX_SECONDS of mining.
"""

from __future__ import annotations

import posixpath
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from indexing.parsing.content_roles import CODE, content_role, is_test_function
from indexing.parsing.file_rules import skip_reason as file_skip_reason
from lab.fixes.consistency import consistency
from lab.fixes.functions import Function, file_functions
from lab.fixes.history import (
    Blobs,
    Commit,
    Hunk,
    first_parent_commits,
    is_formatting_only,
    parent_hunks,
    tree_files,
)
from lab.fixes.messages import clean_query
from lab.fixes.messages import skip_reason as message_skip_reason
from lab.fixes.negatives import hard_negatives
from lab.fixes.roles import LANGUAGE_FAMILIES, is_test, source_language

MAX_PAIRS = 60
MAX_COMMITS = 4000
MAX_SOURCE_FILES = 3
MAX_POSITIVES = 8
MAX_FILE_BYTES = 512 * 1024
MAX_NEIGHBOUR_FILES = 6
# wall-clock bound per repository: a pathological history (huge generated headers parsed again
# at every commit) stops early, with the pairs found so far and `stopped_early` in its counts
MAX_SECONDS = 150


@dataclass
class RepoResult:
    """The pairs of one repository and what was dropped, by reason."""

    pairs: list[dict] = field(default_factory=list)
    scanned: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    stopped_early: bool = False
    # dev/test pairs the filter would drop (strict) and the lenient form would (lenient)
    inconsistent_strict: int = 0
    inconsistent_lenient: int = 0


class _FileCache:
    """Functions of file versions, parsed once per blob."""

    def __init__(self, blobs: Blobs) -> None:
        self.blobs = blobs
        self._parsed: dict[tuple[str, str], list[Function] | None] = {}
        self._roles: dict[str, str] = {}

    def role(self, commit: str, path: str, language: str) -> str:
        """The role the file's content shows at the commit (`content_roles.content_role`: a
        test suite's file in a folder the layouts do not name, say); CODE when unreadable."""
        read = self.blobs.read(commit, path)
        if read is None:
            return CODE
        sha, data = read
        if sha not in self._roles:
            self._roles[sha] = content_role(language, data.decode("utf-8", "replace"))
        return self._roles[sha]

    def functions(self, commit: str, path: str, language: str) -> list[Function] | None:
        """The file's functions at the commit; None when it cannot be read or is not code."""
        read = self.blobs.read(commit, path)
        if read is None:
            return None
        sha, data = read
        key = (sha, path)
        if key not in self._parsed:
            if len(data) > MAX_FILE_BYTES or file_skip_reason(
                path, len(data), data, max_bytes=MAX_FILE_BYTES
            ):
                self._parsed[key] = None
            else:
                self._parsed[key] = file_functions(path, data, language)
        return self._parsed[key]


def mine_repository(
    repo: Path, name: str, language: str, head: str, split: str, *, max_pairs: int = MAX_PAIRS
) -> RepoResult:
    """The pairs of one repository at `head`, newest first."""
    family = LANGUAGE_FAMILIES[language]
    result = RepoResult()
    deadline = time.monotonic() + MAX_SECONDS
    with Blobs(repo) as blobs:
        cache = _FileCache(blobs)
        for commit in first_parent_commits(repo, head, MAX_COMMITS):
            if len(result.pairs) >= max_pairs:
                break
            if time.monotonic() > deadline:
                result.stopped_early = True
                break
            result.scanned += 1
            try:
                pair, reason = _mine_commit(repo, cache, commit, name, language, family, split)
            except subprocess.CalledProcessError:
                pair, reason = None, "git_error"
            if pair is None:
                result.dropped[reason] += 1
                continue
            strict, lenient = pair.pop("_lenient")
            if split != "train":
                result.inconsistent_strict += not strict
                result.inconsistent_lenient += not lenient
            elif not strict:
                result.dropped["inconsistent"] += 1
                continue
            result.pairs.append(pair)
    return result


def _mine_commit(
    repo: Path,
    cache: _FileCache,
    commit: Commit,
    name: str,
    language: str,
    family: frozenset[str],
    split: str,
) -> tuple[dict | None, str]:
    if commit.parent is None:
        return None, "root_commit"
    reason = message_skip_reason(commit.message, commit.author)
    if reason:
        return None, reason
    sources = [(status, path) for status, path in commit.changes if source_language(path, family)]
    # a file the layouts take for source whose content is a test suite's (a Rust `tests.rs`,
    # a `mocha_test/` folder): the fix's tests, as `locate` reads them, not the code it fixes
    content_tests = {
        path
        for status, path in sources
        if cache.role(
            commit.sha if status == "A" else commit.parent,
            path,
            source_language(path, family) or language,
        )
        != CODE
    }
    sources = [(status, path) for status, path in sources if path not in content_tests]
    if not sources:
        return None, "no_source_file"
    if len(sources) > MAX_SOURCE_FILES:
        return None, "too_many_source_files"
    at_parent = [path for status, path in sources if status != "A"]
    if not at_parent:
        return None, "only_new_files"
    hunks = parent_hunks(repo, commit.parent, commit.sha, at_parent)
    if is_formatting_only([h for found in hunks.values() for h in found]):
        return None, "formatting_only"
    positives: list[Function] = []
    changed: list[Function] = []
    inline_tests = False
    for path in at_parent:
        file_language = source_language(path, family) or language
        functions = cache.functions(commit.parent, path, file_language)
        if functions is None:
            return None, "unreadable_file"
        # a test function of a code file (Rust's inline `mod tests`) is the fix's test, as
        # `locate` and search read it, not the code it fixes
        tests = [f for f in functions if is_test_function(file_language, f.symbol)]
        functions = [f for f in functions if f not in tests]
        touched = _touched(functions, hunks.get(path, []))
        inline_tests = inline_tests or bool(_touched(tests, hunks.get(path, [])))
        positives.extend(touched)
        changed.extend(f for f in functions if f not in touched)
    if not positives:
        return None, "only_tests_changed" if inline_tests else "no_function_changed"
    if len(positives) > MAX_POSITIVES:
        return None, "too_many_functions"
    query = clean_query(commit.message)
    files = [path for _, path in sources]
    neighbours = _neighbours(repo, cache, commit.parent, files, family)
    strict, lenient = consistency(query, positives, files)
    return {
        "id": f"{name}@{commit.sha[:12]}",
        "repo": name,
        "language": language,
        "split": split,
        "commit": commit.sha,
        "parent": commit.parent,
        "date": commit.date,
        "query": query,
        "files": files,
        "positives": [
            {
                "path": f.path,
                "symbol": f.symbol,
                "kind": f.kind,
                "start_line": f.start_line,
                "end_line": f.end_line,
            }
            for f in positives
        ],
        "negatives": hard_negatives(query, positives, changed, neighbours),
        "touches_tests": bool(content_tests)
        or inline_tests
        or any(is_test(path) for _, path in commit.changes),
        "consistency": strict,
        "_lenient": (strict, lenient),
    }, ""


def _touched(functions: list[Function], hunks: list[Hunk]) -> list[Function]:
    """The functions whose lines the hunks remove or change, or that enclose an insertion."""
    touched = []
    for function in functions:
        for hunk in hunks:
            if hunk.count:
                hit = function.overlaps(hunk.start, hunk.start + hunk.count - 1)
            else:
                hit = function.start_line <= hunk.start and hunk.start + 1 <= function.end_line
            if hit:
                touched.append(function)
                break
    return touched


def _neighbours(
    repo: Path, cache: _FileCache, parent: str, files: list[str], family: frozenset[str]
) -> list[Function]:
    """Functions of the source files beside the changed ones at the parent (same folders first,
    then the folders above them), at most MAX_NEIGHBOUR_FILES files."""
    folders: list[str] = []
    for path in files:
        folder = posixpath.dirname(path)
        if folder not in folders:
            folders.append(folder)
    for path in files:
        above = posixpath.dirname(posixpath.dirname(path))
        if posixpath.dirname(path) and above not in folders:
            folders.append(above)
    picked: list[str] = []
    for folder in folders:
        for path in sorted(tree_files(repo, parent, folder)):
            if path not in files and path not in picked and source_language(path, family):
                picked.append(path)
            if len(picked) >= MAX_NEIGHBOUR_FILES:
                break
        if len(picked) >= MAX_NEIGHBOUR_FILES:
            break
    found: list[Function] = []
    for path in picked:
        found.extend(cache.functions(parent, path, source_language(path, family) or "") or [])
    return found
