#!/usr/bin/env bash
# Build the corpus of one question set (lab/questions/<set>/set.json) into TARGET: the
# repository's files under the set's folders with the set's suffixes, at the set's commit, read
# from its git mirror (CODEATLAS_MIRRORS, default /work/.mirror: <owner>+<name>/repo, where the
# `fetch` tool puts it). set.json's optional `drop` lists folders or files (relative to TARGET)
# to leave out, `drop_names` file-name patterns (`*_test.go`). Fails unless the file and line
# counts are the recorded ones.
# Usage: fetch_corpus.sh SET_FOLDER TARGET
set -euo pipefail
if [[ $# -ne 2 ]]; then
    echo "usage: $0 SET_FOLDER TARGET_DIR" >&2
    exit 2
fi
SET="$1"
TARGET="$2"
read -r REPO COMMIT FILES LINES < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1] + "/set.json"))
print(s["repo"], s["commit"], s["files"], s["lines"])' "$SET")
MIRROR="${CODEATLAS_MIRRORS:-/work/.mirror}/${REPO/\//+}/repo"
if ! git --git-dir="$MIRROR" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    echo "no mirror of $REPO holding $COMMIT at $MIRROR: fetch github:$REPO first" >&2
    exit 1
fi
mapfile -t PATHS < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1] + "/set.json"))["paths"]))' "$SET")
mapfile -t SUFFIXES < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1] + "/set.json"))["suffixes"]))' "$SET")
mapfile -t DROP < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1] + "/set.json")).get("drop", [])))' "$SET")
mapfile -t DROP_NAMES < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1] + "/set.json")).get("drop_names", [])))' "$SET")
rm -rf "$TARGET"
mkdir -p "$TARGET"
git --git-dir="$MIRROR" archive "$COMMIT" "${PATHS[@]}" | tar -x -C "$TARGET"
for drop in "${DROP[@]}"; do
    [[ -n "$drop" ]] && rm -rf "${TARGET:?}/$drop"
done
for pattern in "${DROP_NAMES[@]}"; do
    [[ -n "$pattern" ]] && find "$TARGET" -type f -name "$pattern" -delete
done
keep=()
for suffix in "${SUFFIXES[@]}"; do
    keep+=(-o -name "*$suffix")
done
find "$TARGET" -type f ! \( -false "${keep[@]}" \) -delete
find "$TARGET" -type d -empty -delete
files="$(find "$TARGET" -type f | wc -l)"
lines="$(find "$TARGET" -type f -print0 | sort -z | xargs -0 cat | wc -l)"
# RECORD_COUNTS=1 (`python -m lab.questions count`): print the counts instead of checking them
if [[ -n "${RECORD_COUNTS:-}" ]]; then
    echo "$files $lines"
    exit 0
fi
if [[ "$files" -ne "$FILES" || "$lines" -ne "$LINES" ]]; then
    echo "unexpected corpus: $files files, $lines lines (set.json records $FILES, $LINES)" >&2
    exit 1
fi
echo "$REPO @ ${COMMIT:0:8}: $files files, $lines lines in $TARGET"
