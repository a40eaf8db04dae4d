#!/usr/bin/env bash
# Recreate the held-out Go eval corpus (five Go libraries) from pinned Debian 12
# (bookworm) golang-*-dev packages into the folder given as $1, laid out as
#   $1/cobra/...          (golang-github-spf13-cobra-dev 1.6.1-1)
#   $1/chi/...            (golang-github-go-chi-chi-dev 5.0.7-1)
#   $1/gin/...            (golang-github-gin-gonic-gin-dev 1.8.1-1)
#   $1/client_golang/...  (golang-github-prometheus-client-golang-dev 1.14.0-3)
#   $1/goldmark/...       (golang-github-yuin-goldmark-dev 1.5.4-1)
# Each folder is the package's usr/share/gocode/src/<import path> tree, keeping
# only non-test Go sources: *.go files that are not *_test.go and do not lie
# under a testdata/ folder or a folder whose name starts with "_" or "." (the
# go tool ignores those: chi's _examples/, goldmark's _tools/).
# Idempotent: the target folder is rebuilt from scratch on every run.
# Exits non-zero on any failure (download, checksum, extraction, layout check).
set -euo pipefail

if [[ $# -ne 1 || -z "${1}" ]]; then
    echo "usage: $0 TARGET_DIR" >&2
    exit 2
fi

TARGET="$1"
# Safety: never wipe "/" or a folder that holds anything besides the corpus.
case "$(cd "$(dirname -- "$TARGET")" 2>/dev/null && pwd -P)/$(basename -- "$TARGET")" in
    /|//|///) echo "refusing to use / as target" >&2; exit 2 ;;
esac
if [[ -e "$TARGET" && ! -d "$TARGET" ]]; then
    echo "target exists and is not a directory: $TARGET" >&2
    exit 1
fi
if [[ -d "$TARGET" ]]; then
    stray="$(find "$TARGET" -mindepth 1 -maxdepth 1 ! -name cobra ! -name chi ! -name gin \
        ! -name client_golang ! -name goldmark)"
    if [[ -n "$stray" ]]; then
        echo "refusing to replace $TARGET: it contains non-corpus entries:" >&2
        echo "$stray" >&2
        exit 1
    fi
fi

# corpus folder -> Debian package
declare -A PKG=(
    [cobra]=golang-github-spf13-cobra-dev
    [chi]=golang-github-go-chi-chi-dev
    [gin]=golang-github-gin-gonic-gin-dev
    [client_golang]=golang-github-prometheus-client-golang-dev
    [goldmark]=golang-github-yuin-goldmark-dev
)
# corpus folder -> pinned Debian version
declare -A VERSION=(
    [cobra]=1.6.1-1
    [chi]=5.0.7-1
    [gin]=1.8.1-1
    [client_golang]=1.14.0-3
    [goldmark]=1.5.4-1
)
# corpus folder -> Go import path inside usr/share/gocode/src
declare -A SRC=(
    [cobra]=github.com/spf13/cobra
    [chi]=github.com/go-chi/chi
    [gin]=github.com/gin-gonic/gin
    [client_golang]=github.com/prometheus/client_golang
    [goldmark]=github.com/yuin/goldmark
)
# sha256 of the .deb files the eval set line numbers were verified against
declare -A SHA=(
    [cobra]=4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2
    [chi]=70beea5ca4f20af122e8083c91b56b6055df895595c7d9dcf286fadd4ad26f9b
    [gin]=66d916769bcd36a6722b0c92a81719b8faca56f69662b17d1ef7ba257c85367a
    [client_golang]=b95081bf869abc26d70ba2a1dfd9d0ac6675b6ac95c9ffa6e25971ee862e7016
    [goldmark]=c52d83484318f870494e3170646f7840a1085fd8c7ba77da75a9bb83d196ecf7
)
# one file per library that must exist after extraction
declare -A MARKER=(
    [cobra]=command.go
    [chi]=tree.go
    [gin]=context.go
    [client_golang]=prometheus/histogram.go
    [goldmark]=parser/parser.go
)
# non-test .go files expected per library
declare -A COUNT=(
    [cobra]=19
    [chi]=31
    [gin]=54
    [client_golang]=55
    [goldmark]=47
)
EXPECTED_GO_FILES=206

for tool in apt-get dpkg-deb sha256sum find cp; do
    command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 1; }
done

DL="$(mktemp -d)"
STAGE=""
cleanup() { rm -rf "$DL"; [[ -n "$STAGE" ]] && rm -rf "$STAGE"; true; }
trap cleanup EXIT

PINS=()
for lib in "${!PKG[@]}"; do PINS+=("${PKG[$lib]}=${VERSION[$lib]}"); done
APT_OPTS=()
# as root, apt drops to the _apt user for downloads, which cannot write to a
# private temp folder; download as root instead (no effect for other users)
if [[ "$(id -u)" -eq 0 ]]; then APT_OPTS+=(-o APT::Sandbox::User=root); fi

download() { (cd "$DL" && apt-get "${APT_OPTS[@]}" download "${PINS[@]}") >&2; }
if ! download; then
    if [[ "$(id -u)" -eq 0 ]]; then
        echo "apt-get download failed; refreshing package lists once and retrying" >&2
        apt-get update >&2 || { echo "apt-get update failed" >&2; exit 1; }
        download || { echo "apt-get download failed for ${PINS[*]}" >&2; exit 1; }
    else
        echo "apt-get download failed; run 'apt-get update' (as root) and retry" >&2
        exit 1
    fi
fi

# Verify each expected package exists and matches its pinned checksum.
for lib in "${!PKG[@]}"; do
    f="$DL/${PKG[$lib]}_${VERSION[$lib]}_all.deb"
    [[ -f "$f" ]] || { echo "missing package file: $(basename -- "$f")" >&2; exit 1; }
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    if [[ "$got" != "${SHA[$lib]}" ]]; then
        echo "checksum mismatch for $(basename -- "$f"): $got" >&2
        exit 1
    fi
done

# Extract into a staging dir next to the target, then swap in atomically-ish.
mkdir -p "$(dirname -- "$TARGET")"
STAGE="$(mktemp -d "$(dirname -- "$TARGET")/.corpus_stage.XXXXXX")"
for lib in "${!PKG[@]}"; do
    x="$DL/x-$lib"
    dpkg-deb -x "$DL/${PKG[$lib]}_${VERSION[$lib]}_all.deb" "$x"
    src="$x/usr/share/gocode/src/${SRC[$lib]}"
    [[ -d "$src" ]] || { echo "package ${PKG[$lib]} has no ${SRC[$lib]} folder" >&2; exit 1; }
    # copy the non-test Go sources, keeping their relative paths
    n=0
    while IFS= read -r -d '' rel; do
        rel="${rel#./}"
        mkdir -p "$STAGE/$lib/$(dirname -- "$rel")"
        cp -- "$src/$rel" "$STAGE/$lib/$rel"
        n=$((n + 1))
    done < <(cd "$src" && find . \( -type d \( -name testdata -o -name '_*' -o -name '.?*' \) -prune \) \
                 -o \( -type f -name '*.go' ! -name '*_test.go' -print0 \))
    [[ "$n" -eq "${COUNT[$lib]}" ]] \
        || { echo "expected ${COUNT[$lib]} .go files in $lib, found $n" >&2; exit 1; }
    [[ -f "$STAGE/$lib/${MARKER[$lib]}" ]] \
        || { echo "missing $lib/${MARKER[$lib]}" >&2; exit 1; }
done

# Layout check: exactly the five library folders, only non-test .go files.
extra="$(find "$STAGE" -mindepth 1 -maxdepth 1 ! -name cobra ! -name chi ! -name gin \
    ! -name client_golang ! -name goldmark)"
extra+="$(find "$STAGE" -type f \( ! -name '*.go' -o -name '*_test.go' \))"
if [[ -n "$extra" ]]; then
    echo "unexpected entries: $extra" >&2
    exit 1
fi
n_lib="$(find "$STAGE" -mindepth 1 -maxdepth 1 -type d | wc -l)"
[[ "$n_lib" -eq "${#PKG[@]}" ]] || { echo "expected ${#PKG[@]} libraries, found $n_lib" >&2; exit 1; }
n_go="$(find "$STAGE" -type f -name '*.go' | wc -l)"
[[ "$n_go" -eq "$EXPECTED_GO_FILES" ]] \
    || { echo "expected $EXPECTED_GO_FILES .go files, found $n_go" >&2; exit 1; }

rm -rf -- "$TARGET"
mv -- "$STAGE" "$TARGET"
STAGE=""
chmod -R u+rwX,go+rX "$TARGET"
echo "corpus ready in $TARGET ($n_go .go files)"
