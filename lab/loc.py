"""Bug-report localisation: 236 SWE-bench Lite issues over nine PyPI projects, each searched
in the release it was filed against (../shared/eval/loc/README.md; LocAgent's protocol).

    python -m lab.loc --projects requests,flask,seaborn,xarray
    python -m lab.loc --reuse                 # what is indexed now, nothing new
    python -m lab.loc --systems locate --half even --weights frame=2
    python -m lab.loc --reuse --systems locate --ranker lab/results/locate_ranker_v2.json

The corpora are the releases' sdists (lab/loc_corpora.py), indexed with the fake
embedder by default (its vectors mean nothing: lexical, symbols and paths only); `--embedder
local` indexes with the local model (~60 chunks/s on this machine; vectors are per distinct
chunk, so django's seven releases, 283,558 chunks listed, need 81,818 embedded: ~23 min;
scikit-learn's four ~12 min, sympy's first two ~11 min, all nine projects over an hour; not
run here). Figures go to
lab/results/loc.{md,json}; every figure has its 95% bootstrap interval.

`locate` runs with the learned order shipped beside retrieval/locate_ranker.py, if one is;
`--ranker PATH` measures a model as `locate-learned` beside `locate` in the hand-set order, on
the same index and reports (`--ranker none`: `locate` in the hand-set order alone).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from lab.loc_corpora import PROJECTS, REPOS, releases_of
from lab.loc_gold import Instance, load_instances, resolve_gold
from lab.loc_metrics import (
    FILE_KS,
    FUNCTION_KS,
    bootstrap,
    instance_scores,
    latency,
    paired_difference,
)
from lab.loc_systems import LEARNED, SYSTEMS, SnapshotCorpus, locate_system, search_system

RESULTS = Path(__file__).resolve().parent / "results"
METRICS = [f"file_acc@{k}" for k in FILE_KS] + [f"func_acc@{k}" for k in FUNCTION_KS]
METRICS.append("func_any@5")
# small projects first: end-to-end figures come fast
ORDER = [p for p, _ in PROJECTS.values()]
SPARE_CONNECTIONS = 2  # locate's three lookups: its own connection and two lent


def _snapshot_id(conn, project: str, commit: str) -> int | None:
    row = conn.execute(
        "SELECT s.id FROM snapshots s JOIN repositories r ON r.id = s.repository_id"
        " WHERE r.name = %s AND s.commit_sha = %s AND s.status = 'ready'",
        (project, commit),
    ).fetchone()
    return row["id"] if row else None


def measure(
    url: str,
    instances: list[Instance],
    systems: list[str],
    weights=None,
    log=sys.stderr,
    embed_query=None,
    repos: Path = REPOS,
    ranker="shipped",
    learned=None,
) -> dict:
    """Every system on every instance whose release is indexed and whose gold resolves; the
    searches embed their queries with `embed_query` (none: no semantic retrieval); the BM25
    baselines read the files from the project repositories under `repos`; `locate` orders by
    `ranker` (`locate_system`), `locate-learned` by the model `learned`."""
    from core.database import connect, open_pool
    from retrieval.concurrency import spare_connections
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    conn = connect(url)
    principal = ensure_operator(conn)
    conn.commit()
    # spare connections, as the MCP server lends its tools' concurrent lookups (its pool is 8)
    pool = open_pool(url, max_size=SPARE_CONNECTIONS, name="loc-benchmark")
    pool.wait()
    spare = spare_connections(pool)
    makers = {
        "search-10": search_system(conn, 10, spare, embed_query=embed_query),
        "search-50": search_system(conn, 50, spare, embed_query=embed_query),
        "question-10": search_system(conn, 10, spare, read_reports=False, embed_query=embed_query),
        "locate": locate_system(conn, weights, spare, embed_query, ranker),
    }
    if learned is not None:
        makers[LEARNED] = locate_system(conn, weights, spare, embed_query, learned)
    per: dict[str, dict] = {}
    dropped: Counter[str] = Counter()
    reasons: dict[str, str] = {}
    groups: dict[tuple[str, str], list[Instance]] = {}
    for inst in instances:
        groups.setdefault((inst.project, inst.commit), []).append(inst)
    try:
        for (project, commit), group in groups.items():
            snapshot = _snapshot_id(conn, project, commit)
            if snapshot is None:
                for inst in group:
                    dropped[f"{project}: release not indexed"] += 1
                    reasons[inst.instance_id] = "release not indexed"
                continue
            scope = resolve_scope(conn, principal, [project], commit)
            conn.commit()
            corpus = None
            if {"bm25-files", "bm25-functions"} & set(systems):
                corpus = SnapshotCorpus(conn, snapshot, repos / project, commit)
                corpus.build(systems)
            print(
                f"[loc] {time.strftime('%H:%M:%S')} {project} {group[0].release}:"
                f" {len(group)} reports",
                file=log,
                flush=True,
            )
            for inst in group:
                why = resolve_gold(conn, snapshot, inst)
                conn.commit()
                if why:
                    dropped[f"{project}: gold absent"] += 1
                    reasons[inst.instance_id] = why
                    continue
                record = {
                    "project": project,
                    "release": inst.release,
                    "index": inst.index,
                    "gold_functions": [f"{g.path}:{g.symbol}" for g in inst.gold_functions],
                }
                for name in systems:
                    if name == "bm25-files":
                        fn = corpus.bm25_files  # type: ignore[union-attr]
                    elif name == "bm25-functions":
                        fn = corpus.bm25_functions  # type: ignore[union-attr]
                    else:
                        fn = makers[name]
                    started = time.perf_counter()
                    ranking = fn(scope, inst.issue)
                    seconds = time.perf_counter() - started
                    scores = instance_scores(ranking, inst.gold_files, inst.gold_functions)
                    record[name] = {
                        **scores,
                        "seconds": seconds,
                        "top_files": ranking.files[:10],
                        "top_functions": [f"{f.path}:{f.symbol}" for f in ranking.functions[:10]],
                        "test_share@10": _aux_share(ranking.files[:10]),
                    }
                per[inst.instance_id] = record
    finally:
        conn.close()
        pool.close()
    return {"instances": per, "dropped": dict(dropped), "drop_reasons": reasons}


def query_embedder(embedder):
    """`embed_query(model, text)` for the searches: the report's vector for the embedder's own
    model, None for another; None for an embedder whose vectors mean nothing (fake)."""
    from benchmarks import embedder as embedders

    if not embedders.is_real(embedder):
        return None

    def embed_query(model: str, text: str):
        return embedder.embed_query(text) if model == embedder.model_name else None

    return embed_query


def _aux_share(files: list[str]) -> float:
    from retrieval.path_roles import CODE, path_role

    return sum(path_role(p) != CODE for p in files) / len(files) if files else 0.0


def summarise(per: dict[str, dict], systems: list[str]) -> dict:
    """Per system: metrics with intervals and latency, overall, per project and per half."""

    def table(ids: list[str]) -> dict:
        out: dict = {}
        for name in systems:
            rows = [per[i][name] for i in ids if name in per[i]]
            out[name] = {m: bootstrap([r[m] for r in rows]) for m in METRICS}
            out[name]["aux_share@10"] = bootstrap([r["test_share@10"] for r in rows])
            out[name]["latency"] = latency([r["seconds"] for r in rows])
        return out

    ids = sorted(per)
    projects = sorted(
        {per[i]["project"] for i in ids},
        key=lambda p: (ORDER.index(p) if p in ORDER else len(ORDER), p),
    )
    result = {
        "n": len(ids),
        "overall": table(ids),
        "halves": {
            "even": table([i for i in ids if per[i]["index"] % 2 == 0]),
            "odd": table([i for i in ids if per[i]["index"] % 2 == 1]),
        },
        "projects": {p: table([i for i in ids if per[i]["project"] == p]) for p in projects},
        "counts": {p: sum(per[i]["project"] == p for i in ids) for p in projects},
    }
    if "locate" in systems:
        result["locate_minus"] = {
            other: {
                m: paired_difference(
                    [per[i]["locate"][m] for i in ids], [per[i][other][m] for i in ids]
                )
                for m in ("file_acc@5", "func_acc@10")
            }
            for other in systems
            if other != "locate"
        }
    return result


def against(per: dict[str, dict], earlier: Path) -> dict:
    """Each system of this run minus the same system of an `earlier` run's JSON (another model
    or weights), paired over the reports both scored, with how many went up and down."""
    before = json.loads(earlier.read_text())["instances"]
    out: dict = {"run": earlier.name, "systems": {}}
    systems = {name for record in per.values() for name in record if name in SYSTEMS}
    for name in sorted(systems):
        ids = sorted(i for i in per if name in per[i] and name in before.get(i, {}))
        if not ids:
            continue
        diffs: dict = {}
        for m in METRICS:
            now, then = [per[i][name][m] for i in ids], [before[i][name][m] for i in ids]
            diffs[m] = paired_difference(now, then) | {
                "up": sum(a > b for a, b in zip(now, then, strict=True)),
                "down": sum(a < b for a, b in zip(now, then, strict=True)),
            }
        out["systems"][name] = diffs
    return out


def _fmt(b: dict) -> str:
    if b["n"] == 0:
        return "—"
    return f"{b['mean']:.3f} [{b['lo']:.2f}, {b['hi']:.2f}]"


def markdown(
    summary: dict,
    meta: dict,
    title: str = "Bug-report localisation (SWE-bench Lite, LocAgent's protocol)",
    generated_by: str = "`python -m lab.loc` (lab/loc.py)",
) -> str:
    """The tables of lab/results/loc.md."""
    head = "| system | " + " | ".join(METRICS) + " | non-code share of top 10 | p50 ms | p95 ms |"
    sep = "|---" * (len(METRICS) + 4) + "|"

    def rows(table: dict) -> list[str]:
        return [
            f"| {name} | "
            + " | ".join(_fmt(t[m]) for m in METRICS)
            + f" | {t['aux_share@10']['mean']:.2f}"
            + f" | {t['latency']['p50_ms']:.0f} | {t['latency']['p95_ms']:.0f} |"
            for name, t in table.items()
        ]

    lines = [
        f"# {title}",
        "",
        f"Run {meta['finished']} on {meta['machine']}; embedder `{meta['embedder']}`;"
        f" {summary['n']} reports scored; dropped: {json.dumps(meta['dropped'])}.",
        "Each figure: mean [95% bootstrap interval, 2,000 resamples, seed fixed]."
        f" Generated by {generated_by}.",
        "",
        "Systems: " + "; ".join(f"`{n}` {SYSTEMS[n]}" for n in summary["overall"]) + ".",
        "",
        "## All reports",
        "",
        head,
        sep,
        *rows(summary["overall"]),
        "",
    ]
    if "locate_minus" in summary:
        lines += ["## locate minus each system (paired, same reports)", ""]
        lines += ["| system | Δ file Acc@5 | Δ function Acc@10 |", "|---|---|---|"]
        for other, d in summary["locate_minus"].items():
            lines.append(f"| {other} | {_fmt(d['file_acc@5'])} | {_fmt(d['func_acc@10'])} |")
        lines.append("")
    if "against" in summary:
        lines += [f"## minus the same system of {summary['against']['run']} (paired by report)"]
        lines += ["", "| system | n | " + " | ".join(f"Δ {m} (up/down)" for m in METRICS) + " |"]
        lines.append("|---" * (len(METRICS) + 2) + "|")
        for name, d in summary["against"]["systems"].items():
            cells = [f"{_fmt(d[m])} ({d[m]['up']}/{d[m]['down']})" for m in METRICS]
            lines.append(f"| {name} | {d[METRICS[0]]['n']} | " + " | ".join(cells) + " |")
        lines.append("")
    for half, table in summary["halves"].items():
        n = next(iter(table.values()))["file_acc@5"]["n"] if table else 0
        lines += [f"## {half} half (instances at {half} positions of the data file; n={n})", ""]
        lines += [head, sep, *rows(table), ""]
    for project, table in summary["projects"].items():
        lines += [f"## {project} (n={summary['counts'][project]})", "", head, sep, *rows(table), ""]
    return "\n".join(lines)


def benchmarks_section(path: Path = RESULTS / "loc.json") -> str | None:
    """The full report's section: the overall table of the last full run (None before one)."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    summary, meta = data["summary"], data["meta"]
    lines = markdown(summary, meta).split("\n## ")[1].split("\n", 1)[1].strip()
    return "\n".join(
        [
            "## Bug-report localisation (SWE-bench Lite, 236 real issues)",
            "",
            "Where is the code to change, given a whole bug report (../shared/eval/loc/)? Each"
            " report is searched in the release it was filed against (the releases' sdists from"
            " PyPI, one repository per project, one snapshot per release); LocAgent's protocol:"
            " file Acc@k = every gold file in the top k files, function Acc@k = every gold"
            " function among the top k functions. `python -m lab.loc`; every table,"
            " per project and per half, in lab/results/loc.md (run"
            f" {meta['finished']} on {meta['machine']}; embedder `{meta['embedder']}`, projects"
            f" {', '.join(meta['projects'])}; dropped: {json.dumps(meta['dropped'])}).",
            "",
            lines,
            "",
        ]
    )


