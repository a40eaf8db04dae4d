"""How many mined fix queries hold traces or diagnostics `locate` reads, per language.

Reads the mined pairs (`benchmarks/.work/fixes/<language>/*.jsonl`, one JSON per line with `query`,
`split`, `files`, `positives`) and counts, for one split, the queries with a frame of any kind,
with a frame of the repository's own code (not a dependency's), with a frame whose path is a
changed file (the suffix rule of `retrieval/locate.py`), and with a frame naming a changed
function; and the frames by the form they were read from (`Frame.kind`).

    python -m lab.trace_counts [--data benchmarks/.work/fixes] [--split test]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from lab.fixes.build import DEFAULT_OUT
from retrieval.issue_text import read_issue
from retrieval.trace_frames import Frame

RESULTS = Path(__file__).parent / "results"


def _names_file(frame: Frame, path: str) -> bool:
    """Whether the frame's path means the repository file `path` (locate's suffix rule)."""
    mine, theirs = path.split("/")[::-1], frame.path.split("/")[::-1]
    shared = 0
    while shared < min(len(mine), len(theirs)) and mine[shared] == theirs[shared]:
        shared += 1
    need = len(theirs) if frame.whole else min(2, len(theirs))
    return shared >= need


def _names_function(frame: Frame, symbols: list[str]) -> bool:
    if not frame.function:
        return False
    name = frame.function.rsplit(".", 1)[-1]
    return any(s.replace("::", ".").rsplit(".", 1)[-1] == name for s in symbols)


def count(data: Path, split: str) -> dict[str, dict]:
    """Per language: the counts of the split's queries and their frames."""
    out: dict[str, dict] = {}
    for folder in sorted(p for p in data.iterdir() if p.is_dir()):
        totals: Counter[str] = Counter()
        kinds: Counter[str] = Counter()
        for file in sorted(folder.glob("*.jsonl")):
            for line in file.read_text().splitlines():
                if not line.strip():
                    continue
                pair = json.loads(line)
                if split != "all" and pair.get("split") != split:
                    continue
                totals["queries"] += 1
                evidence = read_issue(pair["query"])
                frames = evidence.frames
                files = pair.get("files", [])
                symbols = [p["symbol"] for p in pair.get("positives", [])]
                kinds.update(f.kind for f in frames)
                totals["with_frame"] += bool(frames)
                totals["with_code_frame"] += any(not f.dependency for f in frames)
                totals["with_trace_frame"] += any(f.kind != "diagnostic" for f in frames)
                totals["frame_names_changed_file"] += any(
                    _names_file(f, p) for f in frames for p in files
                )
                totals["frame_names_changed_function"] += any(
                    _names_function(f, symbols) for f in frames
                )
                totals["with_quoted_path"] += bool(evidence.paths)
        out[folder.name] = {**{k: totals[k] for k in sorted(totals)}, "frames_by_kind": kinds}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--split", default="test", help="train, dev, test or all")
    parser.add_argument("--out", default="trace_counts")
    args = parser.parse_args()
    counts = count(args.data, args.split)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(counts, indent=1, sort_keys=True))
    columns = [
        "queries",
        "with_frame",
        "with_trace_frame",
        "with_code_frame",
        "frame_names_changed_file",
        "frame_names_changed_function",
        "with_quoted_path",
    ]
    lines = [
        "| language | " + " | ".join(columns) + " | frames by kind |",
        "|---" * (len(columns) + 2) + "|",
    ]
    for language, row in counts.items():
        kinds = ", ".join(f"{k} {n}" for k, n in row["frames_by_kind"].most_common())
        cells = " | ".join(str(row.get(c, 0)) for c in columns)
        lines.append(f"| {language} | {cells} | {kinds} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
