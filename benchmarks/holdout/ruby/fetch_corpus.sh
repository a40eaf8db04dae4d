#!/usr/bin/env bash
# Recreate the Ruby held-out corpus (five gems) from pinned Debian 12
# packages into the folder given as $1, laid out as
#   $1/{rack,sinatra,rack-protection,mustermann,thor}/lib/...
# (each package's usr/share/rubygems-integration/all/gems/<gem>-<version>/lib
# tree, .rb files only: no bench/, example/, bin/, images or gemspecs).
# Idempotent: the target folder is rebuilt from scratch on every run.
# Exits non-zero on any failure (download, checksum, extraction, layout check).
set -euo pipefail

if [[ $# -ne 1 || -z "${1}" ]]; then
    echo "usage: $0 TARGET_DIR" >&2
    exit 2
fi

TARGET="$1"
GEMS=(rack sinatra rack-protection mustermann thor)
# Safety: never wipe "/" or a folder that holds anything besides the corpus.
case "$(cd "$(dirname -- "$TARGET")" 2>/dev/null && pwd -P)/$(basename -- "$TARGET")" in
    /|//|///|/.|//.) echo "refusing to use / as target" >&2; exit 2 ;;
esac
if [[ -e "$TARGET" && ! -d "$TARGET" ]]; then
    echo "target exists and is not a directory: $TARGET" >&2
    exit 1
fi
if [[ -d "$TARGET" ]]; then
    not_gems=()
    for g in "${GEMS[@]}"; do not_gems+=(! -name "$g"); done
    stray="$(find "$TARGET" -mindepth 1 -maxdepth 1 "${not_gems[@]}")"
    if [[ -n "$stray" ]]; then
        echo "refusing to replace $TARGET: it contains non-corpus entries:" >&2
        echo "$stray" >&2
        exit 1
    fi
fi

# gem -> Debian package version (bookworm main, incl. point-release updates)
declare -A VERSION=(
    [rack]=2.2.22-0+deb12u1
    [sinatra]=3.0.5-3+deb12u1
    [rack-protection]=3.0.5-3+deb12u1
    [mustermann]=3.0.0-2
    [thor]=1.2.1-2
)
# gem -> upstream version (folder name inside rubygems-integration)
declare -A UPSTREAM=(
    [rack]=2.2.22
    [sinatra]=3.0.5
    [rack-protection]=3.0.5
    [mustermann]=3.0.0
    [thor]=1.2.1
)
# sha256 of the .deb files the eval set line numbers were verified against
declare -A SHA=(
    [rack]=18bab2c3caffa2b1a35cd73d49652d749909e87fd2d5b57dd4a594a02a6ad157
    [sinatra]=7980ec9e78c5e48bf9062111c68296c183c8fb2bb0b522f85e3dc04129221323
    [rack-protection]=65d9fed722063109bc7f3d675281bbdca19860bbf706e17001976dbf3501ae2c
    [mustermann]=951ce99726f797e9d28e4f64175733e007930109d295e8070e46ecf6f862c892
    [thor]=509715d16039ee7336531718e2497d0f81ae125b9ee53f321dd909c2f03fd2e1
)
# one file per gem that must exist after extraction (relative to DIR/<gem>/)
declare -A MARKER=(
    [rack]=lib/rack/request.rb
    [sinatra]=lib/sinatra/base.rb
    [rack-protection]=lib/rack/protection/authenticity_token.rb
    [mustermann]=lib/mustermann/pattern.rb
    [thor]=lib/thor/parser/options.rb
)
# expected .rb file count per gem
declare -A COUNT=(
    [rack]=65
    [sinatra]=6
    [rack-protection]=23
    [mustermann]=33
    [thor]=31
)
EXPECTED_RB_FILES=158

for tool in apt-get dpkg-deb sha256sum find; do
    command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 1; }
done

DL="$(mktemp -d)"
STAGE=""
cleanup() { rm -rf "$DL"; [[ -n "$STAGE" ]] && rm -rf "$STAGE"; true; }
trap cleanup EXIT

PINS=()
for g in "${GEMS[@]}"; do PINS+=("ruby-$g=${VERSION[$g]}"); done
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
# (apt-get download escapes ':' in epochs as %3a; none of these has an epoch.)
for g in "${GEMS[@]}"; do
    f="$DL/ruby-${g}_${VERSION[$g]}_all.deb"
    [[ -f "$f" ]] || { echo "missing package file: $(basename -- "$f")" >&2; exit 1; }
    got="$(sha256sum "$f" | cut -d' ' -f1)"
    if [[ "$got" != "${SHA[$g]}" ]]; then
        echo "checksum mismatch for $(basename -- "$f"): $got" >&2
        exit 1
    fi
done

# Extract into a staging dir next to the target, then swap in.
mkdir -p "$(dirname -- "$TARGET")"
STAGE="$(mktemp -d "$(dirname -- "$TARGET")/.corpus_stage.XXXXXX")"
for g in "${GEMS[@]}"; do
    x="$DL/x-$g"
    dpkg-deb -x "$DL/ruby-${g}_${VERSION[$g]}_all.deb" "$x"
    src="$x/usr/share/rubygems-integration/all/gems/$g-${UPSTREAM[$g]}/lib"
    [[ -d "$src" ]] || { echo "package ruby-$g has no gems/$g-${UPSTREAM[$g]}/lib folder" >&2; exit 1; }
    # copy only the .rb sources, keeping their paths below lib/
    (cd "$src" && find . -type f -name '*.rb' -print0) | while IFS= read -r -d '' rel; do
        rel="${rel#./}"
        mkdir -p "$STAGE/$g/lib/$(dirname -- "$rel")"
        cp -p -- "$src/$rel" "$STAGE/$g/lib/$rel"
    done
    [[ -f "$STAGE/$g/${MARKER[$g]}" ]] || { echo "missing $g/${MARKER[$g]}" >&2; exit 1; }
    n="$(find "$STAGE/$g" -type f -name '*.rb' | wc -l)"
    [[ "$n" -eq "${COUNT[$g]}" ]] \
        || { echo "expected ${COUNT[$g]} .rb files for $g, found $n" >&2; exit 1; }
done

# Layout check: exactly the five gem folders, each holding only lib/, only .rb files.
extra=""
for entry in "$STAGE"/* "$STAGE"/.[!.]*; do
    [[ -e "$entry" ]] || continue
    name="$(basename -- "$entry")"
    known=0
    for g in "${GEMS[@]}"; do [[ "$name" == "$g" ]] && known=1; done
    [[ $known -eq 1 ]] || extra+=" $entry"
done
for g in "${GEMS[@]}"; do
    extra+="$(find "$STAGE/$g" -mindepth 1 -maxdepth 1 ! -name lib)"
done
extra+="$(find "$STAGE" -type f ! -name '*.rb')"
if [[ -n "$extra" ]]; then
    echo "unexpected entries: $extra" >&2
    exit 1
fi
n_rb="$(find "$STAGE" -type f -name '*.rb' | wc -l)"
[[ "$n_rb" -eq "$EXPECTED_RB_FILES" ]] \
    || { echo "expected $EXPECTED_RB_FILES .rb files, found $n_rb" >&2; exit 1; }

rm -rf -- "$TARGET"
mv -- "$STAGE" "$TARGET"
STAGE=""
chmod -R u+rwX,go+rX "$TARGET"
echo "corpus ready in $TARGET ($n_rb .rb files)"
