"""The localisation instances and their gold, resolved against the indexed release.

Gold is LocAgent's function labels (`path:Class.method`), matched to the snapshot's
`code_symbols` by path and qualified name: the sdist is a few weeks away from the base commit,
so line numbers would not do. An instance whose gold function the release does not define is
dropped and counted. `patch`, `edit_functions` and `ground_truth_files` are read here only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from lab.loc_corpora import INSTANCE_RELEASES, PROJECTS, RELEASES, release_commit

DATA = Path("/work/shared/eval/loc/swe_lite_public.jsonl")


@dataclass(frozen=True)
class GoldFunction:
    """A function the fix changed, located in the indexed release."""

    path: str
    symbol: str
    start_line: int
    end_line: int


@dataclass
class Instance:
    """One bug report with its release and gold."""

    index: int  # position in the data file (the even/odd halves)
    instance_id: str
    project: str
    release: str
    commit: str
    issue: str
    gold_files: list[str]
    labels: list[str]
    gold_functions: list[GoldFunction] = field(default_factory=list[GoldFunction])


def load_instances(projects: list[str] | None = None) -> list[Instance]:
    """The instances of the chosen projects (all by default), in file order."""
    out: list[Instance] = []
    for index, line in enumerate(DATA.read_text().splitlines()):
        row = json.loads(line)
        project = PROJECTS[row["repo"]][0]
        if projects and project not in projects:
            continue
        release = (
            INSTANCE_RELEASES[row["instance_id"]][1]
            if row["instance_id"] in INSTANCE_RELEASES
            else RELEASES[(project, row["version"])]
        )
        out.append(
            Instance(
                index=index,
                instance_id=row["instance_id"],
                project=project,
                release=release,
                # "" while the release is not built: measured as "release not indexed"
                commit=release_commit(project, release) or "",
                issue=row["problem_statement"],
                gold_files=list(row["ground_truth_files"]),
                labels=list(row["edit_functions"]),
            )
        )
    return out


def resolve_gold(conn, snapshot_id: int, instance: Instance) -> str | None:
    """Fill `instance.gold_functions` from the snapshot's symbols; None when resolved, else
    why the instance is dropped."""
    for path in instance.gold_files:
        found = conn.execute(
            "SELECT 1 FROM snapshot_files WHERE snapshot_id = %s AND path = %s"
            " AND file_version_id IS NOT NULL",
            (snapshot_id, path),
        ).fetchone()
        if found is None:
            return f"gold file {path} not in the release"
    golds: list[GoldFunction] = []
    for label in instance.labels:
        path, _, symbol = label.partition(":")
        rows = conn.execute(
            "SELECT s.start_line, s.end_line FROM snapshot_files sf"
            " JOIN code_symbols s ON s.file_version_id = sf.file_version_id"
            " WHERE sf.snapshot_id = %s AND sf.path = %s AND s.qualified_name = %s"
            " ORDER BY s.start_line",
            (snapshot_id, path, symbol),
        ).fetchall()
        if not rows:
            # LocAgent's labels leave out the functions enclosing a nested one
            # (`Response.generate` for `Response.iter_content.generate`)
            head, _, last = symbol.rpartition(".")
            rows = conn.execute(
                "SELECT s.start_line, s.end_line FROM snapshot_files sf"
                " JOIN code_symbols s ON s.file_version_id = sf.file_version_id"
                " WHERE sf.snapshot_id = %s AND sf.path = %s AND s.name = %s"
                " AND s.qualified_name LIKE %s ORDER BY s.start_line",
                (snapshot_id, path, last, (head + ".%") if head else "%"),
            ).fetchall()
            if len(rows) != 1:
                return f"gold function {label} not in the release"
        golds.append(GoldFunction(path, symbol, rows[0]["start_line"], rows[-1]["end_line"]))
    instance.gold_functions = golds
    return None
