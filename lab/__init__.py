"""The lab: experiments, the corpora they build and their raw results (lab/README.md).

The product never imports it, nor does benchmarks/ (the quality guard and the published tables);
the lab imports both.
"""

from pathlib import Path

# every experiment's raw results (json and short md notes)
RESULTS = Path(__file__).resolve().parent / "results"
