#!/bin/sh
# export_bytes.sh: the same lessons exported by many fresh processes give the
# same PNG bytes, file for file. Each process starts at other addresses
# (address-space randomisation), so an encoder whose output depends on where
# its state lives is caught here: ISA-L's level-1 body once filed a stream's
# third byte under a hash of a stale register (see prime_stream in
# src/sdl/export.c), and about one picture in two thousand came out with other
# bytes. These four lessons were those most often hit per second of work:
# against that encoder, 2.1% of processes wrote one of their 28 pictures
# differently (measured over 2,000 stream addresses), so 300 processes miss it
# with a probability of about 0.2%; in 8 trials each found 4 to 9 processes
# with other bytes. EXPORT_RUNS sets the number.
#
#   ATTNLAB=build/attnlab sh tests/export_bytes.sh      (from the repository root)
set -u
. ./tests/tlib.sh                       # t_start, t_tmp (run from the top of the tree)
t_start export-bytes lessons
runs=${EXPORT_RUNS:-300}
lessons="lessons/03-four-words-by-hand.lesson lessons/04-heads-entropy-causal.lesson lessons/07-induction-head.lesson lessons/08-positions.lesson"
t_tmp

aslr=$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo unknown)
[ "$aslr" = 2 ] || echo "export-bytes: note: address-space randomisation is '$aslr' here (2 is full), so the processes may all start at the same addresses"

"$bin" --export "$tmp/ref" $lessons >/dev/null || { echo "FAIL: the first export failed"; exit 1; }
(cd "$tmp/ref" && md5sum -- *.png) >"$tmp/ref.md5"
pictures=$(wc -l <"$tmp/ref.md5")
differ=0
i=1
while [ "$i" -lt "$runs" ]; do
    rm -rf "$tmp/run"
    if ! "$bin" --export "$tmp/run" $lessons >/dev/null 2>"$tmp/err"; then
        echo "FAIL: run $i: the export failed: $(head -c 300 "$tmp/err")"
        differ=$((differ + 1))
    elif ! (cd "$tmp/run" && md5sum --quiet -c "$tmp/ref.md5") >"$tmp/diff" 2>&1; then
        echo "FAIL: run $i wrote other bytes: $(grep -c FAILED "$tmp/diff") file(s): $(grep FAILED "$tmp/diff" | head -3 | tr '\n' ' ')"
        differ=$((differ + 1))
    fi
    i=$((i + 1))
done
echo "export-bytes: $runs processes, $pictures pictures each: $differ with other bytes"
[ "$differ" -eq 0 ]
