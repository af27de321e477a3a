#!/bin/bash
# e2e_open.sh: the real window under Xvfb on a 1366x768 screen (a common
# laptop's), opening files the ways a desktop user does and fitting the
# screen:
#  - the first window fits the screen's usable area, frame and all; the
#    first-run hint shows until the first key; the size and place a window
#    is left at come back the next time (and the hint does not);
#  - O without a dialog program: the program's own path field, Tab
#    completing, Enter opening; O with a dialog program (a stand-in zenity on
#    PATH that answers with a file): the file it names opens;
#  - files dropped on the window (tests/tools/xdnd_drop: XDND, as a file
#    manager drops, which SDL turns into its drop events): a lesson opens,
#    a lesson with its .npy opens, the .npy alone reads the lesson again;
#  - the picker (L) lists the folder given on the command line, the user's
#    own lessons and the bundled ones, and the recent files first;
#  - Ctrl+P writes the lesson's PDF handout.
# Which lesson is open is read from the name of the PNG that S writes
# (<lesson>-NN-<stage>.png). Nothing waits a fixed time (tests/e2e_lib.sh).
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start e2e_open
drop=$(readlink -f "${XDND_DROP:-$(dirname "$bin")/xdnd_drop}")
t_tmp KEEP
. "$top/tests/e2e_lib.sh"             # adds its cleanup to t_on_exit

e2e_display 1366x768
export HOME="$tmp/home" ATTNLAB_FILE_DIALOG=prompt
mkdir -p "$HOME" "$tmp/shots" "$tmp/course" "$tmp/folder" "$XDG_DATA_HOME/attnlab/lessons"
cp lessons/01-tour.lesson "$tmp/course/tour.lesson"
cp lessons/03-four-words-by-hand.lesson "$tmp/course/week3.lesson"
cp lessons/05-translation.lesson "$tmp/course/dropped.lesson"
cp lessons/06-other-scores-and-masks.lesson "$tmp/course/other.lesson"
cp lessons/02-one-hot-to-qkv.lesson "$tmp/folder/folder.lesson"
mkdir "$tmp/course/sub"
cp lessons/08-positions.lesson "$tmp/course/sub/inner.lesson"
cp lessons/09-masks-and-shared-heads.lesson "$tmp/course/sub/notes.lesson"
sed 's/^title: .*/title: My own lesson/' lessons/04-heads-entropy-causal.lesson >"$XDG_DATA_HOME/attnlab/lessons/mine.lesson"
# a lesson that loads its X from a NumPy file beside it
/usr/bin/python3 - "$tmp/course" <<'PY'
import numpy as np, sys
np.save(sys.argv[1] + "/x.npy", np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.0, 1.0, 1.0]]))
open(sys.argv[1] + "/numpy.lesson", "w").write(
    "title: Loaded from NumPy\n[setup]\ntokens: a b c\nX = load \"x.npy\"\n[embeddings]\n[softmax]\n")
PY
cd "$tmp"

