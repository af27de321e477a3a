#!/bin/bash
# e2e_text.sh: the real window under Xvfb with text in many scripts. A lesson
# whose 64 stages carry thousands of distinct ideographs, at title and body
# sizes, is stepped through stage by stage (each stage drawn before the next
# key: tests/e2e_lib.sh waits for the frame): the glyph atlas fills several
# pages while the window draws (run under AddressSanitizer by
# `make test-sanitize`, so a page freed or moved under a frame is caught).
# Then a Japanese lesson is shown and hovered, and the screen is kept as
# $SHOTS/window-ja.png when SHOTS is set, to be looked at.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start e2e_text
t_tmp
. "$top/tests/e2e_lib.sh"             # adds its cleanup to t_on_exit
e2e_display 3900x2500

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

e2e_start atlas "$tmp/atlas.lesson" 3840x2400 --shots "$tmp"
park                                       # no hover in the pictures compared
shot a0
for i in $(seq 63); do key Right; done
shot a1
[ "$(differ a0 a1)" -gt 1000 ] && ok || bad "stepping through the stages changes the picture"
for i in $(seq 63); do key Left; done
shot a2
[ "$(differ a0 a2)" -eq 0 ] && ok || bad "back at the first stage, the same picture (glyphs from a filled atlas)"
quit atlas

e2e_start ja "$top/tests/scripts/ja.lesson" 1280x800 --shots "$tmp"
key 2
xdotool mousemove --window "$win" 300 330; settle
import -window "$win" "$tmp/ja.png"
[ -n "${SHOTS:-}" ] && cp "$tmp/ja.png" "$SHOTS/window-ja.png"
quit ja

summary "e2e_text"
