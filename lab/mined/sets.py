"""The mined sets as eval sets the quality benchmark can select: `mined-<language>-<split>`
(`mined-go-test`), and the groups `mined-test`, `mined-train`, `mined-<language>` and `mined`.

They are never among the default or `all` sets of the hand-written ones (`mined=True`).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import eval_sets
from benchmarks.eval_sets import EvalSet
from benchmarks.workspace import WORK, eval_corpus
from lab.mined.build import AREA, build_set, set_folder
from lab.mined.packages import LANGUAGES, SPLITS

_TOOLS = {
    "pypi": (),
    "pypi-sdist": (),
    "npm": ("npm",),
    "debian": ("apt-get", "dpkg-deb"),
    "debian-source": ("apt-get",),
}


def mined_set(language: str, split: str) -> EvalSet:
    """The eval set of one language's split (its corpus is built on first use)."""
    spec = LANGUAGES[language]
    packages = spec.packages(split)
    registries = sorted({p.registry for p in packages})
    return EvalSet(
        name=f"mined-{language}-{split}",
        language=spec.label,
        folder=set_folder(language, split),
        source_suffixes=spec.suffixes,
        cast_language=spec.cast_language,
        corpus_dir=str((set_folder(language, split) / "corpus").relative_to(AREA.parent)),
        guard_prefixes=(),
        fetch_tools=tuple(sorted({t for r in registries for t in _TOOLS[r]})),
        description=f"docstring questions mined from {', '.join(p.spec for p in packages)}",
        reference=(0.0, 0.0, 0.0),  # no README reference: the BM25 baseline runs beside it
        mined=True,
    )


MINED_SETS: dict[str, EvalSet] = {
    f"mined-{language}-{split}": mined_set(language, split)
    for language in LANGUAGES
    for split in SPLITS
}


def expand(name: str) -> list[EvalSet]:
    """The mined sets a name stands for (empty when it names none)."""
    if name in MINED_SETS:
        return [MINED_SETS[name]]
    if name in ("php2", "php2-checkout"):
        from lab.behaviour_php2 import PHP2, PHP2_CHECKOUT  # held-out behaviour set on yii2

        return [PHP2 if name == "php2" else PHP2_CHECKOUT]
    if name == "questions" or name.startswith("q-"):
        from lab.questions import expand as question_sets  # written over training-split code

        return question_sets(name)
    if name == "mined":
        return list(MINED_SETS.values())
    rest = name.removeprefix("mined-")
    if rest in SPLITS:
        return [MINED_SETS[f"mined-{lang}-{rest}"] for lang in LANGUAGES]
    if rest in LANGUAGES:
        return [MINED_SETS[f"mined-{rest}-{split}"] for split in SPLITS]
    return []


def build_for(eval_set: EvalSet) -> None:
    """Build the mined set's corpus and questions unless they are up to date."""
    language, split = eval_set.name.removeprefix("mined-").rsplit("-", 1)
    build_set(language, split)


def select(names: str | list[str] | None) -> list[EvalSet]:
    """The sets named (benchmarks.eval_sets.select), the mined sets and their groups too."""
    return eval_sets.select(
        names,
        expand,
        "php2, php2-checkout, questions, q-<set>, mined-test, mined-train or "
        + ",".join(MINED_SETS),
    )


def corpus(eval_set: EvalSet) -> Path:
    """The set's corpus as a git repository: a mined set's built from the registries, a
    hand-written set's fetched by its own script (benchmarks.workspace.eval_corpus)."""
    if not eval_set.mined:
        return eval_corpus(eval_set)
    build_for(eval_set)
    return WORK / eval_set.corpus_dir
