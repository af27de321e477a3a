#!/bin/sh
# run_part.sh: one part of `make test`, and the summary line at the end.
#
#   sh tests/run_part.sh DIR NAME COMMAND      run COMMAND (a line for sh -c)
#   sh tests/run_part.sh --summary DIR NAME... count the results of the parts
#
# A part's output goes to DIR/NAME.log; then one line says how it went and
# how long it took ("ok    unit-layout    21.4 s"), and a failed part prints
# its log under that line. The exit status is always 0, so that make goes on
# with the other parts (make -k would too, but a failed part is a result, not
# a broken build). DIR/NAME.result keeps "ok SECONDS" or "FAIL SECONDS".
#
# The summary prints the line `N passed, M failed` (a part that left no
# result, because make could not build what it needed, counts as failed) and
# exits non-zero if anything failed.
#
# PART_TIMEOUT (seconds, default 1800 times TIME_SCALE) ends a part that
# hangs; the parts have their own, much closer, limits inside.
set -u

# now: nanoseconds since the epoch (GNU date).
now() { date +%s%N; }

if [ "${1:-}" = --summary ]; then
    dir=$2; shift 2
    pass=0; fail=0; missing=""
    for name in "$@"; do
        if [ ! -f "$dir/$name.result" ]; then
            fail=$((fail + 1)); missing="$missing $name"
        elif [ "$(cut -d' ' -f1 "$dir/$name.result")" = ok ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
        fi
    done
    [ -n "$missing" ] && printf 'FAIL  %-16s did not run (see the errors above)\n' "$(echo $missing | tr ' ' ',')"
    if [ -f "$dir/.started" ]; then
        awk -v t0="$(cat "$dir/.started")" -v t1="$(now)" \
            'BEGIN { printf "all parts: %.1f s of wall time\n", (t1 - t0) / 1e9 }'
    fi
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

dir=$1 name=$2 cmd=$3
mkdir -p "$dir"
limit=${PART_TIMEOUT:-$((1800 * ${TIME_SCALE:-1}))}
t0=$(now)
timeout -k 10 "$limit" sh -c "$cmd" >"$dir/$name.log" 2>&1
rc=$?
secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
if [ "$rc" -eq 0 ]; then
    echo "ok $secs" >"$dir/$name.result"
    printf 'ok    %-16s %6s s   %s\n' "$name" "$secs" "$(tail -n 1 "$dir/$name.log" | cut -c1-100)"
else
    echo "FAIL $secs" >"$dir/$name.result"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="stopped after $limit s (PART_TIMEOUT)" || why="exit status $rc"
    printf 'FAIL  %-16s %6s s   %s; its output (%s):\n' "$name" "$secs" "$why" "$dir/$name.log"
    sed 's/^/    /' "$dir/$name.log" | tail -n 200
fi
exit 0
