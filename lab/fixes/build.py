"""Rebuilding the mined pairs from the manifest: one JSON-lines file per repository under
`<out>/<language>/<owner>+<name>.jsonl`, written whole (a reader never sees half a file), and
`<out>/summary.json` rewritten after each repository with the counts so far."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from benchmarks.workspace import WORK
from lab.fixes import manifest, mining
from lab.fixes.history import MirrorMissing, git, git_dir
from lab.fixes.manifest import RepoEntry

# where the `fetch` tool leaves repositories (`<owner>+<name>/repo`); --mirrors names another
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_OUT = WORK / "fixes"  # git-ignored, beside the other built corpora
RECIPE = {
    # 3: a test function of a code file (Rust's inline `mod tests`) is no positive
    "version": 3,
    "max_pairs_per_repository": mining.MAX_PAIRS,
    "max_commits_scanned": mining.MAX_COMMITS,
    "max_source_files": mining.MAX_SOURCE_FILES,
    "max_positives": mining.MAX_POSITIVES,
    "max_file_bytes": mining.MAX_FILE_BYTES,
    "max_neighbour_files": mining.MAX_NEIGHBOUR_FILES,
    "max_seconds_per_repository": mining.MAX_SECONDS,
}


def mine_entry(entry: RepoEntry, mirrors: Path, out: Path) -> dict | None:
    """Mine one repository and write its file; its counts, or None when its mirror is missing."""
    try:
        repo = git_dir(mirrors / entry.folder_name)
        git(repo, "cat-file", "-e", f"{entry.commit}^{{commit}}")
    except (MirrorMissing, subprocess.CalledProcessError):
        return None
    started = time.monotonic()
    result = mining.mine_repository(repo, entry.repo, entry.language, entry.commit, entry.split)
    target = out / entry.language / f"{entry.folder_name}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".jsonl.part")
    with partial.open("w") as handle:
        for pair in result.pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    os.replace(partial, target)
    return {
        "commits_scanned": result.scanned,
        "pairs": len(result.pairs),
        "touching_tests": sum(p["touches_tests"] for p in result.pairs),
        "dropped": dict(sorted(result.dropped.items())),
        "inconsistent_strict": result.inconsistent_strict,
        "inconsistent_lenient": result.inconsistent_lenient,
        "seconds": round(time.monotonic() - started, 1),
        "recipe": RECIPE["version"],
        "stopped_early": result.stopped_early,
    }


def build(
    entries: list[RepoEntry],
    mirrors: Path,
    out: Path,
    *,
    jobs: int = 1,
    manifest_path: Path | None = None,
) -> dict:
    """Mine the entries, writing each repository's file and the summary as they finish; the
    counts are stored on the entries (and in the manifest at `manifest_path` when given)."""
    everything = entries
    out.mkdir(parents=True, exist_ok=True)
    done = 0
    entries = _by_turns(entries)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(mine_entry, entry, mirrors, out): entry for entry in entries}
        # recorded as each finishes: one slow repository does not hold back the others' counts
        for future in as_completed(futures):
            entry, done = futures[future], done + 1
            try:
                counts = future.result()
            except Exception as error:  # one repository's failure does not stop the others
                print(
                    f"[{done}/{len(entries)}] {entry.repo}: failed ({error!r}); its file is "
                    "left as it was",
                    flush=True,
                )
                continue
            if counts is None:
                print(
                    f"[{done}/{len(entries)}] {entry.repo}: no mirror at "
                    f"{mirrors / entry.folder_name} with commit {entry.commit[:12]}: "
                    f"fetch github:{entry.repo} first",
                    flush=True,
                )
                continue
            entry.counts = counts
            print(
                f"[{done}/{len(entries)}] {entry.language} {entry.repo} ({entry.split}): "
                f"{counts['pairs']} pairs from {counts['commits_scanned']} commits "
                f"in {counts['seconds']} s",
                flush=True,
            )
            if manifest_path is not None:
                everything = _merged(
                    manifest.record_counts(entry.repo, counts, manifest_path), entries
                )
            write_summary(everything, out)
    return write_summary(everything, out)


def _by_turns(entries: list[RepoEntry]) -> list[RepoEntry]:
    """The entries with the languages taking turns, so a build stopped early is balanced."""
    queues: dict[str, list[RepoEntry]] = {}
    for entry in entries:
        queues.setdefault(entry.language, []).append(entry)
    ordered: list[RepoEntry] = []
    while any(queues.values()):
        for queue in queues.values():
            if queue:
                ordered.append(queue.pop(0))
    return ordered


def _merged(recorded: list[RepoEntry], built: list[RepoEntry]) -> list[RepoEntry]:
    """The manifest's entries with the counts of this build's entries where they have some."""
    counts = {e.repo: e.counts for e in built if e.counts}
    for entry in recorded:
        entry.counts = counts.get(entry.repo, entry.counts)
    return recorded


def write_summary(entries: list[RepoEntry], out: Path) -> dict:
    """Per language and split: repositories, commits scanned, pairs and filter counts."""
    languages: dict[str, dict] = {}
    for entry in entries:
        if not entry.counts:
            continue
        row = languages.setdefault(
            entry.language,
            {
                "repositories": Counter(),
                "commits_scanned": 0,
                "pairs": Counter(),
                "touching_tests": 0,
                "dropped": Counter(),
                "inconsistent_strict": Counter(),
                "inconsistent_lenient": Counter(),
            },
        )
        counts = entry.counts
        row["repositories"][entry.split] += 1
        row["commits_scanned"] += counts["commits_scanned"]
        row["pairs"][entry.split] += counts["pairs"]
        row["touching_tests"] += counts["touching_tests"]
        row["dropped"].update(counts["dropped"])
        row["inconsistent_strict"][entry.split] += counts["inconsistent_strict"]
        row["inconsistent_lenient"][entry.split] += counts["inconsistent_lenient"]
    summary = {
        "recipe": RECIPE,
        "languages": {
            language: {k: dict(v) if isinstance(v, Counter) else v for k, v in row.items()}
            for language, row in sorted(languages.items())
        },
        "repositories": {
            e.repo: {"language": e.language, "split": e.split, "commit": e.commit, **e.counts}
            for e in entries
            if e.counts
        },
    }
    partial = out / "summary.json.part"
    partial.write_text(json.dumps(summary, indent=1) + "\n")
    os.replace(partial, out / "summary.json")
    return summary


def main_build(args) -> int:
    """`build`: mine the manifest's repositories (or the chosen ones)."""
    entries = manifest.load(args.manifest)
    chosen = entries
    if args.languages:
        wanted = set(args.languages.split(","))
        chosen = [e for e in chosen if e.language in wanted]
    if args.repos:
        wanted = {r.lower() for r in args.repos.split(",")}
        chosen = [e for e in chosen if e.repo.lower() in wanted]
    if not chosen:
        print(
            "no repositories chosen: check --languages / --repos against repos.json",
            file=sys.stderr,
        )
        return 2
    print(f"mining {len(chosen)} repositories into {args.out}", flush=True)
    build(
        chosen,
        args.mirrors,
        args.out,
        jobs=args.jobs,
        manifest_path=args.manifest if args.record else None,
    )
    return 0
