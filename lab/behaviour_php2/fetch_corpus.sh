#!/usr/bin/env bash
# Recreate the held-out PHP behaviour corpus (lab/behaviour_php2): the yii2 framework's PHP
# sources at one pinned commit, without its message translations, views, requirements checker
# and assets, into the folder given as $1, laid out as $1/framework/...
#
# The commit is the one lab/fixes/repos.json records for yiisoft/yii2 (its TEST split: never
# trained on). The sources come from a local git mirror when YII2_GIT_DIR names one (a bare
# repository or a .git folder holding the commit), otherwise from GitHub's archive of the commit.
# With YII2_WITH="tests" (or "tests docs") the corpus also holds the repository's framework tests
# (tests/framework, tests/data) and its English guide (docs/guide, Markdown): the same questions
# over the codebase as a checkout holds it, where tests and documentation compete with the code.
# Idempotent: the target folder is rebuilt from scratch. Exits non-zero on any failure.
set -euo pipefail

if [[ $# -ne 1 || -z "${1}" ]]; then
    echo "usage: $0 TARGET_DIR   (YII2_GIT_DIR=/path/to/yii2.git to read a local mirror)" >&2
    exit 2
fi

TARGET="$1"
COMMIT="45e679d7ce99ce11d78d9785123e1ee2da79e17c"
# the PHP files and their total line count at that commit, after the removals below
EXPECT_FILES=448
EXPECT_LINES=106344

if [[ -e "$TARGET" && ! -d "$TARGET" ]]; then
    echo "target exists and is not a directory: $TARGET" >&2
    exit 1
fi
if [[ -d "$TARGET" ]]; then
    stray="$(find "$TARGET" -mindepth 1 -maxdepth 1 ! -name framework ! -name tests ! -name docs)"
    if [[ -n "$stray" ]]; then
        echo "refusing to replace $TARGET: it contains non-corpus entries:" >&2
        echo "$stray" >&2
        exit 1
    fi
    rm -rf "$TARGET/framework" "$TARGET/tests" "$TARGET/docs"
fi
EXTRA=()
for part in ${YII2_WITH:-}; do
    case "$part" in
        tests) EXTRA+=(tests/framework tests/data) ;;
        docs) EXTRA+=(docs/guide) ;;
        *) echo "YII2_WITH: unknown part $part (tests, docs)" >&2; exit 2 ;;
    esac
done
mkdir -p "$TARGET"

if [[ -n "${YII2_GIT_DIR:-}" ]]; then
    git --git-dir="$YII2_GIT_DIR" archive "$COMMIT" framework "${EXTRA[@]}" | tar -x -C "$TARGET"
else
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    curl -fsSL "https://codeload.github.com/yiisoft/yii2/tar.gz/$COMMIT" -o "$tmp/yii2.tar.gz"
    tar -xzf "$tmp/yii2.tar.gz" -C "$tmp"
    mv "$tmp/yii2-$COMMIT/framework" "$TARGET/framework"
    for part in "${EXTRA[@]}"; do
        mkdir -p "$TARGET/$(dirname "$part")"
        mv "$tmp/yii2-$COMMIT/$part" "$TARGET/$part"
    done
fi

cd "$TARGET/framework"
rm -rf messages views requirements assets
find . -type f ! -name '*.php' -delete
rm -f .phpstorm.meta.php
find . -type d -empty -delete

files="$(find . -name '*.php' | wc -l)"
lines="$(find . -name '*.php' -print0 | sort -z | xargs -0 cat | wc -l)"
if [[ "$files" -ne "$EXPECT_FILES" || "$lines" -ne "$EXPECT_LINES" ]]; then
    echo "unexpected corpus: $files files, $lines lines (expected $EXPECT_FILES, $EXPECT_LINES)" >&2
    exit 1
fi
echo "yii2 framework @ $COMMIT: $files PHP files, $lines lines in $TARGET/framework"
if [[ ${#EXTRA[@]} -gt 0 ]]; then
    echo "with ${EXTRA[*]}: $(find "$TARGET" -type f | wc -l) files in $TARGET"
fi
