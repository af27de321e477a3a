#!/bin/bash
# e2e.sh: the real window under Xvfb, driven by xdotool like a teacher and a
# student would: step, go fullscreen, hover a cell, scroll-edit an input,
# save a stage with S, save the edited lesson, undo, R, quit with unsaved
# edits, follow the lesson file as another program rewrites it, Save as,
# resize, quit, and S after two resizes and back; predict mode and A on a
# stage cut into pages. Each effect is checked
# from outside: screenshots must change (or not), the PNG from S must equal
# the window's frame (and be the same bytes after resizes and back), the
# saved lesson must differ from the original in one number only (and keep
# it as FILE~), its numbers must have moved downstream, an idle window must
# use no CPU.
#
# Nothing here waits a fixed time: each picture is taken after the frame
# that follows the input (tests/e2e_lib.sh), so a busy machine only makes
# the test slower.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start e2e
t_tmp KEEP
. "$top/tests/e2e_lib.sh"             # adds its cleanup to t_on_exit

e2e_display 1600x1000
cp lessons/01-tour.lesson "$tmp/tour.lesson"
mkdir "$tmp/shots"
cd "$tmp"
e2e_start tour "$tmp/tour.lesson" 1280x800 --shots "$tmp/shots"
alive() { kill -0 "$app" 2>/dev/null; }

park                                       # the pointer away from every cell
shot s1
key Right
shot s2
[ "$(differ s1 s2)" -gt 1000 ] && ok || bad "→ changes the stage"
key Left
shot s3
[ "$(differ s1 s3)" -eq 0 ] && ok || bad "← comes back to the same picture"
key Next
shot s4
[ "$(differ s2 s4)" -eq 0 ] && ok || bad "PgDn (a clicker) goes to the next stage like →"
key Prior

# the tour's stage 5 is softmax: hover a weights cell, the explain panel appears
key 5
shot s5
xdotool mousemove --window "$win" 864 392; settle
shot s6
[ "$(differ s5 s6)" -gt 2000 ] && ok || bad "hovering a cell shows the explain panel"

# S: the stage as PNG, as the class sees it: the window's own frame, with
# the explain panel of the hovered cell (pixel for pixel what is on screen)
import -window "$win" "$tmp/s6win.png"
key s
[ -f "$tmp/shots/tour-05-softmax.png" ] && ok || bad "S wrote shots/tour-05-softmax.png"
[ "$(identify -format %wx%h "$tmp/shots/tour-05-softmax.png")" = "$(identify -format %wx%h "$tmp/s6win.png")" ] \
    && ok || bad "S's PNG has the window's size"
d=$(compare -metric AE "$tmp/shots/tour-05-softmax.png" "$tmp/s6win.png" null: 2>&1 | cut -d' ' -f1)
[ "$d" = 0 ] && ok || bad "S's PNG equals the window's frame ($d pixels differ)"

# scroll-edit X[1][1] on the embeddings stage, save the lesson, check downstream numbers moved
key 1
"$bin" --dump "$tmp/tour.lesson" >"$tmp/before.json"
xdotool mousemove --window "$win" 600 420; settle
quiet
shot s7
xdotool click 4 click 4 click 4; settle
shot s8
[ "$(differ s7 s8)" -gt 100 ] && ok || bad "scrolling over an input changes the picture"
key ctrl+s
"$bin" --dump "$tmp/tour.lesson" >"$tmp/after.json" 2>"$tmp/dump.err" && ok || bad "the saved lesson loads: $(cat "$tmp/dump.err")"
/usr/bin/python3 - "$tmp/before.json" "$tmp/after.json" <<'PY' && ok || bad "the edit changed X and the weights downstream"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def m(d, stage, name):
    st = [s for s in d["stages"] if s["id"] == stage][0]
    return [x for x in st["matrices"] if x["name"] == name][0]["data"]
