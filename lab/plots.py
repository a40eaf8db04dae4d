"""PNG figures of the full benchmark report, lab/results/run_all.md (matplotlib, Agg backend: no
display needed)."""

from __future__ import annotations

from pathlib import Path


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def quality_bars(scores: dict[str, dict], out: Path, title: str = "the eval set") -> Path | None:
    """Grouped bars: Recall@1/5/10, tight@5, MRR@10, nDCG@10 per system."""
    plt = _pyplot()
    if plt is None:
        return None
    metrics = ["recall@1", "recall@5", "recall@10", "tight@5", "mrr@10", "ndcg@10"]
    systems = list(scores)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(systems)
    for i, name in enumerate(systems):
        xs = [m + i * width for m in range(len(metrics))]
        ax.bar(xs, [scores[name][m] for m in metrics], width, label=name)
    ax.set_xticks([m + 0.4 - width / 2 for m in range(len(metrics))], metrics)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of queries / score")
    ax.set_title(f"Retrieval quality: {title}")
    ax.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def budget_scatter(scores: dict[str, dict], out: Path, title: str = "") -> Path | None:
    """Recall within a 2,000 / 4,000-token budget against the median answer size."""
    plt = _pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, s in scores.items():
        axes[0].scatter(s["answer_tokens@5_median"], s["recall@5"], s=40)
        axes[0].annotate(
            name,
            (s["answer_tokens@5_median"], s["recall@5"]),
            fontsize=7,
            xytext=(4, 3),
            textcoords="offset points",
        )
    axes[0].set_xlabel("median tokens in the top 5 results")
    axes[0].set_ylabel("Recall@5")
    axes[0].set_title("What an answer costs")
    systems = list(scores)
    for j, budget in enumerate((2000, 4000)):
        axes[1].barh(
            [y + j * 0.4 for y in range(len(systems))],
            [scores[n][f"recall@{budget}tok"] for n in systems],
            0.4,
            label=f"first {budget:,} tokens",
        )
    axes[1].set_yticks([y + 0.2 for y in range(len(systems))], systems, fontsize=8)
    axes[1].set_xlim(0, 1)
    axes[1].set_xlabel("share of queries with a hit")
    axes[1].set_title("Recall within a token budget")
    if title:
        fig.suptitle(title)
    axes[1].legend(fontsize=8)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def languages_bars(quality: dict[str, dict], out: Path) -> Path | None:
    """Per eval set: Recall@5, tight@5 and recall within 2,000 tokens of the key systems."""
    plt = _pyplot()
    if plt is None or not quality:
        return None
    systems = ["codeatlas-hybrid", "codeatlas-lexical", "bm25-2048", "naive-rag", "cast-hybrid"]
    metrics = [("recall@5", "Recall@5"), ("tight@5", "tight@5"), ("recall@2000tok", "R ≤ 2k tok")]
    sets = list(quality)
    fig, axes = plt.subplots(1, len(metrics), figsize=(12, 4), sharey=True)
    width = 0.8 / len(systems)
    for ax, (key, label) in zip(axes, metrics, strict=True):
        for i, system in enumerate(systems):
            values = [quality[s]["scores"].get(system, {}).get(key, 0.0) for s in sets]
            ax.bar([x + i * width for x in range(len(sets))], values, width, label=system)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(sets))], sets)
        ax.set_title(label)
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(systems), fontsize=8)
    fig.suptitle("Across the public dev sets")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def latency_lines(levels: dict[str, dict], out: Path) -> Path | None:
    """p50 latency per retriever (and baselines) against the number of chunks."""
    plt = _pyplot()
    if plt is None:
        return None
    rows = sorted((v["chunks"], v) for k, v in levels.items() if "fake" in k)
    if not rows:
        return None
    series = [
        "semantic",
        "lexical",
        "symbol",
        "hybrid_fused",
        "baseline_numpy_cosine",
        "baseline_bm25",
    ]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in series:
        pts = [(n, v[name]["p50_ms"]) for n, v in rows if name in v]
        if pts:
            style = "--" if name.startswith("baseline") else "-"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunks in scope")
    ax.set_ylabel("p50 latency (ms)")
    ax.set_title("Query latency as the index grows (fake-embedder vectors)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
