#!/usr/bin/env bash
# Recreate the C# held-out corpus from two pinned Debian 12 *source* packages
# (binary packages ship compiled assemblies, not .cs files), into the folder
# given as $1, laid out as
#   $1/newtonsoft-json/Newtonsoft.Json/...   (Newtonsoft.Json 6.0.8: Src/Newtonsoft.Json
#                                             of the upstream .orig tarball)
#   $1/nunit/framework/...                   (NUnit 2.6.4: src/NUnitFramework/framework
#                                             of the upstream .orig tarball)
# Only .cs files are kept (no tests, samples, build files, other NUnit parts).
# The source index is read through a private, temporary apt configuration
# (deb-src for bookworm main), so the system's apt setup is neither needed nor
# changed. Only the .orig tarballs are downloaded, each checked against its
# pinned sha256; Debian's own patches are not applied.
# Idempotent: the target folder is rebuilt from scratch on every run.
# Exits non-zero on any failure (index, download, checksum, extraction, layout).
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
    stray="$(find "$TARGET" -mindepth 1 -maxdepth 1 ! -name newtonsoft-json ! -name nunit)"
    if [[ -n "$stray" ]]; then
        echo "refusing to replace $TARGET: it contains non-corpus entries:" >&2
        echo "$stray" >&2
        exit 1
    fi
fi

# Debian source package -> pinned version (Debian 12 bookworm main)
declare -A VERSION=(
    [newtonsoft-json]=6.0.8+dfsg-1.1
    [nunit]=2.6.4+dfsg-1.1
)
# the upstream tarball of each, and its sha256 (the one the eval set was verified against)
declare -A ORIG=(
    [newtonsoft-json]=newtonsoft-json_6.0.8+dfsg.orig.tar.gz
    [nunit]=nunit_2.6.4+dfsg.orig.tar.bz2
)
declare -A SHA=(
    [newtonsoft-json]=3b7c77da971bbe1c6fdbb5cbb634d106a86aa30c82647abd9b23d2f31be0c630
    [nunit]=daebaa04b4a4ccd2ecf120e8d6f315ef51092d06a6aa42223a12fc2cee3dd361
)
# folder inside each tarball that is kept (recursively, .cs only) -> folder in the corpus
declare -A FROM=(
    [newtonsoft-json]=newtonsoft-json-6.0.8/Src/Newtonsoft.Json
    [nunit]=nunit-2.6.4/src/NUnitFramework/framework
)
declare -A INTO=(
    [newtonsoft-json]=newtonsoft-json/Newtonsoft.Json
    [nunit]=nunit/framework
)
# .cs files expected per package folder
declare -A COUNT=(
    [newtonsoft-json]=193
    [nunit]=164
)
EXPECTED_CS_FILES=357

APT_HELPER=/usr/lib/apt/apt-helper
for tool in apt-get sha256sum tar gzip bzip2 find; do
    command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 1; }
done
[[ -x "$APT_HELPER" ]] || { echo "$APT_HELPER not found (package apt)" >&2; exit 1; }
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r "$KEYRING" ]] || { echo "$KEYRING not found (package debian-archive-keyring)" >&2; exit 1; }

DL="$(mktemp -d)"
STAGE=""
cleanup() { rm -rf "$DL"; [[ -n "$STAGE" ]] && rm -rf "$STAGE"; true; }
trap cleanup EXIT

# A private apt configuration that only knows bookworm's source index.
mkdir -p "$DL/apt/sources" "$DL/apt/lists/partial" "$DL/apt/cache/archives/partial"
cat > "$DL/apt/sources/bookworm-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: $KEYRING
SRC
APT_OPTS=(
    -o Dir::Etc::SourceList=/dev/null
    -o "Dir::Etc::SourceParts=$DL/apt/sources"
    -o "Dir::State::Lists=$DL/apt/lists"
    -o "Dir::Cache=$DL/apt/cache"
    -o Debug::NoLocking=true
)
# as root, apt drops to the _apt user for downloads, which cannot write to a
# private temp folder; download as root instead (no effect for other users)
if [[ "$(id -u)" -eq 0 ]]; then APT_OPTS+=(-o APT::Sandbox::User=root); fi

