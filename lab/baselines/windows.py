"""Fixed-size windows over whole files: what naive RAG and the eval set's reference index."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

# every text file of a corpus (what a naive indexer would read); the quality baselines read only
# an eval set's source files (EvalSet.source_suffixes), as the eval READMEs' reference does
TEXT_SUFFIXES = (
    ".py",
    ".pyi",
    ".txt",
    ".md",
    ".rst",
    ".html",
    ".cfg",
    ".toml",
    ".json",
    ".js",
    ".css",
    ".typed",
)


@dataclass(frozen=True)
class Passage:
    """A retrievable unit of a baseline: a file range and its text (lines 1-based, inclusive)."""

    path: str
    start_line: int
    end_line: int
    text: str


def corpus_files(
    root: Path, suffixes: tuple[str, ...] = TEXT_SUFFIXES
) -> Iterator[tuple[str, str]]:
    """(relative path, text) of every file under root with one of the suffixes, in path order."""
    for file in sorted(root.rglob("*")):
        if ".git" in file.parts or not file.is_file() or file.suffix not in suffixes:
            continue
        yield file.relative_to(root).as_posix(), file.read_text(errors="replace")


def _line_at(line_starts: list[int], offset: int) -> int:
    """1-based line of a character offset (binary search over line starts)."""
    lo, hi = 0, len(line_starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if line_starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def char_windows(
    root: Path, size: int = 2048, suffixes: tuple[str, ...] = TEXT_SUFFIXES
) -> list[Passage]:
    """Non-overlapping windows of `size` characters per file (the Python README's first
    reference variant)."""
    passages = []
    for path, text in corpus_files(root, suffixes):
        starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        for begin in range(0, len(text), size):
            piece = text[begin : begin + size]
            if not piece.strip():
                continue
            end = begin + len(piece) - 1
            passages.append(Passage(path, _line_at(starts, begin), _line_at(starts, end), piece))
    return passages


def line_windows(
    root: Path, size: int = 2048, suffixes: tuple[str, ...] = TEXT_SUFFIXES
) -> list[Passage]:
    """Windows of whole lines up to `size` characters each, no overlap (a longer line is a window
    of its own): the eval READMEs' BM25 reference definition."""
    passages = []
    for path, text in corpus_files(root, suffixes):
        lines = text.splitlines(keepends=True)
        start = used = 0
        for i, line in enumerate(lines):
            if used and used + len(line) > size:
                passages.append(Passage(path, start + 1, i, "".join(lines[start:i])))
                start, used = i, 0
            used += len(line)
        if start < len(lines) and "".join(lines[start:]).strip():
            passages.append(Passage(path, start + 1, len(lines), "".join(lines[start:])))
    return passages


def token_windows(
    root: Path,
    count_tokens: Callable[[str], int],
    size: int = 512,
    suffixes: tuple[str, ...] = TEXT_SUFFIXES,
) -> list[Passage]:
    """Windows of whole lines up to `size` model tokens each, no overlap (naive RAG's splitter)."""
    passages = []
    for path, text in corpus_files(root, suffixes):
        lines = text.splitlines(keepends=True)
        start = 0
        used = 0
        for i, line in enumerate(lines):
            cost = count_tokens(line) if line.strip() else 1
            if used and used + cost > size:
                passages.append(Passage(path, start + 1, i, "".join(lines[start:i])))
                start, used = i, 0
            used += cost
        if start < len(lines) and "".join(lines[start:]).strip():
            passages.append(Passage(path, start + 1, len(lines), "".join(lines[start:])))
    return passages
