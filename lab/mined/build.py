"""Build one mined set: the split's packages' sources as a git repository with every function's
docs emptied, and questions sampled from the documented functions (docs.py, summary.py).

Layout, under `benchmarks/.work/mined/<language>-<split>/`: `corpus/` (the git repository that is
indexed), `queries.jsonl` (same format as the hand-written sets) and `stats.json` (packages with
their sha256, and what was seen, kept and filtered). A set whose recipe is unchanged is not built
again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks.workspace import WORK, as_git_repo
from lab.excluded import excluded_repos
from lab.mined.fetch import fetch, unpack
from lab.mined.mining import Candidate, drop_duplicates, questions, sample, take_sources
from lab.mined.packages import LANGUAGES, Package, refused

AREA = WORK / "mined"
PINS = Path(__file__).with_name("archives.lock.json")  # "<registry> <spec>" -> sha256
QUERIES_PER_SPLIT = 450
SEED = 26  # issue 26; any fixed number gives a deterministic sample
# the code that decides what is mined: a change to any of it rebuilds the sets
_RECIPE_CODE = ("docs.py", "mining.py", "paths.py", "stripping.py", "summary.py")
# bump when this module changes what a build writes (layout, question fields, sampling)
LAYOUT_VERSION = 2  # 2: a question may carry its long form (`description`)


@dataclass
class PackageStats:
    """What one package contributed."""

    folder: str
    registry: str
    spec: str
    sha256: str
    files: int = 0
    functions: int = 0
    documented: int = 0
    kept: int = 0
    queries: int = 0
    chunks: int = 0  # codeatlas' chunks of the package's files
    filtered: Counter = field(default_factory=Counter)


def set_folder(language: str, split: str) -> Path:
    """Where the set `mined-<language>-<split>` lives."""
    return AREA / f"{language}-{split}"


def build_set(language: str, split: str, *, limit: int = QUERIES_PER_SPLIT) -> Path:
    """Build (or keep, when its recipe is unchanged) one mined set; return its folder. Two
    processes building the same set take turns (a lock file beside it)."""
    AREA.mkdir(parents=True, exist_ok=True)
    with open(AREA / f"{language}-{split}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_set(language, split, limit)


def _build_set(language: str, split: str, limit: int) -> Path:
    spec = LANGUAGES[language]
    packages = spec.packages(split)
    reasons = refused(packages, excluded_repos())
    if reasons:
        raise RuntimeError(
            f"mined-{language}-{split} cannot be built: "
            + "; ".join(reasons)
            + " (choose another package in lab/mined/packages.py)"
        )
    folder = set_folder(language, split)
    recipe = _recipe(language, split, packages, limit)
    stats_file = folder / "stats.json"
    built = stats_file.is_file() and (folder / "corpus" / ".git").is_dir()
    if built and json.loads(stats_file.read_text()).get("recipe") == recipe:
        _say(f"{language}-{split}: up to date ({folder})")
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    corpus = folder / "corpus"
    corpus.mkdir(parents=True)
    candidates: list[Candidate] = []
    package_stats: list[PackageStats] = []
    for package in packages:
        _say(f"{language}-{split}: {package.spec} ({package.registry})")
        stats, found = _take_package(package, spec.suffixes, corpus)
        package_stats.append(stats)
        candidates.extend(found)
    seed = f"{SEED}-{language}-{split}"
    drop_duplicates(candidates, seed)
    queries, lost = questions(language, split, sample(candidates, limit, seed), corpus)
    # the long forms: a sample of their own among the functions whose doc says more than its
    # summary (the summaries' sample holds a few of them only)
    described = [c for c in candidates if c.description]
    long_forms, _ = questions(
        language, split, sample(described, limit, f"{seed}-long"), corpus, form="description"
    )
    by_package = {s.folder: s for s in package_stats}
    for c in candidates:
        if c.reason is None:
            by_package[c.package].kept += 1
        else:
            by_package[c.package].filtered[c.reason] += 1
    for q in queries:
        by_package[q["package"]].queries += 1
    sha = as_git_repo(corpus)
    chunks = _chunk_estimate(corpus, spec.suffixes)
    for stats in package_stats:
        stats.chunks = chunks.get(stats.folder, 0)
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "descriptions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in long_forms))
    summary = {
        "recipe": recipe,
        "set": f"mined-{language}-{split}",
        "language": spec.label,
        "split": split,
        "commit": sha,
        "queries": len(queries),
        "descriptions": len(long_forms),
        "lost_after_stripping": lost,
        "documented": len(candidates),
        "kept": sum(c.reason is None for c in candidates),
        "filtered": dict(Counter(c.reason for c in candidates if c.reason).most_common()),
        "chunks_estimate": sum(chunks.values()),
        "packages": [
            {**asdict(s), "filtered": dict(s.filtered.most_common())} for s in package_stats
        ],
    }
    stats_file.write_text(json.dumps(summary, indent=1) + "\n")
    _say(
        f"{language}-{split}: {len(queries)} questions from {summary['kept']} kept of"
        f" {len(candidates)} documented functions, ~{summary['chunks_estimate']} chunks"
    )
    return folder


def _take_package(
    package: Package, suffixes: tuple[str, ...], corpus: Path
) -> tuple[PackageStats, list[Candidate]]:
    """The package's non-test sources copied into the corpus with every function's docs
    emptied; its stats and its documented functions."""
    archive = fetch(package.registry, package.spec, AREA)
    _check_pin(package, archive.sha256)
    unpacked = unpack(archive, AREA)
    stats = PackageStats(package.folder, package.registry, package.spec, archive.sha256)
    roots = _roots(unpacked, package)
    found: list[Candidate] = []
    for root in roots:
        prefix = package.folder if len(roots) == 1 else f"{package.folder}/{root.name}"
        tree, more = take_sources(
            root, prefix, suffixes, corpus, package=package.folder, exclude=package.exclude
        )
        stats.files += tree.files
        stats.functions += tree.functions
        stats.documented += tree.documented
        found += more
    return stats, found


def _check_pin(package: Package, sha256: str) -> None:
    """The archive is the one the sets were built from (archives.lock.json), or the build stops."""
    pins = json.loads(PINS.read_text()) if PINS.is_file() else {}
    pinned = pins.get(f"{package.registry} {package.spec}")
    if pinned is None:
        _say(f"{package.spec}: no sha256 pinned in {PINS.name} (got {sha256})")
    elif pinned != sha256:
        raise RuntimeError(
            f"{package.spec} from {package.registry} has sha256 {sha256}, {PINS.name} pins"
            f" {pinned}: delete {AREA / 'downloads'} and retry, or update the pin if the registry"
            " really replaced the file"
        )


def _roots(unpacked: Path, package: Package) -> list[Path]:
    """The source folders of the package: the matches of its first root that matches (a root
    may be several globs joined by commas)."""
    for root in package.roots:
        matches = sorted({p for g in root.split(",") for p in unpacked.glob(g) if p.is_dir()})
        if matches:
            return matches
    raise RuntimeError(f"{package.spec}: none of {package.roots} in {unpacked}")


def _chunk_estimate(corpus: Path, suffixes: tuple[str, ...]) -> dict[str, int]:
    """Chunks codeatlas will store per package folder (its own parse, one file at a time): the
    cost of indexing the set with a real embedder (~60 chunks/s on two cores)."""
    from indexing.parsing.parser import parse_file

    found: Counter = Counter()
    for file in corpus.rglob("*"):
        if file.is_file() and file.name.endswith(suffixes) and ".git" not in file.parts:
            path = file.relative_to(corpus).as_posix()
            found[path.split("/", 1)[0]] += len(parse_file(path, file.read_bytes()).chunks)
    return dict(found)


def _recipe(language: str, split: str, packages: tuple[Package, ...], limit: int) -> str:
    from indexing.parsing.parser import PARSER_VERSION

    digest = hashlib.sha256()
    for name in _RECIPE_CODE:
        digest.update((Path(__file__).parent / name).read_bytes())
    packed = [asdict(p) for p in packages]
    text = json.dumps([LAYOUT_VERSION, language, split, limit, SEED, PARSER_VERSION, packed])
    digest.update(text.encode())
    return digest.hexdigest()[:16]


def _say(message: str) -> None:
    print(f"[mined] {message}", file=sys.stderr, flush=True)
