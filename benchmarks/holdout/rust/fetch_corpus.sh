#!/usr/bin/env bash
# Recreate the Rust held-out eval corpus from pinned Debian 12 (bookworm)
# packages into the folder given as $1, keeping only each crate's
# src/**/*.rs sources (no tests/, benches/, examples/, build.rs, Cargo.toml):
#   $1/clap/src/...         (librust-clap-dev 4.0.32-1,       clap 4.0.32)
#   $1/serde_json/src/...   (librust-serde-json-dev 1.0.87-1, serde_json 1.0.87)
#   $1/http/src/...         (librust-http-dev 0.2.7-1,        http 0.2.7)
#   $1/url/src/...          (librust-url-dev 2.3.1-1,         url 2.3.1)
#   $1/semver/src/...       (librust-semver-dev 1.0.14-1,     semver 1.0.14)
# The packages ship the crate sources under usr/share/cargo/registry/<crate>-<version>/.
# Idempotent: the target folder is rebuilt from scratch on every run.
# Exits non-zero on any failure (download, checksum, extraction, layout check).
set -euo pipefail

if [[ $# -ne 1 || -z "${1}" ]]; then
    echo "usage: $0 TARGET_DIR" >&2
    exit 2
fi

TARGET="$1"
# crate folder in the corpus -> Debian package
declare -A PACKAGE=(
    [clap]=librust-clap-dev
    [serde_json]=librust-serde-json-dev
    [http]=librust-http-dev
    [url]=librust-url-dev
    [semver]=librust-semver-dev
)
# crate folder -> Debian package version
declare -A DEBVER=(
    [clap]=4.0.32-1
    [serde_json]=1.0.87-1
    [http]=0.2.7-1
    [url]=2.3.1-1
    [semver]=1.0.14-1
)
# crate folder -> upstream crate version (registry folder is <crate>-<version>)
declare -A CRATEVER=(
    [clap]=4.0.32
    [serde_json]=1.0.87
    [http]=0.2.7
    [url]=2.3.1
    [semver]=1.0.14
)
# sha256 of the .deb files the eval set line numbers were verified against
declare -A SHA=(
    [clap]=00922f24c3eb5a899ae4438ebf7be2e82085559ee45055dbc856cdb113de9ebb
    [serde_json]=2d053de630af6649c40a39d9ab6268d5469385289016a1205d0dec196e7b77d2
    [http]=65bb2f53d9562b5d4c35d1743c875ad3ee085665ef80d61a29a655a688094b23
    [url]=408d745032921069d1d7b2f43490b67418d50c0275789cef35adad7789ba27af
    [semver]=bf3719b7aac4b7f16f0d68a7037306dbc1532758fe7a5dea01254e85cecaca8c
)
# .rs files expected under <crate>/src
declare -A COUNT=(
    [clap]=73
    [serde_json]=39
    [http]=21
    [url]=7
    [semver]=9
)
# one file per crate that must exist after extraction
declare -A MARKER=(
    [clap]=src/parser/parser.rs
    [serde_json]=src/de.rs
    [http]=src/header/map.rs
    [url]=src/parser.rs
    [semver]=src/eval.rs
)
# The packages are built per architecture (their contents are the same sources);
# the checksums are those of the amd64 builds, so ask for amd64 explicitly.
ARCH=amd64

# Safety: never wipe "/" or a folder that holds anything besides the corpus crates.
case "$(cd "$(dirname -- "$TARGET")" 2>/dev/null && pwd -P)/$(basename -- "$TARGET")" in
    /|//|///) echo "refusing to use / as target" >&2; exit 2 ;;
esac
if [[ -e "$TARGET" && ! -d "$TARGET" ]]; then
    echo "target exists and is not a directory: $TARGET" >&2
    exit 1
fi
if [[ -d "$TARGET" ]]; then
    not_names=()
    for c in "${!PACKAGE[@]}"; do not_names+=(! -name "$c"); done
    stray="$(find "$TARGET" -mindepth 1 -maxdepth 1 "${not_names[@]}")"
    if [[ -n "$stray" ]]; then
        echo "refusing to replace $TARGET: it contains non-corpus entries:" >&2
        echo "$stray" >&2
        exit 1
    fi
fi

for tool in apt-get dpkg-deb sha256sum find; do
    command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 1; }
done

DL="$(mktemp -d)"
STAGE=""
cleanup() { rm -rf "$DL"; [[ -n "$STAGE" ]] && rm -rf "$STAGE"; true; }
trap cleanup EXIT

PINS=()
for c in "${!PACKAGE[@]}"; do PINS+=("${PACKAGE[$c]}:$ARCH=${DEBVER[$c]}"); done
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
for c in "${!PACKAGE[@]}"; do
    f="$DL/${PACKAGE[$c]}_${DEBVER[$c]}_${ARCH}.deb"
    [[ -f "$f" ]] || { echo "missing package file: $(basename -- "$f")" >&2; exit 1; }
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    if [[ "$got" != "${SHA[$c]}" ]]; then
        echo "checksum mismatch for $(basename -- "$f"): $got" >&2
        exit 1
    fi
done

# Extract into a staging dir next to the target, then swap in atomically-ish.
mkdir -p "$(dirname -- "$TARGET")"
STAGE="$(mktemp -d "$(dirname -- "$TARGET")/.corpus_stage.XXXXXX")"
for c in "${!PACKAGE[@]}"; do
    x="$DL/x-$c"
    dpkg-deb -x "$DL/${PACKAGE[$c]}_${DEBVER[$c]}_${ARCH}.deb" "$x"
    src="$x/usr/share/cargo/registry/$c-${CRATEVER[$c]}/src"
    [[ -d "$src" ]] || { echo "package ${PACKAGE[$c]} has no $c-${CRATEVER[$c]}/src folder" >&2; exit 1; }
    # copy only the .rs files, keeping their paths below src/
    (cd "$src" && find . -type f -name '*.rs' -print0) | while IFS= read -r -d '' rel; do
        rel="${rel#./}"
        mkdir -p "$STAGE/$c/src/$(dirname -- "$rel")"
        cp -- "$src/$rel" "$STAGE/$c/src/$rel"
    done
    [[ -f "$STAGE/$c/${MARKER[$c]}" ]] || { echo "missing $c/${MARKER[$c]}" >&2; exit 1; }
done

# Layout check: exactly the five crate folders, each holding only src/ with .rs files.
not_names=()
for c in "${!PACKAGE[@]}"; do not_names+=(! -name "$c"); done
extra="$(find "$STAGE" -mindepth 1 -maxdepth 1 "${not_names[@]}")"
total=0
for c in "${!PACKAGE[@]}"; do
    extra+="$(find "$STAGE/$c" -mindepth 1 -maxdepth 1 ! -name src)"
    extra+="$(find "$STAGE/$c/src" -type f ! -name '*.rs')"
    n="$(find "$STAGE/$c/src" -type f -name '*.rs' | wc -l)"
    [[ "$n" -eq "${COUNT[$c]}" ]] \
        || { echo "expected ${COUNT[$c]} .rs files in $c, found $n" >&2; exit 1; }
    total=$((total + n))
done
if [[ -n "$extra" ]]; then
    echo "unexpected entries: $extra" >&2
    exit 1
fi

rm -rf -- "$TARGET"
mv -- "$STAGE" "$TARGET"
STAGE=""
chmod -R u+rwX,go+rX "$TARGET"
echo "corpus ready in $TARGET ($total .rs files)"
