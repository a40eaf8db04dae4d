"""Question sets written for this project over codebases of the mined fixes' *training* split
(lab/fixes/repos.json), in the shape of the hand-written sets (`shared/eval/*/queries.jsonl`:
how the code does something, asked in words; a name asked for; where a setting takes effect),
to learn and measure the ranking of such questions on codebases no other set holds.

Each set is a folder here with `set.json` (the repository, the commit lab/fixes/repos.json
records for it, the folders and suffixes of the corpus, its file and line counts),
`queries.jsonl` (the eval sets' format) and `README.md`. The corpus is the repository's git
mirror at that commit (`fetch github:owner/name` puts it under /work/.mirror), those folders
only: `python -m lab.questions check NAME` builds it and checks every gold range against the
functions codeatlas parses there. The lab selects a set as `q-<name>` and all of them as
`questions` (`python -m lab.quality --sets questions`), never among the default or `all` sets.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from benchmarks.eval_sets import EvalSet

FOLDER = Path(__file__).resolve().parent
PREFIX = "q-"


def recipe(folder: Path) -> dict:
    """A set's `set.json`."""
    return json.loads((folder / "set.json").read_text())


@cache
def question_sets() -> dict[str, EvalSet]:
    """Every set of this folder, by its selection name (`q-<folder>`)."""
    found: dict[str, EvalSet] = {}
    for folder in sorted(p for p in FOLDER.iterdir() if (p / "set.json").is_file()):
        spec = recipe(folder)
        name = PREFIX + folder.name
        found[name] = EvalSet(
            name=name,
            language=spec["language"],
            folder=folder,
            source_suffixes=tuple(spec["suffixes"]),
            cast_language=None,
            corpus_dir=f"corpus-{name}",
            guard_prefixes=(),
            fetch_tools=("git", "tar"),
            description=f"{spec['repo']} at {spec['commit'][:8]}: {', '.join(spec['paths'])}",
            reference=(0.0, 0.0, 0.0),  # no README reference: the BM25 baseline runs beside it
        )
    return found


def expand(name: str) -> list[EvalSet]:
    """The question sets a name stands for (empty when it names none)."""
    sets = question_sets()
    if name == "questions":
        return list(sets.values())
    return [sets[name]] if name in sets else []
