#!/usr/bin/env bash
# Index a real repository (the sources of Flask, Werkzeug, Click, Jinja, ItsDangerous, Blinker,
# Requests, urllib3 and Rich from their PyPI wheels, ~260 Python files, turned into one git
# repository) on the embedded defaults, then ask it questions.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
SRC=.state/demo-src
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
"$BIN/codeatlas" index "$SRC" --name demo
echo
echo '$ codeatlas search "how does flask turn a view return value tuple into a response" --repo demo'
"$BIN/codeatlas" search "how does flask turn a view return value tuple into a response" \
    --repo demo --limit 5
echo
echo '$ codeatlas search "where does requests retry a failed connection" --repo demo'
"$BIN/codeatlas" search "where does requests retry a failed connection" --repo demo --limit 5
echo
echo '$ codeatlas search "make_response" --repo demo --json --limit 3'
"$BIN/codeatlas" search "make_response" --repo demo --json --limit 3
echo
echo '$ codeatlas callers Flask.make_response --repo demo'
"$BIN/codeatlas" callers Flask.make_response --repo demo
echo
"$BIN/codeatlas" status --repo demo
