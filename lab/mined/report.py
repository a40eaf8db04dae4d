"""What the built mined sets hold, as Markdown tables for README.md."""

from __future__ import annotations

import json

from lab.mined.build import set_folder
from lab.mined.packages import LANGUAGES, SPLITS


def pins() -> dict[str, str]:
    """ "<registry> <spec>" -> sha256 of every package archive the built sets read."""
    found: dict[str, str] = {}
    for language in LANGUAGES:
        for split in SPLITS:
            file = set_folder(language, split) / "stats.json"
            if file.is_file():
                for p in json.loads(file.read_text())["packages"]:
                    found[f"{p['registry']} {p['spec']}"] = p["sha256"]
    return dict(sorted(found.items()))


def stats_table() -> str:
    """One row per built set (questions, kept, documented, functions, chunks, top filters),
    then one row per package with its pinned spec and sha256."""
    sets = ["| set | packages | files | functions | documented | kept | questions | chunks |"]
    sets.append("|---|---|--:|--:|--:|--:|--:|--:|")
    packages = [
        "| set | package (registry) | sha256 | files | functions | documented | kept | questions"
        " | chunks |"
    ]
    packages.append("|---|---|---|--:|--:|--:|--:|--:|--:|")
    filtered: dict[str, int] = {}
    for language in LANGUAGES:
        for split in SPLITS:
            file = set_folder(language, split) / "stats.json"
            if not file.is_file():
                continue
            s = json.loads(file.read_text())
            ps = s["packages"]
            sets.append(
                f"| {s['set']} | {', '.join(p['folder'] for p in ps)}"
                f" | {sum(p['files'] for p in ps)} | {sum(p['functions'] for p in ps)}"
                f" | {s['documented']} | {s['kept']} | {s['queries']} | {s['chunks_estimate']} |"
            )
            for p in ps:
                packages.append(
                    f"| {s['set']} | `{p['spec']}` ({p['registry']}) | `{p['sha256'][:12]}…`"
                    f" | {p['files']} | {p['functions']} | {p['documented']} | {p['kept']}"
                    f" | {p['queries']} | {p.get('chunks', '')} |"
                )
            for reason, count in s["filtered"].items():
                filtered[reason] = filtered.get(reason, 0) + count
    reasons = ["| filtered out (all sets) | functions |", "|---|--:|"]
    reasons += [f"| {r} | {n} |" for r, n in sorted(filtered.items(), key=lambda x: -x[1])]
    return "\n".join(sets) + "\n\n" + "\n".join(reasons) + "\n\n" + "\n".join(packages)
