#!/bin/sh
# same_exports.sh REF NEW: whether two builds of attnlab export the same
# pictures, byte for byte. Every bundled lesson (lessons/), script lesson
# (tests/scripts/), heavy lesson (tests/heavy-lessons/) and the heavy
# lessons its generate.sh writes is exported by both binaries, each in one
# run of --export (the batch path, one canvas kept from picture to picture),
# as PNG and SVG at two sizes and both themes, and as PDF:
#   png   1280x720 light (the defaults)
#   png   640x400 dark, every panel in plasma (--cmap)
#   svg   1280x720 light
#   svg   1920x1080 dark
#   pdf   the handouts (one per lesson, its text as the PNG's shaped glyphs)
# Both must write the same files with the same bytes and exit alike, and
# print the same --dump of every lesson (the JSON of every matrix of every
# stage, with its exit status and standard error). Prints
# each file that differs and a summary; exits 0 when nothing differs. A PNG
# whose bytes differ but whose pixels are the same (ImageMagick's compare)
# is listed apart and does not fail: the PNG encoder has been seen, rarely
# and under load, to compress the same pixels differently from one run to
# the next (docs/performance.md).
# Meant for a change that must not change pictures: build the reference
# from the commit before it (in a directory of its own, with its locale:
# `make build/attnlab locale`) and run, from the repository root,
#
#   sh tests/same_exports.sh /tmp/ref/build/attnlab build/attnlab
set -u
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ] || [ ! -d tests/heavy-lessons ]; then
    echo "usage: sh tests/same_exports.sh REF_BINARY NEW_BINARY   (from the repository root)" >&2
    exit 2
fi
ref=$(readlink -f "$1")
new=$(readlink -f "$2")
. ./tests/tlib.sh                       # t_tmp (run from the top of the tree)
t_name=same-exports
t_tmp SAME_EXPORTS_KEEP
sh tests/heavy-lessons/generate.sh "$tmp/gen" || exit 2
set -- lessons/*.lesson tests/scripts/*.lesson tests/heavy-lessons/*.lesson "$tmp"/gen/*.lesson
files=0 differ=0 encoded=0

# export BIN DIR FORMAT OPTIONS: every lesson to DIR; its exit code in DIR.rc.
export_all() {
    bin=$1 dir=$2 format=$3 opts=$4
    shift 4
    # shellcheck disable=SC2086  # opts is a list of words
    nice "$bin" --export "$dir" --format "$format" $opts "$@" >"$dir.out" 2>"$dir.err"
    echo $? >"$dir.rc"
}

for variant in "png|" "png|--size 640x400 --theme dark --cmap plasma" "svg|" "svg|--size 1920x1080 --theme dark" "pdf|"; do
    format=${variant%%|*} opts=${variant#*|}
    rm -rf "$tmp/a" "$tmp/b"
    export_all "$ref" "$tmp/a" "$format" "$opts" "$@" &
    export_all "$new" "$tmp/b" "$format" "$opts" "$@"
    wait
    what="$format $opts"
    # 2: a lesson refused (a heavy lesson over the export budget), the
    # others written; more, or no directory, is the reference failing
    if [ "$(cat "$tmp/a.rc")" -gt 2 ] || [ ! -d "$tmp/a" ]; then
        echo "same_exports: the reference failed ($what): $(head -c 300 "$tmp/a.err")" >&2
        exit 2
    fi
    if [ "$(cat "$tmp/a.rc")" != "$(cat "$tmp/b.rc")" ]; then
        echo "DIFFER: $what: exit $(cat "$tmp/a.rc") and $(cat "$tmp/b.rc")"
        differ=$((differ + 1))
    fi
    (cd "$tmp/a" && ls) >"$tmp/a.ls"
    (cd "$tmp/b" && ls) >"$tmp/b.ls"
    if ! cmp -s "$tmp/a.ls" "$tmp/b.ls"; then
        echo "DIFFER: $what: not the same files:"
        diff "$tmp/a.ls" "$tmp/b.ls" | head -20
        differ=$((differ + 1))
    fi
    n=0
    while read -r f; do
        n=$((n + 1))
        [ -f "$tmp/b/$f" ] || continue
        cmp -s "$tmp/a/$f" "$tmp/b/$f" && continue
        if [ "$format" = png ] && [ "$(compare -metric AE "$tmp/a/$f" "$tmp/b/$f" null: 2>&1)" = 0 ]; then
            echo "SAME PIXELS, OTHER BYTES: $what: $f"
            encoded=$((encoded + 1))
        else
            echo "DIFFER: $what: $f"
            differ=$((differ + 1))
        fi
    done <"$tmp/a.ls"
    echo "same_exports: $what: $n files compared"
    files=$((files + n))
done
# --dump of every lesson: the numbers themselves, byte for byte
dumps=0
for f in "$@"; do
    nice "$ref" --dump "$f" >"$tmp/a.json" 2>"$tmp/a.err"; ra=$?
    nice "$new" --dump "$f" >"$tmp/b.json" 2>"$tmp/b.err"; rb=$?
    dumps=$((dumps + 1))
    if [ $ra -ne $rb ] || ! cmp -s "$tmp/a.json" "$tmp/b.json" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
        echo "DIFFER: --dump $f (exit $ra and $rb)"
        differ=$((differ + 1))
    fi
done
echo "same_exports: --dump of $dumps lessons compared"
rm -f "$tmp/a.json" "$tmp/b.json"
echo "same_exports: $files files, $differ differences, $encoded PNGs with the same pixels in other bytes"
[ "$differ" -eq 0 ]