xa, xb = m(a, "embeddings", "X"), m(b, "embeddings", "X")
changed = [(i, j) for i in range(len(xa)) for j in range(len(xa[0])) if xa[i][j] != xb[i][j]]
assert len(changed) == 1, changed
i, j = changed[0]
assert abs(xb[i][j] - xa[i][j] - 0.3) < 1e-9 or abs(xb[i][j] - xa[i][j] + 0.3) < 1e-9, (xa[i][j], xb[i][j])
assert m(a, "softmax", "weights") != m(b, "softmax", "weights")
PY
ls "$tmp"/*.tmp-* >/dev/null 2>&1 && bad "a temporary file was left behind" || ok

# the save changed one number's text and nothing else, and kept the old file as FILE~
/usr/bin/python3 - "$top/lessons/01-tour.lesson" "$tmp/tour.lesson" <<'PY' && ok || bad "Ctrl+S changed exactly one number of the file"
import sys
a, b = (open(p, 'rb').read().split(b'\n') for p in sys.argv[1:3])
assert len(a) == len(b), (len(a), len(b))
diff = [(x, y) for x, y in zip(a, b) if x != y]
assert len(diff) == 1, diff
x, y = (l.split() for l in diff[0])
assert len(x) == len(y) and sum(p != q for p, q in zip(x, y)) == 1, diff
p, q = [(p, q) for p, q in zip(x, y) if p != q][0]
assert abs(abs(float(q) - float(p)) - 0.3) < 1e-9, (p, q)
PY
cmp -s "$top/lessons/01-tour.lesson" "$tmp/tour.lesson~" && ok || bad "the first save kept the previous version as tour.lesson~"

# Ctrl+Z takes the edit back: saving again gives the original bytes
key ctrl+z
key ctrl+s
cmp -s "$top/lessons/01-tour.lesson" "$tmp/tour.lesson" && ok || bad "Ctrl+Z then Ctrl+S restores the original file"

# an edit, then R: back to the file as loaded (the picture before the edit;
# saving has nothing to write); Ctrl+Z brings the edit back (the picture
# with it; saving writes it), and Ctrl+Z again takes it back
rehover() { xdotool mousemove --window "$win" 604 424 mousemove --window "$win" 600 420; settle; }
xdotool click 5 click 5; settle
quiet
shot unsaved
[ "$(differ s7 unsaved)" -gt 100 ] && ok || bad "an unsaved edit shows on screen"
key r
quiet
rehover
shot reset
[ "$(differ s7 reset)" -eq 0 ] && ok || bad "R shows the file's numbers (the picture before the edit; $(differ s7 reset) pixels differ)"
key ctrl+s
cmp -s "$top/lessons/01-tour.lesson" "$tmp/tour.lesson" && ok || bad "R drops the edit (Ctrl+S after R leaves the file as it was)"
quiet
key ctrl+z
quiet
rehover
shot unreset
[ "$(differ unsaved unreset)" -eq 0 ] && ok || bad "Ctrl+Z after R brings the edit back (the picture with it; $(differ unsaved unreset) pixels differ)"
key ctrl+s
/usr/bin/python3 - "$top/lessons/01-tour.lesson" "$tmp/tour.lesson" <<'PY' && ok || bad "Ctrl+S after R and Ctrl+Z saves the edit (one number, 0.2 lower)"
import sys
a, b = (open(p, 'rb').read().split(b'\n') for p in sys.argv[1:3])
diff = [(x.split(), y.split()) for x, y in zip(a, b) if x != y]
assert len(a) == len(b) and len(diff) == 1, diff
p, q = [(p, q) for p, q in zip(*diff[0]) if p != q][0]
assert abs(float(q) - float(p) + 0.2) < 1e-9, (p, q)
PY
key ctrl+z
key ctrl+s
cmp -s "$top/lessons/01-tour.lesson" "$tmp/tour.lesson" && ok || bad "Ctrl+Z then Ctrl+S restores the original file again"

# Q with unsaved edits asks instead of quitting; Esc stays
xdotool click 4; settle
quiet
shot q0
key q
shot q1
alive && ok || bad "Q with unsaved edits does not quit at once"
[ "$(differ q0 q1)" -gt 1000 ] && ok || bad "Q with unsaved edits asks on screen"
key Escape
alive && ok || bad "Esc after Q stays"
quiet
# closing the window (the window manager's close, Alt+F4) asks the same way;
# the window manager sends the close on its own time, so wait for the question
type_keys alt+F4                           # the window manager takes it: no key to count
asks() { settle && shot q2 && [ "$(differ q0 q2)" -gt 1000 ]; }
wait_for "closing the window with unsaved edits asks on screen" asks && ok
alive && ok || bad "closing the window with unsaved edits does not quit at once"
key Escape
key ctrl+z
quiet

# live reload: the file rewritten by another program (by rename, as editors do)
rewrite() { /usr/bin/python3 - "$tmp/tour.lesson" "$1" <<'PY'
import os, sys
path, what = sys.argv[1], sys.argv[2]
text = open(os.environ['ORIG'], encoding='utf-8').read()
if what == 'valid':
    text = text.replace('title: A short tour', 'title: A brief tour', 1)
    lines = text.split('\n')
    i = lines.index('X =')
    parts = lines[i + 2].split()
    parts[1] = '-2.5'
    lines[i + 2] = '  ' + '  '.join(parts)
    text = '\n'.join(lines)
elif what == 'invalid':
    text = text.replace('title: A short tour', 'title: A brief tour', 1).replace('tokens:', 'tokens: "unclosed', 1)
open(path + '.new', 'w', encoding='utf-8').write(text)
os.rename(path + '.new', path)
PY
}
export ORIG="$top/lessons/01-tour.lesson"
shot l0
rewrite valid
reloaded
shot l1
[ "$(differ l0 l1)" -gt 100 ] && ok || bad "a changed file is reloaded"
quiet
shot l1b
rewrite invalid
reloaded
shot l2
alive && ok || bad "an invalid file does not stop the window"
[ "$(differ l1b l2)" -gt 1000 ] && ok || bad "an invalid file shows its error"
rewrite valid
reloaded
quiet
shot l3
[ "$(differ l1b l3)" -eq 0 ] && ok || bad "the fixed file is picked up again (same picture as before the error)"

# Save as: Ctrl+Shift+S proposes NAME-edited.lesson; Enter saves there
xdotool click 4; settle
key ctrl+shift+s
shot saveas
key Return
[ -f "$tmp/tour-edited.lesson" ] && ok || bad "Save as wrote tour-edited.lesson"
"$bin" --check "$tmp/tour-edited.lesson" >/dev/null 2>&1 && ok || bad "the lesson saved as loads"
[ "$(cmp -l "$tmp/tour.lesson" "$tmp/tour-edited.lesson" 2>/dev/null | wc -l)" -ge 1 ] && ok || bad "Save as saved the edit"

# fullscreen and back (the window manager resizes the window on its own time)
key f
wait_for "F makes the window fullscreen (1600x1000)" has_geometry 1600x1000 && ok || echo "e2e: the window is $(geometry)"
key Escape
wait_for "Esc leaves fullscreen (1280x800)" has_geometry 1280x800 && ok || echo "e2e: the window is $(geometry)"

# resize: the stage is laid out again for the new size
settle
park
quiet
shot r1
xdotool windowsize "$win" 900 640
wait_for "the window resizes (900x640)" has_geometry 900x640 && ok || echo "e2e: the window is $(geometry)"
settle
shot r2
[ "$(differ r1 r2)" -gt 1000 ] && ok || bad "a resized window is drawn again"

# idle: while it watches the lesson file (a stat twice a second) the window
# stays asleep: CPU time over three idle seconds, in clock ticks (100 a
# second; a busy loop would take about 300)
quiet
ticks() { awk '{ print $14 + $15 }' "/proc/$app/stat"; }
t0=$(ticks); sleep 3; t1=$(ticks); echo "e2e: idle CPU $((t1 - t0)) ticks in 3 s"
[ $((t1 - t0)) -le $((6 * scale)) ] && ok || bad "idle CPU while watching the file is about 0 (got $((t1 - t0)) ticks in 3 s)"

# Q quits with status 0
quit tour

# zoom: a 200 x 200 heatmap read in parts: + and - at the pointer, drag,
# Ctrl+wheel, Esc for all of it; Ctrl + and Ctrl - the text size
{
    printf 'title: Zoom\n\n[setup]\nseed: 3\ntokens:'
    i=0; while [ $i -lt 200 ]; do printf ' t%d' $i; i=$((i + 1)); done
    printf '\nX = randn 200x200\n\n[embeddings]\n'
} >"$tmp/big.lesson"
e2e_start big "$tmp/big.lesson" 1280x800
park
quiet
shot z0
xdotool mousemove --window "$win" 640 460; settle
key plus plus plus plus
park
shot z1
[ "$(differ z0 z1)" -gt 100000 ] && ok || bad "+ over the heatmap zooms into it"
xdotool mousemove --window "$win" 700 460 mousedown 1 mousemove --window "$win" 600 400 \
    mousemove --window "$win" 450 360 mouseup 1; settle
park
shot z2
[ "$(differ z1 z2)" -gt 20000 ] && ok || bad "dragging moves the zoomed part"
xdotool mousemove --window "$win" 640 460; settle
shot z3
[ "$(differ z2 z3)" -gt 2000 ] && ok || bad "hovering a cell of the zoomed part explains it"
key minus
park
shot z4
[ "$(differ z2 z4)" -gt 20000 ] && ok || bad "- zooms out"
key Escape
park
shot z5
[ "$(differ z0 z5)" -eq 0 ] && ok || bad "Esc shows the whole heatmap again, as before the zoom"
xdotool mousemove --window "$win" 640 460 keydown --window "$win" ctrl click 4 click 4 keyup --window "$win" ctrl
settle
park
shot z6
[ "$(differ z0 z6)" -gt 100000 ] && ok || bad "Ctrl+wheel zooms at the pointer (and edits nothing: Q quits at once)"
key Escape
key ctrl+plus
park
shot z7
[ "$(differ z0 z7)" -gt 1000 ] && ok || bad "Ctrl++ makes the text bigger"
# (a second window after a first has quit takes Q only with the pointer on it)
xdotool mousemove --window "$win" 640 460; settle
quit big

# S after the window was laid out at another size and back, twice: the
# same picture, byte for byte, as before (a layout depends on nothing that
# layouts at other sizes left behind). The tour's stage 8 once came out with
# other label widths after a size and back: the layout cache kept tables of
# label widths whose memory a layout at another size had written over.
cd "$tmp/shots"
e2e_start again "$top/lessons/01-tour.lesson" 1280x800 --shots "$tmp/shots"
key 8
park
quiet
key s
quiet
first=$(ls "$tmp/shots"/01-tour-08-*.png 2>/dev/null | head -1)
[ -n "$first" ] && ok || bad "S wrote stage 8 of the tour into shots/"
mv "$first" "$tmp/again-before.png"
for round in 1 2; do
    xdotool windowsize "$win" 1000 640
    wait_for "the window resizes (1000x640)" has_geometry 1000x640 && ok || echo "e2e: the window is $(geometry)"
    settle
    xdotool windowsize "$win" 1280 800
    wait_for "the window resizes back (1280x800)" has_geometry 1280x800 && ok || echo "e2e: the window is $(geometry)"
    settle
done
park
quiet
key s
quiet
cmp -s "$first" "$tmp/again-before.png" && ok || bad "S after two resizes and back writes the bytes it wrote before"
xdotool mousemove --window "$win" 640 460; settle
quit again

# Predict mode and A across the pages of a stage. Lesson 07's stage 2
# opens with its four heads side by side, then gives each head pages of its
# own; its pictures, as --export draws them (the window shows the same, the
# first check), say where each cell is, and --dump which weight of a row is
# the largest. The class guesses on head 1's weights page, turns to head
# 2's and guesses there, and P reveals: both heads are counted. Then A with
# the pointer on head 2's panel of the comparison page switches head 2 off,
# and the next-token slide after layer 2 names it in the line under it.
cd "$top"
"$bin" --export "$tmp/p07" --stage 2 --format svg lessons/07-induction-head.lesson >/dev/null
"$bin" --export "$tmp/p07" --stage 2 lessons/07-induction-head.lesson >/dev/null
"$bin" --dump --stage 2 lessons/07-induction-head.lesson >"$tmp/p07.json"
# cell PAGE MATRIX ROW best|wrong|COL: the window point of that cell's
# centre on the page whose file name ends in PAGE; best is the row's
# largest weight, wrong the column after it
cell() { /usr/bin/python3 - "$tmp/p07" "$tmp/p07.json" "$@" <<'PY'
import glob, json, re, sys
folder, dump, page, name, row, col = sys.argv[1:7]
m = [m for st in json.load(open(dump))["stages"] for m in st["matrices"] if m["name"] == name][0]
r, n = int(row), m["cols"]
best = max(range(n), key=lambda j: (m["data"][r][j], -j))
c = best if col == "best" else (best + 1) % n if col == "wrong" else int(col)
svg = open(glob.glob("%s/*-%s.svg" % (folder, page))[0]).read()
group = svg[svg.index('<g data-matrix="%s"' % name):]
group = group[:group.index("</g>")]
x, y, w, h = (float(v) for v in re.findall(
    r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', group)[r * n + c])
print(round(x + w / 2), round(y + h / 2))
PY
}
# guess PAGE MATRIX ROW best|wrong: a click on that cell
guess() { xdotool mousemove --window "$win" $(cell "$@") click 1; settle; }
# weights_page H: the page (its number and name, "03-h1-2") that shows head
# H's own weights, as --export cut the stage
weights_page() { for f in "$tmp"/p07/*-multi_head-*-h"$1"-*.svg "$tmp"/p07/*-multi_head-*-h"$1".svg; do
    [ -f "$f" ] && grep -q "data-matrix=\"head$1.weights\"" "$f" && { basename "$f" .svg | sed 's/.*multi_head-//'; return; }
done; }
w1=$(weights_page 1) w2=$(weights_page 2)
n1=${w1%%-*} n2=${w2%%-*}
[ -n "$w1" ] && [ -n "$w2" ] && ok || bad "head 1's and head 2's weights pages are among the exported pages ($w1, $w2)"
# right N: → N times
right() { i=0; while [ "$i" -lt "$1" ]; do key Right; i=$((i + 1)); done; }
e2e_start pages "$top/lessons/07-induction-head.lesson" 1280x720
key 2
park
quiet
import -window "$win" "$tmp/pages-heads.png"
# (every pixel within 2%: the screen and the PNG round the colours of the
# blended cell edges a level or two apart)
d=$(compare -metric AE -fuzz 2% "$tmp/pages-heads.png" "$tmp"/p07/07-induction-head-02-multi_head-01-heads.png null: 2>&1 \
    | cut -d' ' -f1)
[ "$d" = 0 ] && ok || bad "the window shows stage 2's comparison page as --export draws it ($d pixels differ)"
right $((${n1#0} - 1))                      # from the comparison page to head 1's weights
key p
[ "$SAID_TOAST" = "predict: click the cell you expect to be largest in each row, then P" ] && ok \
    || bad "P starts predict mode on head 1's weights page (said: $SAID_TOAST)"
for r in 0 1; do guess "$w1" head1.weights $r best; done
for r in 2 3; do guess "$w1" head1.weights $r wrong; done
right $((${n2#0} - ${n1#0}))                # on to head 2's weights
for r in 0 1 2; do guess "$w2" head2.weights $r best; done
key p
case $SAID_TOAST in
    *"head 1: 2 of 20 rows right"*"head 2: 3 of 20 rows right"*) ok ;;
    *) bad "the reveal on head 2's page counts head 1's guesses too (said: $SAID_TOAST)" ;;
esac
key p
key 1 shift+Right                          # stage 2 again, from its comparison page
xdotool mousemove --window "$win" $(cell 01-heads head2.weights 5 2); settle
key a
[ "$SAID_TOAST" = "head 2: switched off, its output replaced by 0" ] && ok \
    || bad "A on the comparison page switches off the head under the pointer (said: $SAID_TOAST)"
park
key 6
want=$(printf 'switched off in \342\200\234Layer 1 of the trained model\342\200\235: head 2 \342\206\222 0')
case $SAID_NOTE in
    "$want"*) ok ;;
    *) bad "the next-token slide after layer 2 names head 2 first in its note (said: $SAID_NOTE)" ;;
esac
key r                                      # back to the file: nothing to save, Q quits
xdotool mousemove --window "$win" 640 460; settle
quit pages

summary "e2e"
