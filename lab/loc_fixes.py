"""Bug-report localisation in every language: the mined fixes' held-out repositories (issue 46).

A mined pair is a fix commit of a public repository: its message (title and body) as the
report, the functions it changed as the gold, its parent as the base commit
(benchmarks/.work/fixes/<language>/<owner>+<name>.jsonl, written by `python -m lab.fixes build`;
the git directories under /work/.mirror/<owner>+<name>/repo, where `fetch` leaves them). Each
pair is searched at its parent commit, LocAgent's protocol: every parent is indexed as a
snapshot of its repository, in commit order, so that a snapshot stores only the files its
commit changed (file versions are keyed by content).

    python -m lab.loc_fixes --split test --languages go,rust --mode lexical
    python -m lab.loc_fixes --split dev --max-repos 3 --max-pairs 20

Systems: `locate` (retrieval/locate.py), `bm25-functions` (BM25 over every function of the
snapshot, LocAgent's baseline, lab/loc_systems.py) and, given a model, `locate-learned`
(locate with the learned file and function order, retrieval/locate_ranker.py). Per language:
file Acc@5, function Acc@10 and the MRR of the first gold file and function (within 10), each
with its 95% bootstrap interval, and the paired difference locate − BM25. The lexical mode
indexes no vectors (paths, symbols and BM25 only); `--mode hybrid` embeds with the local model.
Results go to lab/results/loc_fixes_<mode>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Collection
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

from benchmarks.intervals import fmt, fmt_delta, interval, paired
from lab.fixes.build import DEFAULT_MIRRORS, DEFAULT_OUT
from lab.loc_gold import GoldFunction
from lab.loc_metrics import FoundFunction, Ranking, _hits, instance_scores
from lab.loc_templates import TEMPLATES, filed

DATA = DEFAULT_OUT
MIRRORS = DEFAULT_MIRRORS
RESULTS = Path(__file__).resolve().parent / "results"
# per language: the first repositories (by name), the first pairs of each (by id), and at
# most this many commits indexed in one run, so that a run is bounded on a shared machine
MAX_REPOS = 4
MAX_PAIRS = 15
MAX_COMMITS = 400
METRICS = ("file_acc@5", "func_acc@10", "file_mrr@10", "func_mrr@10")
BASELINE = "bm25-functions"
MODES = {"lexical": None, "hybrid": "local"}  # the embedder each mode indexes with


@dataclass
class FixPair:
    """One mined fix: its report, base commit and gold."""

    id: str
    repo: str  # owner/name
    language: str
    split: str
    parent: str
    query: str
    files: list[str]
    functions: list[GoldFunction]


def comma_separated(text: str) -> list[str]:
    """The names of a comma-separated option (`--repos a/b,c/d`)."""
    return [x for x in text.split(",") if x]


def languages_in(text: str, data: Path) -> list[str]:
    """The comma-separated languages of `text`; every language folder of `data` when empty."""
    return comma_separated(text) or sorted(d.name for d in data.iterdir() if d.is_dir())


def selected_pairs(args: argparse.Namespace, *, recent: bool = False) -> list[FixPair]:
    """The pairs a harness's command line selects: `--data`, `--languages`, `--split`,
    `--max-repos`, `--max-pairs`, `--smallest` and `--repos` (`load_pairs`)."""
    data = Path(args.data)
    return load_pairs(
        languages_in(args.languages, data),
        args.split,
        max_repos=args.max_repos,
        max_pairs=args.max_pairs,
        data=data,
        smallest=args.smallest,
        recent=recent,
        repos=comma_separated(args.repos),
    )


def load_pairs(
    languages: list[str],
    split: str,
    *,
    max_repos: int = MAX_REPOS,
    max_pairs: int = MAX_PAIRS,
    data: Path = DATA,
    smallest: bool = False,
    recent: bool = False,
    mirrors: Path = MIRRORS,
    repos: Collection[str] = (),
) -> list[FixPair]:
    """The pairs of the split: per language its first `max_repos` repositories with pairs in
    the split (by name, or `smallest` first: the fewest files at the mirror's HEAD, the
    cheapest to index on a loaded machine; only `repos` when given), the first `max_pairs` of
    each (by id) that name a changed file (`recent`: the newest of each by date, whose parents
    are close to one another in history: each snapshot after the first stores little)."""
    out: list[FixPair] = []
    for language in languages:
        folder = data / language
        if not folder.is_dir():
            raise SystemExit(f"no mined pairs for {language} in {data}: run the miner first")
        taken = 0
        paths = sorted(folder.glob("*.jsonl"))
        if smallest:
            paths.sort(key=lambda p: (_tree_size(git_dir_of(p.stem.replace("+", "/"), mirrors)), p))
        for path in paths:
            if repos and path.stem.replace("+", "/") not in repos:
                continue
            rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
            rows = [r for r in rows if r.get("split") == split and r.get("files")]
            if not rows:
                continue
            rows.sort(key=lambda r: str(r["id"]))
            if recent:
                rows.sort(key=lambda r: str(r.get("date", "")), reverse=True)
            out += [_pair(r, language) for r in rows[:max_pairs]]
            taken += 1
            if taken == max_repos:
                break
    return out


def _pair(row: dict, language: str) -> FixPair:
    functions = [
        GoldFunction(p["path"], p.get("symbol") or "", int(p["start_line"]), int(p["end_line"]))
        for p in row.get("positives", [])
    ]
    return FixPair(
        id=str(row["id"]),
        repo=row["repo"],
        language=row.get("language", language),
        split=row["split"],
        parent=row["parent"],
        query=row["query"],
        files=sorted(set(row["files"])),
        functions=functions,
    )


def _tree_size(git_dir: Path) -> int:
    """How many files the mirror's HEAD holds."""
    out = subprocess.run(
        ["git", "-C", str(git_dir), "ls-tree", "-r", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
    )
    return out.stdout.count("\n") if out.returncode == 0 else 1 << 30


def git_dir_of(repo: str, mirrors: Path = MIRRORS) -> Path:
    """The mirrored git directory of `owner/name`."""
    return mirrors / repo.replace("/", "+") / "repo"


def commit_time(git_dir: Path, sha: str) -> int:
    """The committer time of `sha` (0 when the mirror does not hold it)."""
    out = subprocess.run(
        ["git", "-C", str(git_dir), "show", "-s", "--format=%ct", sha],
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip() or 0) if out.returncode == 0 else 0


def index_at(url: str, repo: str, git_dir: Path, sha: str, embedder=None) -> str | None:
    """`repo` indexed at `sha` through the pipeline's own steps (list, parse, publish; embed
    given an embedder) unless a ready snapshot of it exists; None when done, else why not."""
    from core.config import load_settings
    from core.database import connection, transaction
    from indexing import repositories, snapshots
    from indexing.embedding_step import embed_snapshot
    from indexing.parse_step import parse_snapshot
    from indexing.parse_version import effective_parser_version
    from indexing.publishing import publish
    from indexing.snapshot_files import record_source_files

    with connection(url) as conn:
        ready = conn.execute(
            "SELECT s.id FROM snapshots s JOIN repositories r ON r.id = s.repository_id"
            " WHERE r.name = %s AND s.commit_sha = %s AND s.status = 'ready'",
            (repo, sha),
        ).fetchone()
        if ready is not None:
            if embedder is None or snapshots.has_vectors(conn, ready["id"], embedder.model_name):
                return None
            # parsed but not embedded (a run stopped between, or a copy of the lexical
            # database): its vectors only, the model the repository's searches embed with
            repositories.activate_model(conn, repo, embedder.model_name)
            conn.commit()
    if ready is not None and embedder is not None:
        embed_snapshot(url, repo, sha, embedder)
        return None
    if not commit_time(git_dir, sha):
        return "base commit not in the mirror"
    settings = load_settings()
    with transaction(url) as conn:
        repositories.register(conn, repo, str(git_dir), None)
    record_source_files(url, settings, repo, sha)
    parse_snapshot(url, settings, repo, sha)
    model = embedder.model_name if embedder is not None else "none"
    with connection(url) as conn:
        publish(conn, settings, repo, sha, effective_parser_version(settings), model)
    if embedder is not None:
        embed_snapshot(url, repo, sha, embedder)
    return None


def file_rank_score(files: list[str], gold: list[str], depth: int = 10) -> float:
    """MRR@depth's term of the first gold file."""
    for rank, path in enumerate(dict.fromkeys(files), 1):
        if rank > depth:
            break
        if path in gold:
            return 1.0 / rank
    return 0.0


def function_rank_score(
    found: list[FoundFunction], gold: list[GoldFunction], depth: int = 10
) -> float:
    """MRR@depth's term of the first function that hits a gold one."""
    for rank, f in enumerate(found[:depth], 1):
        if any(_hits(f, g) for g in gold):
            return 1.0 / rank
    return 0.0


def scores(ranking: Ranking, pair: FixPair) -> dict[str, float]:
    """The pair's 0/1 accuracies (`instance_scores`) and its reciprocal ranks."""
    out = instance_scores(ranking, pair.files, pair.functions)
    out["file_mrr@10"] = file_rank_score(ranking.files, pair.files)
    out["func_mrr@10"] = function_rank_score(ranking.functions, pair.functions)
    return out


def gold_absent(conn, snapshot_id: int, pair: FixPair) -> str | None:
    """Why the pair cannot be scored at its base commit (a gold file not indexed there, no
    gold function), or None."""
    for path in pair.files:
        found = conn.execute(
            "SELECT 1 FROM snapshot_files WHERE snapshot_id = %s AND path = %s"
            " AND file_version_id IS NOT NULL",
            (snapshot_id, path),
        ).fetchone()
        if found is None:
            return f"gold file {path} not indexed at the base commit"
    if not pair.functions:
        return "no gold function"
    return None


def measure(
    url: str,
    pairs: list[FixPair],
    systems: list[str],
    *,
    embed_query=None,
    mirrors: Path = MIRRORS,
    ranker=None,
    locate_ranker: Any = "shipped",
    weights=None,
    log=sys.stderr,
) -> dict:
    """Every system on every pair whose base commit is indexed and whose gold is there;
    `locate` ordered by `locate_ranker` (`locate_system`), `locate-learned` by `ranker`, both
    with `weights` (None: locate's own)."""
    from core.database import connect
    from lab.loc import _snapshot_id
    from lab.loc_systems import SnapshotCorpus, locate_system
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    conn = connect(url)
    principal = ensure_operator(conn)
    conn.commit()
    makers = {"locate": locate_system(conn, weights, embed_query=embed_query, ranker=locate_ranker)}
    if ranker is not None:
        makers["locate-learned"] = locate_system(
            conn, weights, embed_query=embed_query, ranker=ranker
        )
    per: dict[str, dict] = {}
    dropped: Counter[str] = Counter()
    try:
        for pair in pairs:
            snapshot = _snapshot_id(conn, pair.repo, pair.parent)
            if snapshot is None:
                dropped[f"{pair.language}: base commit not indexed"] += 1
                continue
            why = gold_absent(conn, snapshot, pair)
            if why:
                dropped[f"{pair.language}: {why.split(' ')[0]} {why.split(' ')[1]} absent"] += 1
                continue
            scope = resolve_scope(conn, principal, [pair.repo], pair.parent)
            conn.commit()
            record: dict = {"language": pair.language, "repo": pair.repo}
            for name in systems:
                if name == BASELINE:
                    corpus = SnapshotCorpus(
                        conn, snapshot, git_dir_of(pair.repo, mirrors), pair.parent
                    )
                    conn.commit()
                    fn = corpus.bm25_functions
                else:
                    fn = makers[name]
                started = time.perf_counter()
                ranking = fn(scope, pair.query)
                seconds = time.perf_counter() - started
                record[name] = {**scores(ranking, pair), "seconds": round(seconds, 4)}
                record[name]["top_files"] = ranking.files[:10]
            per[pair.id] = record
    finally:
        conn.close()
    print(f"[fixes] scored {len(per)} pairs; dropped {dict(dropped)}", file=log, flush=True)
    return {"pairs": per, "dropped": dict(dropped)}


def summarise(per: dict[str, dict], systems: list[str]) -> dict:
    """Per language and over all: each system's metrics with intervals, and each system other
    than the baseline minus the baseline (paired)."""

    def table(ids: list[str]) -> dict:
        out: dict = {"n": len(ids), "systems": {}, "minus_bm25": {}}
        for name in systems:
            out["systems"][name] = {m: interval([per[i][name][m] for i in ids]) for m in METRICS}
            seconds = sorted(per[i][name]["seconds"] for i in ids)
            out["systems"][name]["p95_ms"] = (
                1000 * seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))] if seconds else 0.0
            )
            if name != BASELINE and BASELINE in systems:
                out["minus_bm25"][name] = {
                    m: paired([per[i][name][m] for i in ids], [per[i][BASELINE][m] for i in ids])
                    for m in METRICS
                }
        if "locate-learned" in systems and "locate" in systems:
            out["learned_minus_locate"] = {
                m: paired(
                    [per[i]["locate-learned"][m] for i in ids], [per[i]["locate"][m] for i in ids]
                )
                for m in METRICS
            }
        return out

    ids = sorted(per)
    languages = sorted({per[i]["language"] for i in ids})
    return {
        "overall": table(ids),
        "languages": {
            lang: table([i for i in ids if per[i]["language"] == lang]) for lang in languages
        },
    }