# shows LESSON: S writes the stage as shots/LESSON-NN-*.png
shows() {
    rm -f "$tmp"/shots/*.png
    key s
    ls "$tmp"/shots/"$1"-[0-9][0-9]-*.png >/dev/null 2>&1
}
# frame_fits: the window and its frame within the 1366x768 screen
frame_fits() {
    local x y w h ext
    eval "$(xwininfo -id "$win" | awk '/Absolute upper-left X/ { print "x=" $NF } /Absolute upper-left Y/ { print "y=" $NF }
                                      /^ *Width:/ { print "w=" $NF } /^ *Height:/ { print "h=" $NF }')"
    ext=$(xprop -id "$win" _NET_FRAME_EXTENTS | sed 's/.*= //; s/,//g')
    set -- $ext                        # left right top bottom
    [ $# -eq 4 ] && [ $((x - $1)) -ge 0 ] && [ $((y - $3)) -ge 0 ] && [ $((x + w + $2)) -le 1366 ] && [ $((y + h + $4)) -le 768 ]
}

# ---- a fresh user: the window fits the screen, the hint shows until a key
xdotool mousemove 0 0                       # the pointer outside the window to come: no hover
e2e_start first "$tmp/course/tour.lesson" - --shots "$tmp/shots"
import -window "$win" "$tmp/hint.png"
wait_for "the first window fits the 1366x768 screen, frame and all" frame_fits && ok || xwininfo -id "$win" | grep -E 'Abs|Width|Height'
settle                                      # a key: the hint goes
import -window "$win" "$tmp/nohint.png"
d=$(compare -metric AE "$tmp/hint.png" "$tmp/nohint.png" null: 2>&1 | cut -d' ' -f1)
[ "${d:-0}" -gt 500 ] && ok || bad "the first-run hint shows, then goes at the first key ($d pixels differ)"
xdotool windowsize "$win" 900 600
wait_for "the window resizes (900x600)" has_geometry 900x600 && ok
settle
quit first
grep -qx 'hinted=1' "$XDG_STATE_HOME/attnlab/window" && ok || bad "the state file says the hint was seen"
grep -qx 'width=900' "$XDG_STATE_HOME/attnlab/window" && grep -qx 'height=600' "$XDG_STATE_HOME/attnlab/window" \
    && ok || bad "the state file keeps the last size: $(cat "$XDG_STATE_HOME/attnlab/window")"

# ---- the next run: the last size, no hint
xdotool mousemove 0 0
e2e_start second "$tmp/course/tour.lesson" - --shots "$tmp/shots"
wait_for "the window comes back at its last size (900x600)" has_geometry 900x600 && ok || echo "e2e_open: the window is $(geometry)"
frame_fits && ok || bad "the remembered window fits the screen"
import -window "$win" "$tmp/second.png"
settle
import -window "$win" "$tmp/second-key.png"
d=$(compare -metric AE "$tmp/second.png" "$tmp/second-key.png" null: 2>&1 | cut -d' ' -f1)
[ "${d:-1}" -eq 0 ] && ok || bad "no hint once it has been seen ($d pixels differ after a key)"

# ---- O: the program's own path field (it starts in the lesson's folder);
# Tab completes, Enter opens
key o w e Tab Return
shows week3 && ok || bad "O, typing 'we', Tab and Enter opens week3.lesson: $(ls "$tmp/shots")"
key o o t h Tab Return
shows other && ok || bad "O, 'oth', Tab and Enter opens other.lesson"
# a folder completed and Enter: it is listed, not opened; then a file in it
key o s u Tab Return i Tab Return
shows inner && ok || bad "Enter on a folder lists it; then 'i', Tab, Enter opens sub/inner.lesson"

# ---- O with a dialog program: what it answers opens
mkdir "$tmp/bin"
cat >"$tmp/bin/zenity" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$tmp/zenity-args"
echo "$tmp/course/tour.lesson"
EOF
chmod +x "$tmp/bin/zenity"
quit second
PATH="$tmp/bin:$PATH" ATTNLAB_FILE_DIALOG= XDG_CURRENT_DESKTOP= e2e_start dialog "$tmp/course/week3.lesson" - --shots "$tmp/shots"
key o
# the window opens the answer at its next look after the dialog has ended
gone() { ! pgrep -f "$tmp/bin/zenity" >/dev/null; }
wait_for "the stand-in zenity ran" test -s "$tmp/zenity-args" && ok
wait_for "the stand-in zenity ended" gone && ok
settle
shows tour && ok || bad "O with zenity opens the file it answers"
grep -qx -- '--file-selection' "$tmp/zenity-args" && grep -qx -- "--filename=$tmp/course/" "$tmp/zenity-args" \
    && ok || bad "zenity is asked for a file, starting in the lesson's folder: $(cat "$tmp/zenity-args")"

# ---- files dropped on the window
"$drop" "$win" "$hang" "$tmp/course/dropped.lesson" && ok || bad "the window takes a dropped lesson"
settle
shows dropped && ok || bad "a dropped lesson opens"
"$drop" "$win" "$hang" "$tmp/course/numpy.lesson" "$tmp/course/x.npy" && ok || bad "the window takes a lesson with its .npy"
settle
shows numpy && ok || bad "a lesson dropped with its .npy opens"
park; quiet
shot np1
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/course/x.npy', np.array([[3.0, 0, 0], [0, 3.0, 0], [0, 0, 3.0]]))"
"$drop" "$win" "$hang" "$tmp/course/x.npy" && ok || bad "the window takes a dropped .npy"
settle; quiet
shot np2
[ "$(differ np1 np2)" -gt 1000 ] && ok || bad "the .npy alone, dropped, reads the lesson that loads it again"
quit dialog

# ---- a model's folder (--model DIR SENTENCE): I types the sentence it reads
/usr/bin/python3 "$top/tests/tiny_model.py" "$tmp/gpt2"
e2e_start model "" 1280x720 --model "$tmp/gpt2" "the cat sat" --shots "$tmp/shots"
key Right Right                             # layer 1's heads: head 2's first page
shows gpt2 && ok || bad "a model's folder opens as a lesson named after it"
ls "$tmp"/shots/gpt2-01-multi_head-03-h2.png >/dev/null 2>&1 && ok || bad "Right Right shows head 2's page"
park; quiet
shot m1
key i ctrl+u
xdotool windowfocus --sync "$win" type --delay 20 "The dog sat on the mat, then the cat sat on the dog" 2>/dev/null
settle
key Return
park; quiet
shot m2
[ "$(differ m1 m2)" -gt 1000 ] && ok || bad "a new sentence: every layer computed again, the slide drawn anew"
rm -f "$tmp"/shots/*.png
key s
ls "$tmp"/shots/gpt2-01-multi_head-*-h2-1.png >/dev/null 2>&1 && ok ||
    bad "the new sentence's slide is the same stage and head: $(ls "$tmp"/shots)"
grep -q 'error' "$tmp/model.log" && bad "the window said: $(cat "$tmp/model.log")" || ok
quit model
e2e_start nomodel "$tmp/course/tour.lesson" 1280x720
SAID_TOAST=""
key i
case $SAID_TOAST in *"reads no model"*) ok ;; *) bad "I on a lesson without a model says so, said: $SAID_TOAST" ;; esac
quit nomodel

# ---- the picker: the folder named, the user's own, the bundled; recent first
rm -rf "$XDG_STATE_HOME"
e2e_start picker "" 1280x720 "$tmp/folder" --shots "$tmp/shots"
key 2                                       # 1 folder.lesson, 2 mine.lesson (the user's), 3... bundled
shows mine && ok || bad "the picker lists the user's own lesson second, after the folder's"
key l 1
shows mine && ok || bad "the lesson opened last comes first in the picker"
key l 2
shows folder && ok || bad "the folder given on the command line is in the picker"
key l Up Return                             # from the first to the last
shows 13-a-whole-block && ok || bad "the bundled lessons follow (the last one is lesson 13)"

# ---- Ctrl+P: the lesson as a PDF handout
key ctrl+p
[ -f "$tmp/shots/13-a-whole-block.pdf" ] && ok || bad "Ctrl+P writes shots/13-a-whole-block.pdf"
pages=$(pdfinfo "$tmp/shots/13-a-whole-block.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
want=$("$bin" --export "$tmp/handout-png" "$top/lessons/13-a-whole-block.lesson" 2>/dev/null | wc -l)
[ "$pages" = "$want" ] && ok || bad "the handout has a page per stage and sub-step ($want, as --export writes), got ${pages:-none}"
quit picker

cd "$top"
summary "e2e_open"
