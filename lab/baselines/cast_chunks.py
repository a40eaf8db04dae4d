"""The cAST authors' chunker (`astchunk` on PyPI): split-then-merge over the tree-sitter AST,
sized by non-whitespace characters."""

from __future__ import annotations

from pathlib import Path

from benchmarks.eval_sets import EvalSet
from lab.baselines.windows import Passage, corpus_files

# the size the astchunk README uses in its examples (non-whitespace characters)
MAX_CHUNK_SIZE = 2000


def cast_chunks(
    root: Path, eval_set: EvalSet, max_chunk_size: int = MAX_CHUNK_SIZE
) -> list[Passage]:
    """astchunk chunks of every source file of the set (its language must be astchunk's)."""
    from astchunk import ASTChunkBuilder

    builder = ASTChunkBuilder(
        max_chunk_size=max_chunk_size,
        language=eval_set.cast_language,
        metadata_template="default",
    )
    passages = []
    for path, text in corpus_files(root, eval_set.source_suffixes):
        if not text.strip():
            continue
        for window in builder.chunkify(text, repo_level_metadata={"filepath": path}):
            meta = window["metadata"]
            # astchunk's line numbers are tree-sitter rows: 0-based
            passages.append(
                Passage(path, meta["start_line_no"] + 1, meta["end_line_no"] + 1, window["content"])
            )
    return passages