def update_benchmarks_md(path: Path = RESULTS / "run_all.md") -> None:
    """Put `benchmarks_section()` into the full report (lab/results/run_all.md) in place (as
    `lab.report` does when it regenerates the whole file): before "Not measured, and caveats"."""
    section = benchmarks_section()
    if section is None or not path.is_file():
        return
    text = path.read_text()
    title = section.split("\n", 1)[0]
    if title in text:
        start = text.index(title)
        end = text.find("\n## ", start + len(title))
        text = text[:start] + section + (text[end + 1 :] if end != -1 else "")
    else:
        anchor = text.find("## Not measured, and caveats")
        at = anchor if anchor != -1 else len(text)
        text = text[:at] + section + "\n" + text[at:]
    path.write_text(text)


def parse_weights(text: str, base):
    """`frame=2,file_functions=false,function_order=rank` over `base`, each value read as the
    type of the field's default."""
    changes: dict[str, object] = {}
    for kv in (x for x in text.split(",") if x):
        key, _, value = kv.partition("=")
        default = getattr(base, key)
        if isinstance(default, bool):
            changes[key] = value.lower() in ("1", "true", "yes")
        elif isinstance(default, (int, float)):
            changes[key] = type(default)(float(value))
        else:
            changes[key] = value
    return replace(base, **changes)


