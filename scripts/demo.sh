#!/usr/bin/env bash
# Index a real repository (the sources of Flask, Werkzeug, Click, Jinja, ItsDangerous, Blinker,
# Requests, urllib3 and Rich from their PyPI wheels, ~260 Python files, turned into one git
# repository) on the embedded defaults, then ask it questions.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
# DEMO_SRC: another git repository to index instead (the tests give a small one)
SRC=${DEMO_SRC:-.state/demo-src}
if [[ ! -d "$SRC/.git" ]]; then
    echo "fetching the demo repository's sources from PyPI..." >&2
    rm -rf "$SRC" && mkdir -p "$SRC"
    "$BIN/pip" download --quiet --no-deps --only-binary=:all: -d "$SRC/.wheels" \
        flask==3.1.0 werkzeug==3.1.3 click==8.1.8 jinja2==3.1.5 itsdangerous==2.2.0 \
        blinker==1.9.0 requests==2.32.3 urllib3==2.2.3 rich==13.9.4
    for whl in "$SRC"/.wheels/*.whl; do
        "$BIN/python" -m zipfile -e "$whl" "$SRC"
    done
    rm -rf "$SRC"/.wheels "$SRC"/*.dist-info
    git -C "$SRC" init -q -b main
    git -C "$SRC" add -A
    git -C "$SRC" -c user.email=demo@codeatlas -c user.name=demo commit -q -m "demo sources"
fi
# The index runs in the background: its snapshot is published (searchable by words, symbols and
# callers) long before its vectors are embedded, so the demo answers from the lexical index as
# soon as it is published, then asks the hybrid questions once the vectors are in.
LOG=${DEMO_LOG:-.state/demo-index.log}
mkdir -p "$(dirname "$LOG")"
started=$SECONDS
# created here, not by the background job's redirection: the followers below open it at once
: >"$LOG"
"$BIN/codeatlas" index "$SRC" --name demo >>"$LOG" 2>&1 &
INDEX=$!
trap 'kill -INT "$INDEX" 2>/dev/null; wait "$INDEX" 2>/dev/null; exit 130' INT TERM
# the run's output up to its publishing line (or its end, if it stops before); the follower
# left behind ends at its next line or with the run
sed -u '/ published demo@/q' < <(tail -n +1 -f --pid="$INDEX" "$LOG")
if ! grep -q " published demo@" "$LOG"; then
    wait "$INDEX" || true
    echo "codeatlas index failed before publishing: $LOG has its whole output" >&2
    exit 1
fi
echo
echo "== searchable after $((SECONDS - started)) s: words, symbols and callers (vectors still being embedded) =="
echo '$ codeatlas search "make_response" --repo demo --mode lexical --limit 3'
"$BIN/codeatlas" search "make_response" --repo demo --mode lexical --limit 3
echo
echo '$ codeatlas callers Flask.make_response --repo demo'
"$BIN/codeatlas" callers Flask.make_response --repo demo
echo
echo "== embedding the vectors for hybrid search (progress with ETA) =="
grep --line-buffered -E "embedded [0-9]+/|rror|indexed demo@" \
    < <(tail -n +1 -f --pid="$INDEX" "$LOG") || true
wait "$INDEX" || { echo "codeatlas index failed: $LOG has its whole output" >&2; exit 1; }
trap - INT TERM
echo
echo "== hybrid search (meaning + words) after $((SECONDS - started)) s =="
echo '$ codeatlas search "how does flask turn a view return value tuple into a response" --repo demo'
"$BIN/codeatlas" search "how does flask turn a view return value tuple into a response" \
    --repo demo --limit 5
echo
echo '$ codeatlas search "where does requests retry a failed connection" --repo demo'
"$BIN/codeatlas" search "where does requests retry a failed connection" --repo demo --limit 5
echo
"$BIN/codeatlas" status --repo demo
