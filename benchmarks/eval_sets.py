"""The public dev sets every benchmark measures on (shared/eval: Python; php/; ts/): one
description per set, and fetching its corpus with the set's own script into a git repository.

A set's paths are relative to its corpus folder; the benchmarks keep each corpus in
`benchmarks/.work/<corpus_dir>/` and the CI guard in the test cache.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.scoring import EVAL_DIR

# held-out sets written for this project (benchmarks/holdout/): never tuned on, measured to check
# that a change chosen on the public dev sets carries over to other languages
HOLDOUT_DIR = Path(__file__).resolve().parent / "holdout"


@dataclass(frozen=True)
class EvalSet:
    """One labelled dev set: where it lives, which files the baselines read, how CI slices it."""

    name: str  # short key used on the command line and in database names: py, php, ts
    language: str  # for humans
    folder: Path  # queries.jsonl, callers.jsonl, fetch_corpus.sh, README.md
    source_suffixes: tuple[str, ...]  # files the window/cAST baselines index
    cast_language: str | None  # astchunk's name for the language (None: astchunk lacks it)
    corpus_dir: str  # folder name of the corpus under the benchmark's work area (and repo name)
    guard_prefixes: tuple[str, ...]  # path prefixes of the CI guard's slice of the corpus
    fetch_tools: tuple[str, ...]  # programs the fetch script needs besides bash/coreutils
    description: str  # the corpus in a few words
    # the README's BM25 reference (whole-line windows up to 2,048 chars): R@5, tight@5, MRR@10
    reference: tuple[float, float, float]
    holdout: bool = False  # a held-out set (benchmarks/holdout/), not a public dev set
    mined: bool = False  # questions mined from docstrings (lab/mined/): built, not fetched

    @property
    def queries_path(self) -> Path:
        """The labelled questions."""
        return self.folder / "queries.jsonl"

    @property
    def callers_path(self) -> Path:
        """The verified call sites."""
        return self.folder / "callers.jsonl"

    @property
    def fetch_script(self) -> Path:
        """The set's own script that rebuilds its corpus from pinned packages."""
        return self.folder / "fetch_corpus.sh"

    def queries(self) -> list[dict]:
        """The labelled questions (one JSON object per line)."""
        return _jsonl(self.queries_path)

    def callers(self) -> list[dict]:
        """Functions with their verified call sites."""
        return _jsonl(self.callers_path)

    def is_source(self, path: str) -> bool:
        """True for a file the baselines index."""
        return path.endswith(self.source_suffixes)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


