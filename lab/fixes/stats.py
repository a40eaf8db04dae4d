"""The counts table of a build (`python -m lab.fixes stats`), from its summary.json."""

from __future__ import annotations

import json
from pathlib import Path

_SPLITS = ("train", "dev", "test")


def table(summary_path: Path) -> str:
    """A Markdown table: per language, repositories and pairs by split, commits scanned, pairs
    touching tests, pairs the consistency filter dropped (train) or would drop (dev/test)."""
    summary = json.loads(summary_path.read_text())
    lines = [
        "| language | repositories (train/dev/test) | commits scanned | pairs train | dev | test "
        "| touch tests | train dropped as inconsistent | dev+test inconsistent strict / lenient |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    totals = {"repos": 0, "scanned": 0, "pairs": dict.fromkeys(_SPLITS, 0)}
    for language, row in summary["languages"].items():
        repos = [row["repositories"].get(s, 0) for s in _SPLITS]
        pairs = [row["pairs"].get(s, 0) for s in _SPLITS]
        strict = sum(row["inconsistent_strict"].get(s, 0) for s in ("dev", "test"))
        lenient = sum(row["inconsistent_lenient"].get(s, 0) for s in ("dev", "test"))
        lines.append(
            f"| {language} | {sum(repos)} ({'/'.join(map(str, repos))}) | "
            f"{row['commits_scanned']} | {' | '.join(map(str, pairs))} | {row['touching_tests']} "
            f"| {row['dropped'].get('inconsistent', 0)} | {strict} / {lenient} |"
        )
        totals["repos"] += sum(repos)
        totals["scanned"] += row["commits_scanned"]
        for split, count in zip(_SPLITS, pairs, strict=True):
            totals["pairs"][split] += count
    pairs = totals["pairs"]
    lines.append(
        f"| **all** | {totals['repos']} | {totals['scanned']} | {pairs['train']} | {pairs['dev']} "
        f"| {pairs['test']} | | | |"
    )
    return "\n".join(lines)


def drop_table(summary_path: Path) -> str:
    """A Markdown table of why commits were not mined, per language."""
    summary = json.loads(summary_path.read_text())
    reasons = sorted({r for row in summary["languages"].values() for r in row["dropped"]})
    lines = ["| language | " + " | ".join(reasons) + " |", "|---" * (len(reasons) + 1) + "|"]
    for language, row in summary["languages"].items():
        counts = [str(row["dropped"].get(r, 0)) for r in reasons]
        lines.append(f"| {language} | " + " | ".join(counts) + " |")
    return "\n".join(lines)
