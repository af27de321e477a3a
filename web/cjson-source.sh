#!/bin/sh
# web/cjson-source.sh DIR: Debian's source of cJSON, the version the native
# build links (libcjson1), unpacked with Debian's patches into DIR, for the
# WebAssembly build, which cannot link the native library. apt-get source
# runs with a sources list and state of its own under DIR's parent (the
# system's deb lines, made deb-src), so nothing of the system changes.
# Needs apt-get and dpkg-source (dpkg-dev); exits non-zero with a message
# when the source cannot be had.
set -eu
mkdir -p "$(dirname "$1")"
dir=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")    # apt reads paths from /etc/apt
work=$dir.apt
rm -rf "$dir" "$work"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts"
: > "$work/none.list"

# the system's Debian sources, as source lines
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$f"
done > "$work/parts/src.list"
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$work/parts/$(basename "$f")"
done
[ -s "$work/parts/src.list" ] || rm -f "$work/parts/src.list"

apt() {
    apt-get -q -o Dir::Etc::SourceList="$work/none.list" -o Dir::Etc::SourceParts="$work/parts" \
        -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" \
        -o APT::Sandbox::User=root "$@"
}
version=$(dpkg-query -W -f='${source:Version}' libcjson1 2>/dev/null || true)
apt update >"$work/log" 2>&1 || { cat "$work/log" >&2; echo "cjson-source: apt-get update failed" >&2; exit 1; }
# the installed version; the archive's own when it has moved on (a security update not yet installed)
(cd "$work" && { apt source --download-only "cjson${version:+=$version}" || apt source --download-only cjson; }) \
    >>"$work/log" 2>&1 || { cat "$work/log" >&2; echo "cjson-source: apt-get source cjson failed" >&2; exit 1; }
(cd "$work" && dpkg-source --no-check -x cjson_*.dsc src) >>"$work/log" 2>&1 ||
    { cat "$work/log" >&2; echo "cjson-source: dpkg-source could not unpack cjson" >&2; exit 1; }
mkdir -p "$dir/cjson"
cp "$work/src/cJSON.c" "$dir/cJSON.c"
cp "$work/src/cJSON.h" "$dir/cjson/cJSON.h"
cp "$work/src/LICENSE" "$dir/LICENSE"
rm -rf "$work"
