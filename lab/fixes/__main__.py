"""`python -m lab.fixes build|add|stats`: mine (query, changed functions) pairs from the
histories of the repositories recorded in `repos.json` (see README.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lab.excluded import excluded_repos, is_excluded
from lab.fixes import manifest
from lab.fixes.build import DEFAULT_MIRRORS, DEFAULT_OUT, main_build
from lab.fixes.history import MirrorMissing, git, git_dir
from lab.fixes.roles import LANGUAGES
from lab.fixes.stats import drop_table, table


def main_add(args) -> int:
    """`add`: record repositories (their mirrors' HEAD and a split) in the manifest."""
    entries = manifest.load(args.manifest)
    known = {e.repo.lower() for e in entries}
    excluded = excluded_repos()
    status = 0
    for name in args.repos:
        if is_excluded(name, excluded):
            print(f"{name}: listed in exclude_repos.txt, not added", file=sys.stderr)
            status = 1
            continue
        if name.lower() in known:
            print(f"{name}: already recorded")
            continue
        try:
            repo = git_dir(args.mirrors / name.replace("/", "+"))
        except MirrorMissing:
            print(f"{name}: no mirror: fetch github:{name} first", file=sys.stderr)
            status = 1
            continue
        head = git(repo, "rev-parse", "HEAD").strip()
        split = manifest.assign_split(name, args.language, entries)
        entries.append(manifest.RepoEntry(name, args.language, head, split))
        known.add(name.lower())
        print(f"{name}: {args.language} {head[:12]} {split}")
    manifest.save(entries, args.manifest)
    return status


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen command."""
    parser = argparse.ArgumentParser(prog="python -m lab.fixes")
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="mine the recorded repositories")
    build.add_argument("--languages", help=f"comma-separated, of {','.join(LANGUAGES)}")
    build.add_argument("--repos", help="comma-separated owner/name")
    build.add_argument("--jobs", type=int, default=1, help="repositories mined at once")
    build.add_argument(
        "--no-record",
        dest="record",
        action="store_false",
        help="do not write the counts back into the manifest",
    )
    add = commands.add_parser("add", help="record repositories from their mirrors")
    add.add_argument("--language", required=True, choices=LANGUAGES)
    add.add_argument("repos", nargs="+", help="owner/name")
    for command in (build, add):
        command.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
        command.add_argument("--manifest", type=Path, default=manifest.MANIFEST)
    build.add_argument("--out", type=Path, default=DEFAULT_OUT)
    stats = commands.add_parser("stats", help="the counts tables of a build")
    stats.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.command == "stats":
        print(table(args.out / "summary.json"))
        print()
        print(drop_table(args.out / "summary.json"))
        return 0
    return main_build(args) if args.command == "build" else main_add(args)


if __name__ == "__main__":
    sys.exit(main())
