"""Bug descriptions that nobody here wrote, with the functions their fixes changed, from the
registries alone: a patch release's notes describe its fixes, and the sdists of that release and
of the one before it give the functions the fixes changed. A release whose notes hold exactly
one fix is one localisation instance: the note is the report, the release before it the code
searched, the functions it changed the gold (issue 26: a measuring ground for bug reports beside
the 236 SWE-bench ones, and the kind of data a learned `locate` would need).

    python -m lab.fix_notes                      # django, flask, werkzeug, click, requests
    python -m lab.fix_notes --projects flask --reuse --systems locate

The instances are scored with the localisation benchmark's protocol and systems
(lab/loc.py: file Acc@k, function Acc@k, 95% bootstrap intervals); results go to
lab/results/fix_notes.{md,json}. Gold is the functions and methods
of non-test code whose text differs between the two releases (or that the fix removed); a
release whose fix changed no function (module constants, templates, translations) is dropped
and counted, as is a note repeated in another release line (security fixes are released on
every supported line at once: the newest line's copy is kept).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.workspace import WORK
from lab.loc_corpora import (
    project_repo,
    release_commit,
    sdist_releases,
    tag,
    version_key,
)
from lab.loc_gold import Instance

REPOS = WORK / "fixes" / "repos"
RESULTS = Path(__file__).resolve().parent / "results"
PARSED_KINDS = ("function", "method")


@dataclass(frozen=True)
class NotesLayout:
    """Where a project keeps its release notes in its sdist, and its PyPI name: a file per
    release (`notes` with `{release}`), or one changelog of a section per release."""

    pypi_name: str
    notes: str
    changelog: bool = False
    since: str = "0.1"  # the first release line read


LAYOUTS = {
    "django": NotesLayout("Django", "docs/releases/{release}.txt", since="1.8"),
    "flask": NotesLayout("Flask", "CHANGES.rst", changelog=True),
    "werkzeug": NotesLayout("Werkzeug", "CHANGES.rst", changelog=True),
    "click": NotesLayout("click", "CHANGES.md", changelog=True),
    "requests": NotesLayout("requests", "HISTORY.md", changelog=True),
}

# what a reporter would not write: references to the fix's own ticket, issue or pull request
# go, cross-references keep their target's text, double backticks become single ones
_REF = r"(?::(?:ticket|issue|pr|ghsa|cve):`[^`]+`|\{(?:issue|pr)\}`[^`]+`|#\d+)"
_TICKETS = re.compile(rf"\s*\(?{_REF}(?:(?:,\s*|\s+and\s+){_REF})*\)?")
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)(?:\s*<[^>]*>)?`")
_TITLE_RULE = re.compile(r"^(=+|-+|~+)$")


def clean(text: str) -> str:
    """A note's text as a person would write it in a report."""
    text = _TICKETS.sub("", text)
    # `~a.b.c` shows as `c`, as Sphinx writes it
    text = _ROLE.sub(
        lambda m: (
            f"`{m.group(2).strip().rpartition('.')[2] if m.group(1) else m.group(2).strip()}`"
        ),
        text,
    )
    text = text.replace("``", "`").replace("\\_", "_").replace("\\*", "*")
    text = re.sub(r"[ \t]*\n[ \t]*", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def note_entries(notes: str) -> list[str]:
    """The fixes a release's notes describe: each security section (its title and text) and
    each bullet of the `Bugfixes` section."""
    lines = notes.splitlines()
    sections: list[tuple[str, list[str]]] = []
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and _TITLE_RULE.match(lines[i + 1]) and line.strip():
            sections.append((line.strip(), []))
        elif sections and not _TITLE_RULE.match(line):
            sections[-1][1].append(line)
    entries: list[str] = []
    for title, body in sections:
        if re.match(r"CVE-\d{4}-\d+", title):
            entries.append(clean(title + "\n\n" + "\n".join(body)))
        elif title.lower() == "bugfixes":
            bullets: list[list[str]] = []
            for line in body:
                if line.startswith("* "):
                    bullets.append([line[2:]])
                elif bullets and (line.startswith("  ") or not line.strip()):
                    bullets[-1].append(line)
            entries += [clean("\n".join(b)) for b in bullets if "".join(b).strip()]
    return [e for e in entries if e]


_VERSION_TITLE = re.compile(r"^(?:#+\s*)?(?:Version\s+)?v?(\d+(?:\.\d+)+)(?:\s.*)?$")


def changelog_entries(changelog: str) -> dict[str, list[str]]:
    """The entries of each release's section of a changelog: its top-level bullets."""
    lines = changelog.splitlines()
    out: dict[str, list[str]] = {}
    bullets: list[list[str]] | None = None
    for i, line in enumerate(lines):
        title = _VERSION_TITLE.match(line)
        underlined = i + 1 < len(lines) and _TITLE_RULE.match(lines[i + 1]) is not None
        if title and (underlined or line.startswith("#")):
            bullets = []
            out[title.group(1)] = bullets  # type: ignore[assignment]
        elif bullets is None:
            continue
        elif re.match(r"[-*]\s+", line):
            bullets.append([re.sub(r"^[-*]\s+", "", line)])
        elif bullets and (line.startswith(" ") or not line.strip()):
            bullets[-1].append(line)
        elif line.strip() and not _TITLE_RULE.match(line):
            bullets.append([])  # a sub-heading or a paragraph ends the bullet before it
    return {
        release: [e for e in (clean("\n".join(b)) for b in found) if e]
        for release, found in out.items()
    }


def release_notes(layout: NotesLayout, releases: list[str]) -> dict[str, list[str]]:
    """Every release's fixes, read from the newest release's sdist (a project's docs keep the
    notes of all its releases)."""
    import tarfile

    from lab.loc_corpora import sdist

    archive = sdist(layout.pypi_name, releases[-1])
    wanted = {layout.notes.format(release=r): r for r in releases}
    out: dict[str, list[str]] = {}
    with tarfile.open(archive) as tf:
        for member in tf.getmembers():
            rel = member.name.split("/", 1)[1] if "/" in member.name else ""
            handle = tf.extractfile(member) if rel in wanted and member.isfile() else None
            if handle is None:
                continue
            text = handle.read().decode("utf-8", "replace")
            if layout.changelog:
                return changelog_entries(text)
            out[wanted[rel]] = note_entries(text)
    return out


def patch_releases(versions: list[str], since: str) -> list[tuple[str, str]]:
    """(the release before, the patch release) for every patch release (X.Y.Z, Z > 0) from the
    line `since` on; the release before is the newest of its line below it (a line's skipped
    numbers have no sdist)."""
    pairs: list[tuple[str, str]] = []
    floor = version_key(since)
    for version in versions:
        key = version_key(version)
        if len(key) != 3 or key[2] == 0 or key[:2] < floor[:2]:
            continue
        before = [v for v in versions if version_key(v)[:2] == key[:2] and version_key(v) < key]
        if before:
            pairs.append((max(before, key=version_key), version))
    return pairs


def changed_functions(path: str, old: bytes, new: bytes | None) -> list[str]:
    """Qualified names of the functions and methods of `old` whose text differs in `new` (or
    that `new` no longer defines: None is a deleted file). A function nested in another is
    part of it, as in the symbol table."""
    from indexing.parsing.parser import parse_file

    def texts(source: bytes) -> dict[str, list[bytes]]:
        out: dict[str, list[bytes]] = {}
        for s in parse_file(path, source).symbols:
            if s.kind in PARSED_KINDS:
                out.setdefault(s.qualified_name, []).append(source[s.start_byte : s.end_byte])
        return out

    was = texts(old)  # in source order: the order of the labels
    now = texts(new) if new is not None else {}
    return [name for name, text in was.items() if text != now.get(name)]


def _git(repo: Path, *args: str) -> bytes | None:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    return out.stdout if out.returncode == 0 else None


def release_gold(repo: Path, before: str, release: str) -> list[str]:
    """`path:qualified.name` labels of the functions of non-test Python code that the release
    changed against the release before it."""
    from retrieval.path_roles import CODE, path_role

    names = _git(repo, "diff", "--name-only", tag(before), tag(release), "--", "*.py") or b""
    labels: list[str] = []
    for path in names.decode().split():
        if path_role(path) != CODE:
            continue
        old = _git(repo, "show", f"{tag(before)}:{path}")
        if old is None:  # a file the release added: nothing of the release before changed
            continue
        new = _git(repo, "show", f"{tag(release)}:{path}")
        labels += [f"{path}:{name}" for name in changed_functions(path, old, new)]
    return labels


def single_fixes(
    pairs: list[tuple[str, str]], notes: dict[str, list[str]]
) -> tuple[list[tuple[str, str, str]], Counter[str]]:
    """(release before, patch release, its one fix) for each patch release whose notes describe
    exactly one fix; the others counted by why they were left out. A note repeated on several
    release lines (security fixes) is kept on the newest."""
    out: list[tuple[str, str, str]] = []
    dropped: Counter[str] = Counter()
    seen: set[str] = set()
    for before, release in sorted(pairs, key=lambda p: version_key(p[1]), reverse=True):
        if release not in notes:
            dropped["no release notes"] += 1
            continue
        entries = notes[release]
        # the same fix on two lines names each line's own release ("a regression in 3.1.9")
        same = re.sub(r"\d+(?:\.\d+)+", "#", entries[0]) if len(entries) == 1 else ""
        if len(entries) != 1:
            dropped["no fix" if not entries else "several fixes in one release"] += 1
        elif same in seen:
            dropped["the same note on a newer line"] += 1
        else:
            seen.add(same)
            out.append((before, release, entries[0]))
    return sorted(out, key=lambda f: version_key(f[1])), dropped


def build_instances(
    project: str, fixes: list[tuple[str, str, str]], repo: Path
) -> tuple[list[Instance], Counter[str]]:
    """One instance per single fix that changed a function, in release order; the others
    counted."""
    instances: list[Instance] = []
    dropped: Counter[str] = Counter()
    for before, release, note in fixes:
        labels = release_gold(repo, before, release)
        if not labels:
            dropped["no function changed"] += 1
            continue
        instances.append(
            Instance(
                index=len(instances),
                instance_id=f"{project}-{release}",
                project=project,
                release=before,
                commit=release_commit(project, before, REPOS) or "",
                issue=note,
                gold_files=sorted({label.partition(":")[0] for label in labels}),
                labels=labels,
            )
        )
    return instances, dropped


def project_instances(project: str, log=sys.stderr) -> tuple[list[Instance], Counter[str]]:
    """The project's releases fetched and committed, and its instances."""
    layout = LAYOUTS[project]
    versions = sdist_releases(layout.pypi_name)
    pairs = patch_releases(versions, layout.since)
    fixes, dropped = single_fixes(pairs, release_notes(layout, versions))
    releases = sorted({v for f in fixes for v in f[:2]}, key=version_key)
    print(
        f"[fixes] {project}: {len(pairs)} patch releases since {layout.since}, {len(fixes)}"
        f" with one fix; {len(releases)} sdists",
        file=log,
        flush=True,
    )
    repo = project_repo(project, releases, root=REPOS, pypi_name=layout.pypi_name)
    instances, unchanged = build_instances(project, fixes, repo)
    dropped += unchanged
    print(f"[fixes] {project}: {len(instances)} instances", file=log, flush=True)
    return instances, Counter({f"{project}: {why}": n for why, n in dropped.items()})


def main(argv: list[str] | None = None) -> int:
    """Fetch and commit the releases, index the ones searched, measure, write the results."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--projects", default=",".join(LAYOUTS), help=",".join(LAYOUTS))
    p.add_argument("--systems", default="bm25-files,bm25-functions,locate")
    p.add_argument("--embedder", default="fake", help="fake (default) | local")
    p.add_argument("--reuse", action="store_true", help="measure what is indexed; index nothing")
    p.add_argument("--weights", default="", help="locate weights, e.g. text_depth=100")
    p.add_argument(
        "--against", metavar="JSON", help="an earlier run: each system minus its, paired by report"
    )
    p.add_argument("--out", default=str(RESULTS / "fix_notes"), help="path without extension")
    args = p.parse_args(argv)
    from benchmarks import embedder as embedders
    from benchmarks.workspace import database, prepare_environment
    from lab.indexer import run_index
    from lab.loc import against, markdown, measure, parse_weights, query_embedder, summarise
    from lab.loc_index import snapshot_status
    from lab.machine import summary as machine_summary
    from retrieval.locate import WEIGHTS

    prepare_environment()
    url = database(f"bench_fixes_{re.sub(r'[^a-z0-9]+', '_', args.embedder)}", fresh=False)
    embedder = embedders.make(args.embedder)
    instances: list[Instance] = []
    dropped: Counter[str] = Counter()
    for project in args.projects.split(","):
        found, why = project_instances(project)
        instances += found
        dropped += why
        for before in sorted({i.release for i in found}, key=version_key):
            sha = release_commit(project, before, REPOS) or ""
            why_index = snapshot_status(url, project, sha, embedder.model_name)
            if args.reuse or why_index is None:
                continue
            print(
                f"[fixes] {time.strftime('%H:%M:%S')} indexing {project} {before} ({why_index})",
                file=sys.stderr,
                flush=True,
            )
            run_index(REPOS / project, project, url, args.embedder, ref=tag(before))
    for position, inst in enumerate(instances):
        inst.index = position  # the halves alternate over all projects
    systems = [s for s in args.systems.split(",") if s]
    weights = parse_weights(args.weights, WEIGHTS)
    measured = measure(
        url, instances, systems, weights, embed_query=query_embedder(embedder), repos=REPOS
    )
    summary = summarise(measured["instances"], systems)
    if args.against:
        summary["against"] = against(measured["instances"], Path(args.against))
    meta = {
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine_summary(),
        "embedder": args.embedder,
        "projects": args.projects,
        "weights": weights.__dict__,
        "dropped": dict(dropped) | measured["dropped"],
    }
    out = Path(args.out)
    out.with_suffix(".json").write_text(
        json.dumps(
            {
                "meta": meta,
                "summary": summary,
                "instances": measured["instances"],
                "reports": {
                    i.instance_id: {"release": i.release, "note": i.issue, "labels": i.labels}
                    for i in instances
                },
            },
            indent=1,
        )
    )
    text = markdown(
        summary,
        meta,
        title="Changes described by release notes, localised",
        generated_by="`python -m lab.fix_notes` (lab/fix_notes.py)",
    )
    out.with_suffix(".md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