def merge_runs(paths: list[Path], out: Path) -> int:
    """One results file from several runs (projects measured apart, or a system re-measured):
    a report's record is the union of its systems over the runs, a later run's winning."""
    runs = [json.loads(p.read_text()) for p in paths]
    per: dict[str, dict] = {}
    reasons: dict[str, str] = {}
    for run in runs:
        for iid, record in run["instances"].items():
            per.setdefault(iid, {}).update(record)
        reasons.update(run.get("drop_reasons", {}))
    systems = [n for n in SYSTEMS if all(n in r for r in per.values())]
    summary = summarise(per, systems)
    meta = {**runs[-1]["meta"], "merged_from": [str(p) for p in paths]}
    meta["projects"] = sorted({r["project"] for r in per.values()}, key=ORDER.index)
    meta["dropped"] = _merged_drops(runs, per)
    meta["seconds"] = sum(r["meta"].get("seconds", 0) for r in runs)
    out.with_suffix(".json").write_text(
        json.dumps(
            {
                "meta": meta,
                "summary": summary,
                "instances": per,
                "dropped": meta["dropped"],
                "drop_reasons": {i: w for i, w in reasons.items() if i not in per},
            },
            indent=1,
            default=str,
        )
        + "\n"
    )
    out.with_suffix(".md").write_text(markdown(summary, meta) + "\n")
    if out == RESULTS / "loc":
        update_benchmarks_md()
    print(markdown(summary, meta))
    return 0