EVAL_SETS: dict[str, EvalSet] = {
    "py": EvalSet(
        name="py",
        language="Python",
        folder=EVAL_DIR,
        source_suffixes=(".py",),
        cast_language="python",
        corpus_dir="corpus",
        guard_prefixes=("flask/", "itsdangerous/"),
        fetch_tools=(),
        description="flask, werkzeug, click, jinja2, itsdangerous (PyPI wheels)",
        reference=(0.767, 0.300, 0.551),
    ),
    "php": EvalSet(
        name="php",
        language="PHP",
        folder=EVAL_DIR / "php",
        source_suffixes=(".php",),
        cast_language=None,  # astchunk 0.1.0: python, java, c#, typescript only
        corpus_dir="corpus-php",
        guard_prefixes=tuple(
            f"Symfony/Component/{c}/"
            for c in ("EventDispatcher", "Finder", "HttpFoundation", "Process", "String", "Yaml")
        ),
        fetch_tools=("apt-get", "dpkg-deb"),
        description="ten Symfony 5.4 components (Debian packages)",
        reference=(0.667, 0.200, 0.506),
    ),
    "ts": EvalSet(
        name="ts",
        language="TypeScript",
        folder=EVAL_DIR / "ts",
        source_suffixes=(".ts",),
        cast_language="typescript",
        corpus_dir="corpus-ts",
        guard_prefixes=("query-core/", "trpc-server/"),  # the whole corpus: it is small
        fetch_tools=("npm",),
        description="@trpc/server 11 and @tanstack/query-core 5 sources (npm)",
        reference=(0.829, 0.229, 0.634),
    ),
    "go": EvalSet(
        name="go",
        language="Go",
        folder=HOLDOUT_DIR / "go",
        source_suffixes=(".go",),
        cast_language=None,
        corpus_dir="corpus-go",
        guard_prefixes=("chi/", "gin/"),
        fetch_tools=("apt-get", "dpkg-deb"),
        description="cobra, chi, gin, prometheus client_golang, goldmark (Debian packages)",
        reference=(0.795, 0.231, 0.566),
        holdout=True,
    ),
    "rust": EvalSet(
        name="rust",
        language="Rust",
        folder=HOLDOUT_DIR / "rust",
        source_suffixes=(".rs",),
        cast_language=None,
        corpus_dir="corpus-rust",
        guard_prefixes=("http/", "semver/", "url/"),
        fetch_tools=("apt-get", "dpkg-deb"),
        description="clap, serde_json, http, url, semver crates (Debian packages)",
        reference=(0.275, 0.1, 0.212),
        holdout=True,
    ),
    "ruby": EvalSet(
        name="ruby",
        language="Ruby",
        folder=HOLDOUT_DIR / "ruby",
        source_suffixes=(".rb",),
        cast_language=None,
        corpus_dir="corpus-ruby",
        guard_prefixes=("rack/", "sinatra/"),
        fetch_tools=("apt-get", "dpkg-deb"),
        description="rack, sinatra, rack-protection, mustermann, thor (Debian packages)",
        reference=(0.75, 0.275, 0.495),
        holdout=True,
    ),
    "java": EvalSet(
        name="java",
        language="Java",
        folder=HOLDOUT_DIR / "java",
        source_suffixes=(".java",),
        cast_language="java",
        corpus_dir="corpus-java",
        guard_prefixes=("openjfx-source/",),
        fetch_tools=("apt-get", "dpkg-deb"),
        description="BeanShell 2.0b4 and OpenJFX 11 base and fxml sources (Debian packages)",
        reference=(0.75, 0.225, 0.514),
        holdout=True,
    ),
    "csharp": EvalSet(
        name="csharp",
        language="C#",
        folder=HOLDOUT_DIR / "csharp",
        source_suffixes=(".cs",),
        cast_language="csharp",
        corpus_dir="corpus-csharp",
        guard_prefixes=("nunit/",),
        fetch_tools=("apt-get", "tar", "gzip", "bzip2"),
        description="Newtonsoft.Json 6.0.8 and the NUnit 2.6.4 framework (Debian source packages)",
        reference=(0.65, 0.375, 0.459),
        holdout=True,
    ),
}
DEV_SETS = ",".join(name for name, s in EVAL_SETS.items() if not s.holdout)


def select(
    names: str | list[str] | None,
    expand: Callable[[str], list[EvalSet]] = lambda name: [],
    others: str = "",
) -> list[EvalSet]:
    """The sets named in a comma-separated list (None: the public dev sets; 'all': every
    hand-written set, the held-out ones too). `expand` gives the sets a name outside these stands
    for and `others` lists such names for the error: the lab's mined sets (`lab.mined.sets.select`,
    `mined-go-test`, `mined-test`), which benchmarks/ never imports."""
    if names is None:
        names = DEV_SETS
    if names == "all":
        return list(EVAL_SETS.values())
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
    chosen: list[EvalSet] = []
    for name in wanted:
        found = [EVAL_SETS[name]] if name in EVAL_SETS else expand(name)
        if not found:
            raise SystemExit(
                f"unknown eval set {name!r}; choose from {','.join(EVAL_SETS)}"
                + (f" or {others}" if others else "")
            )
        chosen += [s for s in found if s not in chosen]
    return chosen


def missing_tools(eval_set: EvalSet) -> list[str]:
    """Programs the set's fetch script needs that are not on PATH."""
    return [tool for tool in eval_set.fetch_tools if shutil.which(tool) is None]


def fetch_corpus(eval_set: EvalSet, dest: Path) -> Path:
    """Run the set's fetch script into `dest` (rebuilt from scratch) unless already there."""
    if dest.is_dir() and any(p.name != ".git" for p in dest.iterdir()):
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(
        ["bash", str(eval_set.fetch_script), str(dest)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if out.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        raise RuntimeError(
            f"fetching the {eval_set.language} corpus failed ({eval_set.fetch_script}):"
            f" {out.stderr.strip()[-1500:]}"
        )
    return dest


def queries_within(queries: list[dict], prefixes: tuple[str, ...] | None) -> list[dict]:
    """Questions whose every gold answer lies under one of the path prefixes (None: all)."""
    if prefixes is None:
        return queries
    return [q for q in queries if all(g["path"].startswith(prefixes) for g in q["gold"])]


def callers_within(entries: list[dict], prefixes: tuple[str, ...] | None) -> list[dict]:
    """Caller entries whose definition and every call site lie under the prefixes (None: all)."""
    if prefixes is None:
        return entries
    return [
        e
        for e in entries
        if e["defined_in"]["path"].startswith(prefixes)
        and all(c["path"].startswith(prefixes) for c in e["callers"])
    ]
