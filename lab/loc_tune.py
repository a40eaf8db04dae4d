"""How `locate`'s weights were chosen: eight points, measured on the even half of the
localisation set only (instances at even positions of the data file); the odd half is reported
untouched by `python -m lab.loc` (docs/retrieval.md, "Locate").

    python -m lab.loc_tune --projects requests,flask,seaborn,xarray,scikit-learn
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import replace

from lab.loc import measure
from lab.loc_gold import load_instances
from lab.loc_index import database_name
from lab.loc_metrics import bootstrap

# each weight alone at half and double its neutral value (1 for frames and quoted paths against
# the best prose file, 0.5 for named definitions), the others kept: 7 points, not a grid of 27
# that a half of ~100 reports could not tell apart
NEUTRAL = {"frame": 1.0, "path": 1.0, "symbol": 0.5}
POINTS: list[dict[str, float]] = [dict(NEUTRAL)] + [
    {**NEUTRAL, name: value * factor} for name, value in NEUTRAL.items() for factor in (0.5, 2.0)
]
# and twice the prose terms (64): a report holds more than a question
POINTS.append({**NEUTRAL, "max_terms": 64})
# and the functions of the leading files from their chunks among BM25's candidates only
POINTS.append({**NEUTRAL, "file_functions": False})


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
    for point in POINTS:
        weights = replace(WEIGHTS, **point)
        per = measure(url, instances, ["locate"], weights, log=io.StringIO())
        scores = [r["locate"] for r in per["instances"].values()]
        f5 = bootstrap([s["file_acc@5"] for s in scores])
        fn10 = bootstrap([s["func_acc@10"] for s in scores])
        rows.append((f5["mean"] + fn10["mean"], point))
        print(
            f"{point}: file Acc@5 {f5['mean']:.3f} [{f5['lo']:.2f}, {f5['hi']:.2f}],"
            f" function Acc@10 {fn10['mean']:.3f} [{fn10['lo']:.2f}, {fn10['hi']:.2f}]"
            f" (n={f5['n']})",
            flush=True,
        )
    print(f"best on the even half: {max(rows, key=lambda r: r[0])[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
