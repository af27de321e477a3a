#!/bin/sh
# e2e_text.sh: the real window under Xvfb with text in many scripts. A lesson
# whose 64 stages carry thousands of distinct ideographs, at title and body
# sizes, is stepped through stage by stage: the glyph atlas fills several
# pages while the window draws (run under AddressSanitizer by
# `make test-sanitize`, so a page freed or moved under a frame is caught).
# Then a Japanese lesson is shown and hovered, and the screen is kept as
# $SHOTS/window-ja.png when SHOTS is set, to be looked at.
set -u
bin=$(readlink -f "${ATTNLAB:-build/attnlab}")
top=$(pwd)
tmp=$(mktemp -d)
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

d=90
while [ -e "/tmp/.X$d-lock" ] || [ -e "/tmp/.X11-unix/X$d" ]; do d=$((d + 1)); done
Xvfb ":$d" -screen 0 3900x2500x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xvfb=$!
export DISPLAY=":$d"
app=""
cleanup() { [ -n "$app" ] && kill "$app" 2>/dev/null; kill "$xvfb" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
for i in $(seq 200); do [ -e "/tmp/.X11-unix/X$d" ] && break; sleep 0.1; done
sleep 0.3

# 64 stages, each titled with 24 ideographs and explained with 120 more,
# none repeated: about 9000 distinct glyphs at two sizes. Drawn on a
# 3840x2400 window (text three times the usual size), they need more than
# the atlas's eight pages, so the cache also starts over while the window
# draws.
/usr/bin/python3 - "$tmp/atlas.lesson" <<'PY'
import sys
cp = 0x4E00
def run(n):
    global cp
    s = "".join(chr(cp + i) for i in range(n))
    cp += n
    return s
out = ["title: " + run(12), "summary: " + run(40), "", "[setup: " + run(8) + "]", "seed: 3",
       "tokens: " + " ".join(run(2) for _ in range(6)), "X = randn 6x4", ""]
for k in range(64):
    out += ["[%s: %s]" % (["embeddings", "softmax", "raw_scores", "weighted_sum"][k % 4], run(24)), "",
            run(60), "", run(60), ""]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY

# start NAME LESSON SIZE: the window on a lesson; sets $app and $win
start() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$bin" --size "$3" --shots "$tmp" "$2" >"$tmp/$1.log" 2>&1 &
    app=$!
    win=""
    for i in $(seq 300); do             # 30 s: a busy machine lays out the first frame slowly
        win=$(xdotool search --name '^attnlab$' 2>/dev/null | head -1)
        [ -n "$win" ] && break
        sleep 0.1
    done
    [ -n "$win" ] && ok || { bad "$1: the window did not appear"; cat "$tmp/$1.log"; exit 1; }
    sleep 0.5
}
# quit NAME: Q, then exit status 0 and a clean log
quit() {
    xdotool key --window "$win" q 2>/dev/null
    for i in $(seq 100); do kill -0 "$app" 2>/dev/null || break; sleep 0.1; done
    wait "$app"
    code=$?
    app=""
    [ "$code" -eq 0 ] && ok || { bad "$1: Q exits 0 (got $code)"; cat "$tmp/$1.log"; }
    grep -q 'AddressSanitizer\|runtime error' "$tmp/$1.log" && { bad "$1: sanitizer report"; cat "$tmp/$1.log"; } || ok
}

start atlas "$tmp/atlas.lesson" 3840x2400
import -window root "$tmp/a0.png"
for i in $(seq 63); do xdotool key --window "$win" Right 2>/dev/null; sleep 0.05; done
sleep 0.5
import -window root "$tmp/a1.png"
[ "$(compare -metric AE "$tmp/a0.png" "$tmp/a1.png" null: 2>&1 | awk '{printf "%d", $1}')" -gt 1000 ] && ok \
    || bad "stepping through the stages changes the picture"
for i in $(seq 63); do xdotool key --window "$win" Left 2>/dev/null; sleep 0.02; done
sleep 0.5
import -window root "$tmp/a2.png"
[ "$(compare -metric AE "$tmp/a0.png" "$tmp/a2.png" null: 2>&1 | awk '{printf "%d", $1}')" -eq 0 ] && ok \
    || bad "back at the first stage, the same picture (glyphs from a filled atlas)"
quit atlas

start ja "$top/tests/scripts/ja.lesson" 1280x800
xdotool key --window "$win" 2 2>/dev/null
sleep 0.3
xdotool mousemove --window "$win" 300 330 2>/dev/null
sleep 0.6
import -window "$win" "$tmp/ja.png"
[ -n "${SHOTS:-}" ] && cp "$tmp/ja.png" "$SHOTS/window-ja.png"
quit ja

echo "e2e_text: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
