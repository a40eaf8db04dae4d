#!/usr/bin/env bash
# Recreate the Java held-out corpus from two pinned Debian 12 packages that
# ship Java *sources*, into the folder given as $1, laid out as
#   $1/bsh-src/bsh/...                       (BeanShell 2.0b4: src/bsh of the
#                                             source tarball in bsh-src)
#   $1/openjfx-source/javafx.base/...        (OpenJFX 11.0.11: a subset of
#   $1/openjfx-source/javafx.fxml/...         src.zip in openjfx-source)
# Only .java files are kept (no tests, docs, scripts, module-info.java).
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
    stray="$(find "$TARGET" -mindepth 1 -maxdepth 1 ! -name bsh-src ! -name openjfx-source)"
    if [[ -n "$stray" ]]; then
        echo "refusing to replace $TARGET: it contains non-corpus entries:" >&2
        echo "$stray" >&2
        exit 1
    fi
fi

# Debian package -> pinned version (Debian 12 bookworm main)
declare -A VERSION=(
    [bsh-src]=2.0b4-20
    [openjfx-source]=11.0.11+1-3
)
# sha256 of the .deb files the eval set line numbers were verified against
declare -A SHA=(
    [bsh-src]=8bc67e9514560ef9e15beff101ed1ffb54a448588c2403987f407cd11547c00d
    [openjfx-source]=a8de0bec39f5fd7825d513893cd13876c1e8e4733b998fa9d0de0671afcc66b4
)
# folders of openjfx's src.zip that are kept (each taken recursively)
FX_DIRS=(
    javafx.base/javafx/collections
    javafx.base/com/sun/javafx/collections
    javafx.base/javafx/event
    javafx.base/com/sun/javafx/event
    javafx.base/javafx/util
    javafx.fxml/javafx/fxml
    javafx.fxml/com/sun/javafx/fxml
)
# .java files expected per package folder
declare -A COUNT=(
    [bsh-src]=113
    [openjfx-source]=124
)
EXPECTED_JAVA_FILES=237

for tool in apt-get dpkg-deb sha256sum tar find; do
    command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 1; }
done
# src.zip is read with unzip, or with python3's zipfile module where unzip is absent
if ! command -v unzip >/dev/null && ! command -v python3 >/dev/null; then
    echo "neither unzip nor python3 found (apt-get install unzip)" >&2
    exit 1
fi

DL="$(mktemp -d)"
STAGE=""
cleanup() { rm -rf "$DL"; [[ -n "$STAGE" ]] && rm -rf "$STAGE"; true; }
trap cleanup EXIT

PINS=()
for p in "${!VERSION[@]}"; do PINS+=("$p=${VERSION[$p]}"); done
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
for p in "${!VERSION[@]}"; do
    f="$DL/${p}_${VERSION[$p]}_all.deb"
    [[ -f "$f" ]] || { echo "missing package file: $(basename -- "$f")" >&2; exit 1; }
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    if [[ "$got" != "${SHA[$p]}" ]]; then
        echo "checksum mismatch for $(basename -- "$f"): $got" >&2
        exit 1
    fi
    dpkg-deb -x "$f" "$DL/x-$p"
done

# Extract into a staging dir next to the target, then swap in atomically-ish.
mkdir -p "$(dirname -- "$TARGET")"
STAGE="$(mktemp -d "$(dirname -- "$TARGET")/.corpus_stage.XXXXXX")"

# BeanShell: the package ships the upstream source tree as one tarball;
# keep only the library sources under src/bsh (no tests/, asm/, bsf/, docs/).
tgz="$DL/x-bsh-src/usr/src/bsh-src/bsh.tar.gz"
[[ -f "$tgz" ]] || { echo "bsh-src has no usr/src/bsh-src/bsh.tar.gz" >&2; exit 1; }
mkdir -p "$DL/bsh"
tar -xzf "$tgz" -C "$DL/bsh" --no-same-owner --wildcards 'src/bsh/*.java'
[[ -d "$DL/bsh/src/bsh" ]] || { echo "bsh.tar.gz has no src/bsh" >&2; exit 1; }
mkdir -p "$STAGE/bsh-src"
mv -- "$DL/bsh/src/bsh" "$STAGE/bsh-src/bsh"

# OpenJFX: the package ships src.zip; keep the .java files of FX_DIRS.
zip="$DL/x-openjfx-source/usr/share/openjfx/lib/src.zip"
[[ -f "$zip" ]] || { echo "openjfx-source has no usr/share/openjfx/lib/src.zip" >&2; exit 1; }
mkdir -p "$STAGE/openjfx-source"
if command -v unzip >/dev/null; then
    pats=()
    for d in "${FX_DIRS[@]}"; do pats+=("$d/*.java"); done
    unzip -q "$zip" "${pats[@]}" -d "$STAGE/openjfx-source"
else
    python3 - "$zip" "$STAGE/openjfx-source" "${FX_DIRS[@]}" <<'PY'
import sys, zipfile
src, dest, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(src) as z:
    names = [n for n in z.namelist()
             if n.endswith(".java") and any(n.startswith(d + "/") for d in dirs)]
    if not names:
        sys.exit("no matching .java files in " + src)
    z.extractall(dest, names)
PY
fi
for d in "${FX_DIRS[@]}"; do
    [[ -d "$STAGE/openjfx-source/$d" ]] || { echo "src.zip has no $d" >&2; exit 1; }
done

# Layout check: exactly the two package folders, only .java files, expected counts.
extra="$(find "$STAGE" -mindepth 1 -maxdepth 1 ! -name bsh-src ! -name openjfx-source)"
extra+="$(find "$STAGE" -type f ! -name '*.java')"
extra+="$(find "$STAGE/openjfx-source" -mindepth 1 -maxdepth 1 ! -name javafx.base ! -name javafx.fxml)"
if [[ -n "$extra" ]]; then
    echo "unexpected entries: $extra" >&2
    exit 1
fi
for p in "${!COUNT[@]}"; do
    n="$(find "$STAGE/$p" -type f -name '*.java' | wc -l)"
    [[ "$n" -eq "${COUNT[$p]}" ]] \
        || { echo "expected ${COUNT[$p]} .java files in $p, found $n" >&2; exit 1; }
done
n_java="$(find "$STAGE" -type f -name '*.java' | wc -l)"
[[ "$n_java" -eq "$EXPECTED_JAVA_FILES" ]] \
    || { echo "expected $EXPECTED_JAVA_FILES .java files, found $n_java" >&2; exit 1; }
for f in bsh-src/bsh/Interpreter.java bsh-src/bsh/NameSpace.java \
         openjfx-source/javafx.base/javafx/collections/FXCollections.java \
         openjfx-source/javafx.fxml/javafx/fxml/FXMLLoader.java; do
    [[ -f "$STAGE/$f" ]] || { echo "layout check failed: missing $f" >&2; exit 1; }
done

rm -rf -- "$TARGET"
mv -- "$STAGE" "$TARGET"
STAGE=""
chmod -R u+rwX,go+rX "$TARGET"
echo "corpus ready in $TARGET ($n_java .java files)"
