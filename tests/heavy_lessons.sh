#!/bin/sh
# heavy_lessons.sh: lessons within every documented limit that are expensive
# to read, compute, dump or draw (tests/heavy-lessons/, plus the big ones
# its generate.sh writes). Each must:
#   --check       exit 0
#   --dump        exit 0, valid JSON without NaN or Infinity, at most
#                 HEAVY_DUMP_BYTES (150 MB)
#   --export svg  exit 0, no attribute that is NaN or infinite, at most
#                 HEAVY_SVG_BYTES (8 MB) a stage
#   --export png, --export pdf  exit 0
#   every export  at most 1024 files and HEAVY_EXPORT_BYTES (350 MB) in all,
#                 or, for the lessons over the export budget (over_budget
#                 below), exit 2 with the budget's one line, nothing written
# and the checks a lesson's own expectations add (see expect below).
#
# No time limit here judges speed (`make bench` does). Limits only stop a
# hang, and they come from a calibration on this machine, in this run: the
# wall time of exporting the tour lesson (10 PNG stages), measured before
# every heavy lesson, the longest so far kept. On an idle machine that is
# about 0.035 s, the slowest --check here about 1 s (30 times it) and the
# slowest --dump or --export about 5 s (140 times it); a command may take
# 1000 (--check) or 3000 times it, so that a machine ten times slower, or
# one that gets three times busier after a calibration, still passes.
#
#   ATTNLAB=build/attnlab sh tests/heavy_lessons.sh      (from the repository root)
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start heavy tests/heavy-lessons
max_dump=${HEAVY_DUMP_BYTES:-150000000}
max_svg=${HEAVY_SVG_BYTES:-8000000}
t_tmp

# seconds T0 T1: the time between two `date +%s%N` readings, in seconds.
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }

# calibrate: time the reference export (itself stopped after 10 minutes, a
# hang) and keep the longest so far in $unit (nanoseconds); set the limits.
unit=0
calibrate() {
    t0=$(date +%s%N)
    rm -rf "$tmp/cal"
    if ! timeout -s KILL 600 "$bin" --export "$tmp/cal" lessons/01-tour.lesson >/dev/null 2>"$tmp/err"; then
        bad "the calibration export of lessons/01-tour.lesson failed: $(head -c 300 "$tmp/err")"
        return
    fi
    t=$(($(date +%s%N) - t0))
    [ "$t" -gt "$unit" ] && unit=$t
    check_limit=$(awk -v u="$unit" 'BEGIN { s = 1000 * u / 1e9; print (s < 10 ? 10 : int(s) + 1) }')
    limit=$(awk -v u="$unit" 'BEGIN { s = 3000 * u / 1e9; print (s < 30 ? 30 : int(s) + 1) }')
}

# timed SECONDS OUT CMD...: run CMD with stdout to OUT; 0 when it exits 0
# (stopped after SECONDS of wall time: a hang). Says how long it took.
timed() {
    secs=$1 out=$2; shift 2
    t0=$(date +%s%N)
    timeout -s KILL "$secs" "$@" >"$out" 2>"$tmp/err"
    rc=$?
    took=$(seconds "$t0" "$(date +%s%N)")
    if [ $rc -ne 0 ]; then
        bad "$* exited $rc after ${took}s (137: stopped at the hang limit of ${secs}s): $(head -c 300 "$tmp/err")"
        return 1
    fi
    echo "ok: ${took}s: $(echo "$*" | sed "s|$bin|attnlab|; s|$tmp/||g")"
    ok
}

# exported SECONDS LESSON FORMAT: export LESSON as FORMAT into $tmp/FORMAT
# (stopped after SECONDS: a hang). Within the export budget it exits 0 and
# writes at most EXPORT_PAGES pages and MAX_EXPORT_BYTES bytes; over it
# (the lessons over_budget names, and no other) it exits 2 with the budget's
# one line and writes nothing. 0 when written.
max_export=${HEAVY_EXPORT_BYTES:-350000000}
over_budget() {
    case $(basename "$1"):$2 in
    substeps-most-pages.lesson:*) echo "pages (a page for each sub-step, head or part), over the limit of 1024";;
    export-budget-64-stages.lesson:svg|export-budget-64-stages.lesson:pdf|trace-16-setups-16-heads.lesson:svg|\
    trace-16-setups-16-heads.lesson:pdf) echo "shapes (cells, labels, lines) on its";;
    esac
}
exported() {
    secs=$1 lesson=$2 fmt=$3
    t0=$(date +%s%N)
    timeout -s KILL "$secs" "$bin" --export "$tmp/$fmt" --format "$fmt" "$lesson" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    took=$(seconds "$t0" "$(date +%s%N)")
    over=$(over_budget "$lesson" "$fmt")
    n=$(find "$tmp/$fmt" -type f 2>/dev/null | wc -l)
    bytes=$(du -sb "$tmp/$fmt" 2>/dev/null | cut -f1)
    if [ -n "$over" ]; then
        if [ $rc -eq 2 ] && [ "$n" -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "$over" "$tmp/err"; then
            echo "ok: ${took}s: over the export budget, refused: attnlab --export $fmt $(basename "$lesson")"; ok
        else
            bad "$lesson: --export as $fmt should be refused ($over), got exit $rc after ${took}s, $n files: $(head -c 300 "$tmp/err")"
        fi
        return 1
    fi
    if [ $rc -ne 0 ]; then
        bad "--export $fmt $lesson exited $rc after ${took}s (137: stopped at the hang limit of ${secs}s): $(head -c 300 "$tmp/err")"
        return 1
    fi
    if [ "$n" -le 1024 ] && [ "${bytes:-0}" -le "$max_export" ]; then ok
    else bad "$lesson: --export as $fmt wrote $n files, $bytes bytes: over the export budget (1024 pages, $max_export bytes)"; fi
    echo "ok: ${took}s: $n files, $bytes bytes: attnlab --export $fmt $(basename "$lesson")"
    return 0
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
    calibrate
    timed "$check_limit" "$tmp/out" "$bin" --check "$f" || continue
    if timed "$limit" "$tmp/dump.json" "$bin" --dump "$f"; then
        size=$(wc -c <"$tmp/dump.json")
        if [ "$size" -le "$max_dump" ]; then ok; else bad "$f: --dump wrote $size bytes, over $max_dump"; fi
        # json rejects NaN and Infinity only when told to
        if /usr/bin/python3 -c 'import json,sys
def no(c): raise ValueError("non-finite number " + c)
json.load(open(sys.argv[1]), parse_constant=no)' "$tmp/dump.json" 2>"$tmp/err"
        then ok; else bad "$f: --dump is not valid JSON: $(tail -1 "$tmp/err")"; fi
    fi
    for fmt in svg png pdf; do
        rm -rf "$tmp/$fmt"
        if exported "$limit" "$f" "$fmt" && [ "$fmt" = svg ]; then
            big=$(find "$tmp/svg" -name '*.svg' -size +"$max_svg"c | head -3)
            if [ -z "$big" ]; then ok; else bad "$f: SVG over $max_svg bytes: $big"; fi
            if grep -lE '="[^"]*([nN]a[nN]|inf)' "$tmp/svg/"*.svg >"$tmp/nan"; then bad "$f: NaN or infinity in $(head -1 "$tmp/nan")"; else ok; fi
        fi
    done
    expect "$f"
    rm -f "$tmp/dump.json"
done
echo "heavy: the reference export took at most $(seconds 0 "$unit")s; hang limits ${check_limit}s (--check), ${limit}s (the others)"
summary "heavy lessons"
