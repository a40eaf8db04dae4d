"""Build the mined query sets from the registries (see lab/mined/README.md):

python -m lab.mined build [--languages go,rust] [--splits train,test]
python -m lab.mined stats      # a Markdown table of the built sets (README.md)
python -m lab.mined pin        # record the archives' sha256 in archives.lock.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from lab.mined.build import PINS, QUERIES_PER_SPLIT, build_set
from lab.mined.packages import LANGUAGES, SPLITS
from lab.mined.report import pins, stats_table


def main(argv: list[str] | None = None) -> int:
    """Build the chosen sets (each only when its recipe changed) and print what each holds."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    commands = p.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="fetch, mine, strip and commit the sets")
    build.add_argument("--languages", default=",".join(LANGUAGES), help=",".join(LANGUAGES))
    build.add_argument("--splits", default=",".join(SPLITS), help="train,test")
    build.add_argument("--limit", type=int, default=QUERIES_PER_SPLIT, help="questions per set")
    commands.add_parser("stats", help="print a Markdown table of the built sets")
    commands.add_parser("pin", help="record the built sets' archives' sha256 (archives.lock.json)")
    args = p.parse_args(argv)
    if args.command == "stats":
        print(stats_table())
        return 0
    if args.command == "pin":
        pinned = pins()
        PINS.write_text(json.dumps(pinned, indent=1) + "\n")
        print(f"[mined] {len(pinned)} archives pinned in {PINS}", file=sys.stderr)
        return 0
    languages = [x.strip() for x in args.languages.split(",") if x.strip()]
    splits = [x.strip() for x in args.splits.split(",") if x.strip()]
    unknown = [x for x in languages if x not in LANGUAGES] + [s for s in splits if s not in SPLITS]
    if unknown:
        print(f"unknown language(s) or split(s): {unknown}", file=sys.stderr)
        return 2
    started = time.monotonic()
    for language in languages:
        for split in splits:
            build_set(language, split, limit=args.limit)
    print(f"[mined] done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
