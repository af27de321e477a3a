#!/bin/sh
# heavy_lessons.sh: lessons within every documented limit that are expensive
# to read, compute, dump or draw (tests/heavy-lessons/, plus the big ones
# its generate.sh writes). Each must, within a budget of CPU time per command:
#   --check       exit 0                         (HEAVY_CHECK_TIMEOUT, 3 s)
#   --dump        exit 0, valid JSON without NaN or Infinity, at most
#                 HEAVY_DUMP_BYTES (150 MB)      (HEAVY_TIMEOUT, 20 s)
#   --export svg  exit 0, no attribute that is NaN or infinite, at most
#                 HEAVY_SVG_BYTES (8 MB) a stage (HEAVY_TIMEOUT)
#   --export png  exit 0                         (HEAVY_TIMEOUT)
# and the checks a lesson's own expectations add (see expect below).
#
#   ATTNLAB=build/attnlab sh tests/heavy_lessons.sh      (from the repository root)
set -u
bin=$(readlink -f "${ATTNLAB:-build/attnlab}")
if [ ! -x "$bin" ] || [ ! -d tests/heavy-lessons ]; then
    echo "heavy: run from the repository root with ATTNLAB=path/to/attnlab (got '$bin')" >&2
    exit 2
fi
quick=${HEAVY_CHECK_TIMEOUT:-3}
budget=${HEAVY_TIMEOUT:-20}
max_dump=${HEAVY_DUMP_BYTES:-150000000}
max_svg=${HEAVY_SVG_BYTES:-8000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# timed SECONDS OUT CMD...: run CMD with stdout to OUT; 0 when it exits 0
# within SECONDS of CPU time (ulimit -t, so that a machine busy with other
# work does not fail the test) and three times that of wall-clock time (a
# hang). Says how long it took either way.
timed() {
    secs=$1 out=$2; shift 2
    start=$(date +%s.%N)
    timeout -s KILL $((3 * secs)) sh -c 'ulimit -t "$0" && exec "$@"' "$secs" "$@" >"$out" 2>"$tmp/err"
    rc=$?
    took=$(echo "$(date +%s.%N) - $start" | bc)
    if [ $rc -ne 0 ]; then
        bad "$* exited $rc after ${took}s (budget ${secs}s of CPU; 152 or 137 mean it ran out): $(head -c 300 "$tmp/err")"
        return 1
    fi
    echo "ok: ${took}s: $(echo "$*" | sed "s|$bin|attnlab|; s|$tmp/||g")"
    ok
}

# expect LESSON: the checks particular to one lesson.
expect() {
    case $(basename "$1") in
    qkv-64-stages.lesson)
        # the seven big matrices once, and every stage refers to them
        n=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(t) for t in d["matrices"].values()), sum(m.get("shared", False) for s in d["stages"] for m in s["matrices"]))' "$tmp/dump.json" 2>/dev/null)
        if [ "$n" = "7 448" ]; then ok; else bad "$1: shared matrices and references: $n, expected '7 448'"; fi ;;
    dump-budget-7-setups.lesson)
        nulls=$(grep -c '": null' "$tmp/dump.json")
        if [ "$nulls" -gt 0 ]; then ok; else bad "$1: the dump should mark the matrices over its budget null"; fi ;;
    extreme-plus-minus-1e308.lesson)
        if grep -q '>1.00e+308</text>' "$tmp/svg/"*-01-*.svg && grep -q 'var too large for a double' "$tmp/svg/"*-01-*.svg
        then ok; else bad "$1: the colour bar should read 1.00e+308 and the variance should be said in words"; fi ;;
    extreme-subnormal.lesson)
        if grep -q '>4.94e-324</text>' "$tmp/svg/"*-01-*.svg; then ok; else bad "$1: the colour bar should read 4.94e-324"; fi ;;
    esac
}

mkdir -p "$tmp/gen"
sh tests/heavy-lessons/generate.sh "$tmp/gen" || bad "generate.sh failed"
for f in tests/heavy-lessons/*.lesson "$tmp"/gen/*.lesson; do
    timed "$quick" "$tmp/out" "$bin" --check "$f" || continue
    if timed "$budget" "$tmp/dump.json" "$bin" --dump "$f"; then
        size=$(wc -c <"$tmp/dump.json")
        if [ "$size" -le "$max_dump" ]; then ok; else bad "$f: --dump wrote $size bytes, over $max_dump"; fi
        # json rejects NaN and Infinity only when told to
        if /usr/bin/python3 -c 'import json,sys
def no(c): raise ValueError("non-finite number " + c)
json.load(open(sys.argv[1]), parse_constant=no)' "$tmp/dump.json" 2>"$tmp/err"
        then ok; else bad "$f: --dump is not valid JSON: $(tail -1 "$tmp/err")"; fi
    fi
    rm -rf "$tmp/svg" "$tmp/png"
    if timed "$budget" "$tmp/out" "$bin" --export "$tmp/svg" --format svg "$f"; then
        big=$(find "$tmp/svg" -name '*.svg' -size +"$max_svg"c | head -3)
        if [ -z "$big" ]; then ok; else bad "$f: SVG over $max_svg bytes: $big"; fi
        if grep -lE '="[^"]*([nN]a[nN]|inf)' "$tmp/svg/"*.svg >"$tmp/nan"; then bad "$f: NaN or infinity in $(head -1 "$tmp/nan")"; else ok; fi
    fi
    timed "$budget" "$tmp/out" "$bin" --export "$tmp/png" --format png "$f"
    expect "$f"
    rm -f "$tmp/dump.json"
done
echo "heavy lessons: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
