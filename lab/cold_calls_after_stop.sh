#!/usr/bin/env bash
# The query commands after `codeatlas server stop` (issue 48): three rounds of stop, then three
# `codeatlas search` calls, each timed, on an index of this checkout (fake embedder).
# Results: lab/results/cold_calls_after_stop.md. Run by hand from the checkout.
set -e
cd "$(dirname "$0")/.."
export CODEATLAS_STATE_DIR="${STATE_DIR:-/tmp/codeatlas-cold-calls}" CODEATLAS_EMBEDDING_PROVIDER=fake CODEATLAS_SERVER_IDLE_SECONDS=600
.venv/bin/codeatlas index . --name codeatlas >/dev/null 2>&1
for round in 1 2 3; do
  .venv/bin/codeatlas server stop >/dev/null 2>&1
  for call in 1 2 3; do
    s=$(date +%s.%N); .venv/bin/codeatlas search "embedded server start" --limit 3 > /dev/null 2>&1; e=$(date +%s.%N)
    echo "round $round call $call $(echo "$e - $s" | bc) s load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
.venv/bin/codeatlas server stop >/dev/null 2>&1
