"""Plain-text tables of quality results for the terminal (`python -m lab.quality`)."""

from __future__ import annotations

import statistics

COLUMNS = (
    ("R@1", "recall@1"),
    ("R@5", "recall@5"),
    ("R@10", "recall@10"),
    ("t@5", "tight@5"),
    ("MRR", "mrr@10"),
    ("nDCG", "ndcg@10"),
    ("R≤2k", "recall@2000tok"),
    ("R≤4k", "recall@4000tok"),
)
DELTAS = (("ΔR@5", "recall@5"), ("Δt@5", "tight@5"), ("ΔMRR", "mrr@10"))
SUMMARY = (("R@5", "recall@5"), ("t@5", "tight@5"), ("MRR", "mrr@10"), ("R≤2k", "recall@2000tok"))


def _render(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = "  ".join(
        h.ljust(w) if i == 0 else h.rjust(w)
        for i, (h, w) in enumerate(zip(header, widths, strict=True))
    )
    out = [line, "-" * len(line)]
    for row in rows:
        out.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    return "\n".join(out)


def _delta(now: float, before: float | None) -> str:
    if before is None:
        return ""
    d = now - before
    return "=" if abs(d) < 5e-4 else f"{d:+.3f}"


def print_table(result: dict, previous: dict) -> None:
    """One set: a row per system, its metrics, the change of R@5/tight@5/MRR since last time."""
    s = result["set"]
    print(
        f"\n{s['language']} ({s['name']}): {result['corpus']['queries']} questions,"
        f" embedder {result['embedder']['model']}"
        + (f", indexed in {result['index']['wall_seconds']} s" if result.get("index") else "")
    )
    header = ["system"] + [c for c, _ in COLUMNS] + ["ms/q"] + [c for c, _ in DELTAS]
    rows = []
    for name, scores in result["scores"].items():
        mode = name.removeprefix("codeatlas-")
        seconds = result["latency_seconds"].get(mode)
        ms = f"{statistics.median(seconds) * 1000:.0f}" if seconds else ""
        before = previous.get(name, {})
        rows.append(
            [name]
            + [f"{scores[k]:.3f}" for _, k in COLUMNS]
            + [ms]
            + [_delta(scores[k], before.get(k)) for _, k in DELTAS]
        )
    print(_render(header, rows))


def print_intervals(result: dict) -> None:
    """95% bootstrap intervals of MRR@10 and Recall@5 per system (one question moves a set of
    40 by 2.5 points: a difference inside these is not a finding)."""
    found = result.get("intervals", {})
    if not found:
        return
    print("95% bootstrap intervals (2,000 resamples of the questions):")
    for name, ci in found.items():
        scores = result["scores"][name]
        mrr, r5 = ci["mrr@10"], ci["recall@5"]
        print(
            f"  {name}: MRR@10 {scores['mrr@10']:.3f} [{mrr[0]:.3f}, {mrr[1]:.3f}]"
            f"  R@5 {scores['recall@5']:.3f} [{r5[0]:.3f}, {r5[1]:.3f}]"
        )


def print_summary(results: dict[str, dict]) -> None:
    """Every system across the sets: R@5, tight@5, MRR@10 and recall within 2,000 tokens."""
    sets = list(results)
    systems: list[str] = []
    for r in results.values():
        systems += [n for n in r["scores"] if n not in systems]
    header = ["system"] + [f"{name} {c}" for name in sets for c, _ in SUMMARY]
    rows = []
    for system in systems:
        row = [system]
        for name in sets:
            scores = results[name]["scores"].get(system)
            row += [f"{scores[k]:.3f}" if scores else "–" for _, k in SUMMARY]
        rows.append(row)
    print("\nAll sets")
    print(_render(header, rows))
