#!/usr/bin/env bash
# The php2 corpus as a checkout holds it: the framework with its tests and English guide
# (../fetch_corpus.sh with YII2_WITH="tests docs"); the same questions (../queries.jsonl).
set -euo pipefail
YII2_WITH="tests docs" exec bash "$(dirname -- "${BASH_SOURCE[0]}")/../fetch_corpus.sh" "$@"