def against(per: dict[str, dict], earlier: Path) -> dict:
    """Each system minus the same system of an earlier run (its JSON), paired by pair, per
    language and over all: what a change of locate (its weights, its model) moved."""
    before = json.loads(earlier.read_text())["pairs"]
    shared = sorted(set(per) & set(before))
    systems = sorted({s for i in shared for s in per[i] if isinstance(per[i][s], dict)})
    tables: dict[str, dict] = {}
    for lang in [*sorted({per[i]["language"] for i in shared}), "all"]:
        ids = [i for i in shared if lang == "all" or per[i]["language"] == lang]
        for name in systems:
            both = [i for i in ids if name in per[i] and name in before[i]]
            if both:
                tables.setdefault(lang, {})[name] = {
                    "n": len(both),
                    **{
                        m: paired(
                            [per[i][name][m] for i in both], [before[i][name][m] for i in both]
                        )
                        for m in METRICS
                    },
                }
    return {"run": earlier.name, "languages": tables}


def markdown(summary: dict, meta: dict) -> str:
    """The tables of lab/results/loc_fixes_<mode>.md."""
    lines = [
        f"# Localisation on mined fixes ({meta['split']} split, {meta['mode']} mode)",
        "",
        f"Run {meta['finished']} on {meta['machine']}; `{meta['command']}`;"
        f" {summary['overall']['n']} pairs scored; dropped: {json.dumps(meta['dropped'])}.",
        "Each pair is searched at its parent commit (LocAgent's protocol); gold = the files and"
        " functions the fix changed. Mean [95% bootstrap interval]; Δ paired over the same"
        " pairs, * when the interval excludes 0.",
        "",
        "| language | n | system | file Acc@5 | function Acc@10 | file MRR@10 | function MRR@10"
        " | p95 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    tables = {**summary["languages"], "all": summary["overall"]}
    for lang, t in tables.items():
        for name, s in t["systems"].items():
            cells = " | ".join(fmt(*s[m]) for m in METRICS)
            lines.append(f"| {lang} | {t['n']} | {name} | {cells} | {s['p95_ms']:.0f} |")
    lines += [
        "",
        "## Paired differences",
        "",
        "| language | n | Δ | file Acc@5 | function Acc@10 | file MRR@10 | function MRR@10 |",
        "|---|---|---|---|---|---|---|",
    ]
    for lang, t in tables.items():
        for name, d in t["minus_bm25"].items():
            cells = " | ".join(fmt_delta(*d[m]) for m in METRICS)
            lines.append(f"| {lang} | {t['n']} | {name} − {BASELINE} | {cells} |")
        if "learned_minus_locate" in t:
            d = t["learned_minus_locate"]
            cells = " | ".join(fmt_delta(*d[m]) for m in METRICS)
            lines.append(f"| {lang} | {t['n']} | locate-learned − locate | {cells} |")
    if "against" in summary:
        lines += [
            "",
            f"## Minus the same system of {summary['against']['run']} (paired by pair)",
            "",
            "| language | n | system | file Acc@5 | function Acc@10 | file MRR@10"
            " | function MRR@10 |",
            "|---|---|---|---|---|---|---|",
        ]
        for lang, t in summary["against"]["languages"].items():
            for name, d in t.items():
                cells = " | ".join(fmt_delta(*d[m]) for m in METRICS)
                lines.append(f"| {lang} | {d['n']} | {name} | {cells} |")
    return "\n".join(lines) + "\n"


def ensure_indexed(
    url: str,
    pairs: list[FixPair],
    *,
    embedder=None,
    max_commits: int = MAX_COMMITS,
    mirrors: Path = MIRRORS,
    log=sys.stderr,
) -> Counter[str]:
    """Every pair's base commit indexed (per repository in commit order, at most `max_commits`
    new ones); counts of what could not be."""
    failed: Counter[str] = Counter()
    done = 0
    by_repo: dict[str, set[str]] = {}
    for pair in pairs:
        by_repo.setdefault(pair.repo, set()).add(pair.parent)
    for repo, shas in by_repo.items():
        git_dir = git_dir_of(repo, mirrors)
        started = time.monotonic()
        for sha in sorted(shas, key=lambda s: commit_time(git_dir, s)):
            if done >= max_commits:
                failed["commit cap reached"] += 1
                continue
            try:
                why = index_at(url, repo, git_dir, sha, embedder)
            except Exception as exc:  # noqa: BLE001 - one bad commit must not end the run
                why = f"indexing failed: {type(exc).__name__}"
                print(f"[fixes] {repo}@{sha[:8]}: {exc}", file=log, flush=True)
            done += 1
            if why:
                failed[why] += 1
        print(
            f"[fixes] {time.strftime('%H:%M:%S')} {repo}: {len(shas)} base commits"
            f" ({time.monotonic() - started:.0f} s)",
            file=log,
            flush=True,
        )
    return failed


def merge_runs(paths: list[Path], out: Path) -> int:
    """One results file from several runs (languages measured apart): a pair's record is the
    union of its systems over the runs, a later run's winning; only the systems every pair
    has are summarised."""
    runs = [json.loads(p.read_text()) for p in paths]
    per: dict[str, dict] = {}
    dropped: Counter[str] = Counter()
    for run in runs:
        for pid, record in run["pairs"].items():
            per.setdefault(pid, {}).update(record)
        dropped.update(run["meta"]["dropped"])
    names = ["locate", "locate-learned", BASELINE]
    # the systems some pair has; the pairs that have them all (runs of other repositories
    # leave pairs measured by some systems only: those are counted, not summarised)
    systems = [n for n in names if any(n in r for r in per.values())]
    partial = [pid for pid, r in per.items() if not all(n in r for n in systems)]
    per = {pid: r for pid, r in per.items() if pid not in partial}
    dropped["measured by some systems only"] = len(partial)
    summary = summarise(per, systems)
    meta = {
        **runs[-1]["meta"],
        "command": " + ".join(r["meta"]["command"] for r in runs),
        "languages": sorted({r["language"] for r in per.values()}),
        "repositories": sorted({r["repo"] for r in per.values()}),
        "dropped": dict(dropped),
        "merged_from": [str(p) for p in paths],
    }
    out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "summary": summary, "pairs": per}, indent=1, default=str) + "\n"
    )
    text = markdown(summary, meta)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