apt-get "${APT_OPTS[@]}" -qq update >&2 \
    || { echo "apt-get update of the private bookworm deb-src index failed" >&2; exit 1; }

mkdir -p "$DL/src"
for p in "${!VERSION[@]}"; do
    # the source index gives the tarball's URI; download only the .orig tarball
    uris="$(cd "$DL/src" && apt-get "${APT_OPTS[@]}" -qq --print-uris source "$p=${VERSION[$p]}")" \
        || { echo "apt-get source: $p=${VERSION[$p]} not in bookworm's source index" >&2; exit 1; }
    uri="$(awk -v f="${ORIG[$p]}" '$2 == f { gsub("\x27", "", $1); print $1 }' <<<"$uris")"
    [[ -n "$uri" ]] || { echo "no ${ORIG[$p]} in the source package $p=${VERSION[$p]}" >&2; exit 1; }
    f="$DL/src/${ORIG[$p]}"
    "$APT_HELPER" "${APT_OPTS[@]}" download-file "$uri" "$f" "SHA256:${SHA[$p]}" >&2 \
        || { echo "download of $uri failed" >&2; exit 1; }
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    if [[ "$got" != "${SHA[$p]}" ]]; then
        echo "checksum mismatch for ${ORIG[$p]}: $got" >&2
        exit 1
    fi
done

# Extract into a staging dir next to the target, then swap in atomically-ish.
mkdir -p "$(dirname -- "$TARGET")"
STAGE="$(mktemp -d "$(dirname -- "$TARGET")/.corpus_stage.XXXXXX")"
for p in "${!VERSION[@]}"; do
    mkdir -p "$DL/x-$p"
    tar -xf "$DL/src/${ORIG[$p]}" -C "$DL/x-$p" --no-same-owner --wildcards "${FROM[$p]}/*.cs"
    [[ -d "$DL/x-$p/${FROM[$p]}" ]] || { echo "${ORIG[$p]} has no ${FROM[$p]}" >&2; exit 1; }
    mkdir -p "$(dirname -- "$STAGE/${INTO[$p]}")"
    mv -- "$DL/x-$p/${FROM[$p]}" "$STAGE/${INTO[$p]}"
done

# Layout check: exactly the two package folders, only .cs files, expected counts.
extra="$(find "$STAGE" -mindepth 1 -maxdepth 1 ! -name newtonsoft-json ! -name nunit)"
extra+="$(find "$STAGE" -type f ! -name '*.cs')"
if [[ -n "$extra" ]]; then
    echo "unexpected entries: $extra" >&2
    exit 1
fi
for p in "${!COUNT[@]}"; do
    n="$(find "$STAGE/$p" -type f -name '*.cs' | wc -l)"
    [[ "$n" -eq "${COUNT[$p]}" ]] \
        || { echo "expected ${COUNT[$p]} .cs files in $p, found $n" >&2; exit 1; }
done
n_cs="$(find "$STAGE" -type f -name '*.cs' | wc -l)"
[[ "$n_cs" -eq "$EXPECTED_CS_FILES" ]] \
    || { echo "expected $EXPECTED_CS_FILES .cs files, found $n_cs" >&2; exit 1; }
for f in newtonsoft-json/Newtonsoft.Json/JsonSerializer.cs \
         newtonsoft-json/Newtonsoft.Json/Serialization/JsonSerializerInternalReader.cs \
         nunit/framework/Assert.cs nunit/framework/Constraints/EqualConstraint.cs; do
    [[ -f "$STAGE/$f" ]] || { echo "layout check failed: missing $f" >&2; exit 1; }
done

rm -rf -- "$TARGET"
mv -- "$STAGE" "$TARGET"
STAGE=""
chmod -R u+rwX,go+rX "$TARGET"
echo "corpus ready in $TARGET ($n_cs .cs files)"