def _merged_drops(runs: list[dict], per: dict[str, dict]) -> dict[str, int]:
    """The drop counts of the runs, without the reports another run scored."""
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    for run in runs:
        for iid, why in run.get("drop_reasons", {}).items():
            if iid in per or iid in seen:
                continue
            seen.add(iid)
            project = iid.split("__", 1)[-1].rsplit("-", 1)[0]  # owner__name-number
            label = "gold absent" if why.startswith("gold") else why
            counts[f"{project}: {label}"] += 1
    return dict(counts)


def ranker_option(value: str | None):
    """(`locate`'s ranker, the model of `locate-learned` or None) of `--ranker`: absent, the
    shipped order and no learned system; "none", the hand-set order; a path, the hand-set order
    and that model beside it, so that the two differ by the model alone."""
    if not value:
        return "shipped", None
    if value.lower() == "none":
        return None, None
    from retrieval.locate_ranker import load_ranker

    if not Path(value).is_file():
        raise SystemExit(f"--ranker {value}: no such model (python -m lab.ranker.locate_train)")
    return None, load_ranker(value)


def main(argv: list[str] | None = None) -> int:
    """Index what is missing (unless --reuse), measure, write results/loc.{md,json}."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--projects", default=",".join(ORDER), help="comma-separated project names")
    p.add_argument(
        "--systems", default=",".join(n for n in SYSTEMS if n != LEARNED), help=",".join(SYSTEMS)
    )
    p.add_argument(
        "--ranker",
        metavar="PATH|none",
        help="a locate ranker model (JSON), measured as locate-learned beside locate in the"
        " hand-set order; none: locate in the hand-set order (default: as shipped)",
    )
    p.add_argument("--embedder", default="fake", help="fake (default) | local")
    p.add_argument(
        "--reuse", action="store_true", help="measure what is indexed now; index nothing"
    )
    p.add_argument("--half", choices=("even", "odd", "all"), default="all")
    p.add_argument(
        "--releases", default="", help="only the reports of these releases, e.g. 1.7,1.8"
    )
    p.add_argument("--weights", default="", help="locate weights, e.g. frame=2,auxiliary=0.5")
    p.add_argument("--out", default=str(RESULTS / "loc"), help="output path without extension")
    p.add_argument(
        "--against",
        metavar="JSON",
        help="also each system minus the same system of an earlier run (paired by report)",
    )
    p.add_argument(
        "--merge",
        nargs="+",
        metavar="JSON",
        help="measure nothing: combine the per-report records of earlier runs (each system of a"
        " report from the last file that has it) into one summary",
    )
    args = p.parse_args(argv)
    if args.merge:
        return merge_runs([Path(x) for x in args.merge], Path(args.out))
    from benchmarks import embedder as embedders
    from benchmarks.workspace import database, prepare_environment
    from lab.loc_index import ensure_indexed, index_cost
    from lab.machine import summary as machine_summary
    from retrieval.locate import WEIGHTS

    prepare_environment()
    projects = [x for x in args.projects.split(",") if x]
    systems = [x for x in args.systems.split(",") if x]
    weights = parse_weights(args.weights, WEIGHTS)
    ranker, learned = ranker_option(args.ranker)
    if learned is not None and LEARNED not in systems:
        systems.insert(systems.index("locate") + 1 if "locate" in systems else 0, LEARNED)
    if learned is None and LEARNED in systems:
        raise SystemExit(f"{LEARNED} measures a model: name it with --ranker PATH")
    if args.reuse:
        from lab.loc_index import database_name

        url = database(database_name(args.embedder), fresh=False)
    elif embedders.model_folder(args.embedder) is not None:
        # a model folder (a fine-tuned model): the local model's index, copied and re-embedded
        from core.config import load_settings
        from core.database import server_url
        from lab.loc_index import copy_with_vectors, database_name

        url = copy_with_vectors(
            server_url(load_settings()),
            database_name("local"),
            database_name(args.embedder),
            embedders.make(args.embedder),
        )
    else:
        model = embedders.make(args.embedder).model_name
        url, _ = ensure_indexed(projects, args.embedder, model)
    instances = load_instances(projects)
    if args.releases:
        instances = [i for i in instances if i.release in args.releases.split(",")]
    if args.half != "all":
        instances = [i for i in instances if i.index % 2 == (args.half == "odd")]
    started = time.monotonic()
    embedder = embedders.make(args.embedder)
    measured = measure(
        url,
        instances,
        systems,
        weights,
        embed_query=query_embedder(embedder),
        ranker=ranker,
        learned=learned,
    )
    summary = summarise(measured["instances"], systems)
    if args.against:
        summary["against"] = against(measured["instances"], Path(args.against))
    meta = {
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine_summary(),
        "embedder": args.embedder,
        "projects": projects,
        "half": args.half,
        "weights": weights.__dict__,
        "ranker": args.ranker or "shipped",
        "dropped": measured["dropped"],
        "seconds": round(time.monotonic() - started, 1),
        "releases": {p: releases_of(p) for p in projects},
        "index_cost": {p: index_cost(url, p) for p in projects},
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "summary": summary, **measured}, indent=1, default=str) + "\n"
    )
    out.with_suffix(".md").write_text(markdown(summary, meta) + "\n")
    if out == RESULTS / "loc":
        update_benchmarks_md()
    print(markdown(summary, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