def _template_read_as_prose(keep: bool) -> AbstractContextManager[object]:
    """While active, `locate` reads a report whole, its template's boilerplate as prose."""
    import retrieval.locate

    if not keep:
        return nullcontext()
    return patch.object(retrieval.locate, "without_template", lambda text: text)


def main(argv: list[str] | None = None) -> int:
    """Index what is missing, measure, write results/loc_fixes_<mode>.{json,md}."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--split", default="test", choices=("train", "dev", "test"))
    p.add_argument("--languages", default="", help="comma-separated (default: every folder)")
    p.add_argument("--mode", default="lexical", choices=sorted(MODES))
    p.add_argument("--max-repos", type=int, default=MAX_REPOS)
    p.add_argument("--max-pairs", type=int, default=MAX_PAIRS)
    p.add_argument("--max-commits", type=int, default=MAX_COMMITS)
    p.add_argument(
        "--ranker",
        metavar="PATH|none",
        help="a locate ranker model (JSON), measured as locate-learned beside locate in the"
        " hand-set order; none: locate in the hand-set order (default: as shipped)",
    )
    p.add_argument("--weights", default="", help="locate weights, e.g. text_depth=300")
    p.add_argument(
        "--no-baseline", action="store_true", help=f"leave {BASELINE} out (measured already)"
    )
    p.add_argument("--out", help="output path without extension")
    p.add_argument(
        "--against", metavar="JSON", help="an earlier run: each system minus its, paired by pair"
    )
    p.add_argument("--data", default=str(DATA), help="the mined pairs' folder")
    p.add_argument(
        "--smallest", action="store_true", help="per language the smallest repositories first"
    )
    p.add_argument(
        "--index-only", action="store_true", help="index the base commits, measure nothing"
    )
    p.add_argument(
        "--repos", default="", help="comma-separated: only these repositories (owner/name)"
    )
    p.add_argument(
        "--merge", nargs="+", metavar="JSON", help="measure nothing: merge earlier runs into --out"
    )
    p.add_argument(
        "--template",
        choices=sorted(TEMPLATES),
        help="file each message through this issue template (lab/loc_templates.py)",
    )
    p.add_argument(
        "--keep-template",
        action="store_true",
        help="locate reads the template's boilerplate as prose (no `without_template`)",
    )
    args = p.parse_args(argv)
    if args.merge:
        target = Path(args.out or RESULTS / f"loc_fixes_{args.mode}")
        return merge_runs([Path(x) for x in args.merge], target)
    from benchmarks import embedder as embedders
    from benchmarks.workspace import database, prepare_environment
    from lab.loc import query_embedder
    from lab.machine import summary as machine_summary

    prepare_environment()
    pairs = selected_pairs(args)
    if args.template:
        pairs = [replace(p, query=filed(p.query, args.template)) for p in pairs]
    provider = MODES[args.mode]
    embedder = embedders.make(provider) if provider else None
    url = database(f"bench_loc_fixes_{args.mode}", fresh=False)
    started = time.monotonic()
    failed = ensure_indexed(url, pairs, embedder=embedder, max_commits=args.max_commits)
    if args.index_only:
        print(f"[fixes] indexed; not indexed: {dict(failed)}", file=sys.stderr)
        return 0
    from lab.loc import parse_weights, ranker_option
    from retrieval.locate import WEIGHTS

    locate_ranker, ranker = ranker_option(args.ranker)
    weights = parse_weights(args.weights, WEIGHTS)
    systems = ["locate", BASELINE]
    if ranker is not None:
        systems.insert(1, "locate-learned")
    if args.no_baseline:
        systems.remove(BASELINE)
    with _template_read_as_prose(args.keep_template):
        measured = measure(
            url,
            pairs,
            systems,
            embed_query=query_embedder(embedder) if embedder else None,
            ranker=ranker,
            locate_ranker=locate_ranker,
            weights=weights,
        )
    summary = summarise(measured["pairs"], systems)
    if args.against:
        summary["against"] = against(measured["pairs"], Path(args.against))
    meta = {
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine_summary(),
        "command": "python -m lab.loc_fixes " + " ".join(argv or sys.argv[1:]),
        "split": args.split,
        "mode": args.mode,
        "weights": weights.__dict__,
        "languages": languages_in(args.languages, Path(args.data)),
        "repositories": sorted({p.repo for p in pairs}),
        "dropped": {**measured["dropped"], **{f"index: {k}": v for k, v in failed.items()}},
        "seconds": round(time.monotonic() - started, 1),
    }
    out = Path(args.out or RESULTS / f"loc_fixes_{args.mode}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "summary": summary, **measured}, indent=1, default=str) + "\n"
    )
    text = markdown(summary, meta)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
