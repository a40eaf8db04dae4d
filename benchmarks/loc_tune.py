"""How `locate`'s weights were chosen: a small grid, measured on the even half of the
localisation set only (instances at even positions of the data file); the odd half is reported
untouched by `python -m benchmarks.loc` (docs/retrieval.md, "Locate").

    python -m benchmarks.loc_tune --projects requests,flask,seaborn,xarray,scikit-learn
"""

from __future__ import annotations

import argparse
import io
import itertools
import sys
from dataclasses import replace

from benchmarks.loc import measure
from benchmarks.loc_gold import load_instances
from benchmarks.loc_index import database_name
from benchmarks.loc_metrics import bootstrap

# each weight at half, equal and double its neutral value (1 for the evidence against the best
# prose file; 0.5 for named definitions, the decay and the tests' share of a third kept)
GRID = {"frame": (0.5, 1.0, 2.0), "path": (0.5, 1.0, 2.0), "symbol": (0.25, 0.5, 1.0)}


def main(argv: list[str] | None = None) -> int:
    """Print file Acc@5 and function Acc@10 of every grid point on the even half."""
    from benchmarks.workspace import database, prepare_environment
    from retrieval.locate import WEIGHTS

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--projects", required=True)
    args = p.parse_args(argv)
    prepare_environment()
    url = database(database_name("fake"), fresh=False)
    instances = [i for i in load_instances(args.projects.split(",")) if i.index % 2 == 0]
    rows = []
    for values in itertools.product(*GRID.values()):
        weights = replace(WEIGHTS, **dict(zip(GRID, values, strict=True)))
        per = measure(url, instances, ["locate"], weights, log=io.StringIO())
        scores = [r["locate"] for r in per["instances"].values()]
        f5 = bootstrap([s["file_acc@5"] for s in scores])
        fn10 = bootstrap([s["func_acc@10"] for s in scores])
        rows.append((f5["mean"] + fn10["mean"], values, f5, fn10))
        print(
            f"{dict(zip(GRID, values, strict=True))}: file Acc@5 {f5['mean']:.3f}"
            f" [{f5['lo']:.2f}, {f5['hi']:.2f}], function Acc@10 {fn10['mean']:.3f}"
            f" (n={f5['n']})",
            flush=True,
        )
    best = max(rows, key=lambda r: r[0])
    print(f"best on the even half: {dict(zip(GRID, best[1], strict=True))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
