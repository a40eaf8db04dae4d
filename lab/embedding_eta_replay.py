"""How right the embedding step's ETA was on a real run, and what the former estimator would
have said on the same run (issue 48: "ETA 1452s" for a step that ended 437 s later).

Reads the progress lines of an index run's output (`HH:MM:SS chunk_embeddings: embedded N/M
chunks (R/s, ETA Xs)`), takes the last one (N = M) as the step's end, and for every line
compares the ETA printed with the time that really followed. The former estimator (bytes left
over bytes embedded per second since the start) is recomputed from the snapshot's chunk lengths
in the database, in the order the step embeds them (shortest first), with the step's start
taken as the publishing line's time (the step follows it at once).

    python -m lab.embedding_eta_replay LOG --repo demo [--label demo]
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import datetime, timedelta
from pathlib import Path

from lab import machine

RESULTS = Path(__file__).resolve().parent / "results"
_LINE = re.compile(
    r"^(\d\d:\d\d:\d\d) chunk_embeddings: embedded (\d+)/(\d+) chunks \(([\d.]+)/s, ETA (\d+)s\)"
)
_PUBLISHED = re.compile(r"^(\d\d:\d\d:\d\d) snapshot: published (\S+)@")


def _seconds(stamp: str, day_start: datetime) -> float:
    at = datetime.strptime(stamp, "%H:%M:%S").replace(
        year=day_start.year, month=day_start.month, day=day_start.day
    )
    if at < day_start:  # past midnight
        at += timedelta(days=1)
    return (at - day_start).total_seconds()


def _lengths(repository: str) -> list[int]:
    """The snapshot's chunk content lengths, as the step sorts them (a model with no vectors
    lacks them all)."""
    from core.config import load_settings
    from core.database import connection, index_database_url
    from indexing import repositories
    from indexing.embedding_step import missing_content

    with connection(index_database_url(load_settings())) as conn:
        repo = repositories.get(conn, repository)
        snap = repo.current_snapshot_id
        assert snap is not None, f"{repository} has no current snapshot"
        rows = missing_content(conn, snap, "no-such-model:eta-replay")
    return sorted(r["length"] for r in rows)


def replay(log: Path, repository: str) -> dict:
    """Every progress line with the ETA printed, the former estimator's, and the truth."""
    text = log.read_text().splitlines()
    day = datetime(2000, 1, 1)
    published = next(m for m in map(_PUBLISHED.match, text) if m and m.group(2) == repository)
    assert published, "no publishing line"
    start = _seconds(published.group(1), day)
    lines = [m for m in map(_LINE.match, text) if m]
    assert lines and lines[-1].group(2) == lines[-1].group(3), "the step did not finish"
    end = _seconds(lines[-1].group(1), day)
    lengths = _lengths(repository)
    total = sum(lengths)
    rows = []
    for m in lines[:-1]:
        at, done = _seconds(m.group(1), day), int(m.group(2))
        elapsed = at - start
        done_bytes = sum(lengths[:done])
        former = elapsed * (total - done_bytes) / done_bytes if done_bytes else 0.0
        real = end - at
        rows.append(
            {
                "seconds_into_step": round(elapsed),
                "embedded": done,
                "eta_printed": int(m.group(5)),
                "eta_former_estimator": round(former),
                "really_left": round(real),
                "error_printed": round(abs(int(m.group(5)) - real) / real, 3) if real else None,
                "error_former": round(abs(former - real) / real, 3) if real else None,
            }
        )
    # a line with seconds left says "ETA 0s" or "1s": whole seconds, not a relative error
    after = [r for r in rows if r["seconds_into_step"] >= 60 and r["really_left"] >= 10]
    return {
        "repository": repository,
        "chunks": int(lines[-1].group(3)),
        "step_seconds": round(end - start),
        "lines": rows,
        "max_error_after_first_minute": {
            "printed": max((r["error_printed"] for r in after), default=None),
            "former_estimator": max((r["error_former"] for r in after), default=None),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--label", default="demo")
    parser.add_argument("--load", help="the load average during the run, as noted")
    args = parser.parse_args()
    result = {"machine": machine.describe(), "load_during_run": args.load}
    result |= replay(args.log, args.repo)
    out = RESULTS / f"embedding_eta_{args.label}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
