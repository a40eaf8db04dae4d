#!/usr/bin/env bash
# this set's corpus (lab/questions/fetch_corpus.sh reads set.json beside this script)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../fetch_corpus.sh" "$here" "$1"
