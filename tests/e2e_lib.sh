# e2e_lib.sh: what tests/e2e.sh and tests/e2e_text.sh share (bash, sourced):
# a display, a window on a lesson, and waiting for events, never for time.
#
# - Xvfb picks a free display itself and says which (-displayfd); openbox
#   says when it manages the screen (--startup).
# - The window says when a frame is on screen (ATTNLAB_READY_FD, see
#   src/app/window.c): `settle` presses F12 (bound to nothing) after the
#   input and waits for the line that names it, so the screenshot that
#   follows shows the frame drawn after all of the input.
# - Keys are typed as on a keyboard (`type_keys`: XTEST into the window,
#   which is given the focus first), so that the X server sees each key go
#   down and up again even when the key closes the window; `press` and
#   `key` confirm that the window handled every key they typed.
# - `park` moves the pointer off the window before a picture that must not
#   show a hover.
# - Every wait ends after $hang seconds (30, times TIME_SCALE, the
#   Makefile's factor for a busy machine or a sanitizer build): a hang fails
#   the test, a slow machine does not.
#
# The including script starts with tests/tlib.sh (bin, top, tmp, ok/bad:
# t_start, then t_tmp); this file adds e2e_cleanup to what runs when it
# exits. Then e2e_display once, and e2e_start for each window.

scale=${TIME_SCALE:-1}
hang=$((30 * scale))
app=""; xvfb=""; wm=""; win=""
t_on_exit="$t_on_exit e2e_cleanup"

# e2e_cleanup: stop what was started (the window, the window manager, Xvfb).
e2e_cleanup() {
    [ -n "$app" ] && kill "$app" 2>/dev/null
    [ -n "$wm" ] && kill "$wm" 2>/dev/null
    [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null
    wait 2>/dev/null
}

# wait_for WHAT CMD...: run CMD until it succeeds, 20 ms apart; after $hang
# seconds, fail with WHAT.
wait_for() {
    what=$1; shift
    end=$(($(date +%s) + hang))
    until "$@"; do
        if [ "$(date +%s)" -ge "$end" ]; then bad "$what (waited ${hang}s)"; return 1; fi
        sleep 0.02
    done
}

# e2e_display WxH: Xvfb with one screen of that size, and openbox on it.
# The window's remembered state and the user's lessons go to $tmp, never
# to the home directory of whoever runs the tests.
e2e_display() {
    export XDG_STATE_HOME="$tmp/xdg-state" XDG_DATA_HOME="$tmp/xdg-data"
    mkfifo "$tmp/displayfd"
    Xvfb -displayfd 9 -screen 0 "$1"x24 -nolisten tcp 9>"$tmp/displayfd" >"$tmp/xvfb.log" 2>&1 &
    xvfb=$!
    d=""
    read -r -t "$hang" d <"$tmp/displayfd"
    [ -n "$d" ] || { bad "Xvfb did not start: $(cat "$tmp/xvfb.log")"; exit 1; }
    export DISPLAY=":$d"
    # a window manager, as on a real desktop (fullscreen is its job)
    openbox --startup "touch $tmp/wm-up" >"$tmp/wm.log" 2>&1 &
    wm=$!
    wait_for "openbox did not start: $(cat "$tmp/wm.log" 2>/dev/null)" test -e "$tmp/wm-up" || exit 1
}

# next_line: the window's next announcement, into FRAME, KEYS, RELOADS,
# TOAST and KEY (LINE holds it whole: "quit" when the window has closed);
# the words it said on the way (a new toast, the slide's note) go into
# SAID_TOAST and SAID_NOTE; false after $hang seconds without one.
next_line() {
    while IFS= read -r -t "${1:-$hang}" -u 8 LINE; do
        case $LINE in
            "said toast="*) SAID_TOAST=${LINE#said toast=} ;;
            "said note="*) SAID_NOTE=${LINE#said note=} ;;
            *) break ;;
        esac
    done
    [ -n "$LINE" ] || return 1
    case $LINE in "said "*) return 1 ;; esac
    [ "$LINE" = quit ] && return 0
    FRAME=${LINE#frame=}; FRAME=${FRAME%% *}
    KEYS=${LINE#* keys=}; KEYS=${KEYS%% *}
    RELOADS=${LINE#* reloads=}; RELOADS=${RELOADS%% *}
    TOAST=${LINE#* toast=}; TOAST=${TOAST%% *}
    KEY=${LINE#* key=}
}

# e2e_start NAME LESSON WxH [ARGS...]: the window on LESSON ("": none, the
# picker) at --size WxH ("-": no --size, the window's own choice), output
# in $tmp/NAME.log; returns once its first frame is on screen, with $app
# and $win set.
e2e_start() {
    name=$1 lesson=$2 size=$3; shift 3
    set -- ${lesson:+"$lesson"} "$@"
    [ "$size" = - ] || set -- --size "$size" "$@"
    rm -f "$tmp/ready"; mkfifo "$tmp/ready"
    exec 8<>"$tmp/ready"
    # Under AddressSanitizer the window keeps every check but the leak
    # check: SDL unloads the X11 libraries it opened before LeakSanitizer
    # runs, so their few hundred bytes of per-display caches show up as
    # leaks of "<unknown module>" that no suppression can name. Leaks in our
    # code are caught by the unit suites (which drive the same state and
    # frame code) and by valgrind.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ATTNLAB_READY_FD=8 \
        "$bin" "$@" >"$tmp/$name.log" 2>&1 &
    app=$!
    FRAME=0 KEYS=0 RELOADS=0 TOAST=0 KEY=- SAID_TOAST="" SAID_NOTE=""
    if ! next_line; then bad "$name: no frame within ${hang}s"; cat "$tmp/$name.log"; exit 1; fi
    win=$(timeout "$hang" xdotool search --sync --name '^attnlab$' 2>/dev/null | head -1)
    if [ -n "$win" ]; then ok; else bad "$name: the window did not appear"; cat "$tmp/$name.log"; exit 1; fi
}

# type_keys KEYS...: the keys typed into the window: it gets the focus
# (--sync waits until it has it), then each key goes down and up through
# XTEST, as from a keyboard. Not `xdotool key --window`: that types through
# XTEST while the window has the focus and sends a synthetic event when it
# has not, so Q went down through XTEST, closed the window, and went up as
# a synthetic event to a window that no longer existed (BadWindow). The X
# server then held Q down, and dropped the next window's first Q as a
# press of a key that is already down: that window never quit.
type_keys() { xdotool windowfocus --sync "$win" key "$@" 2>/dev/null; }

# settle: the frame after everything sent so far is on screen: F12, bound
# to nothing, is typed behind the input, and the window's line that names
# it follows everything typed before it.
settle() {
    local k0=$KEYS
    type_keys F12
    while next_line; do
        [ "$LINE" = quit ] && { bad "the window closed"; return 1; }
        [ "$KEYS" -gt "$k0" ] && [ "$KEY" = F12 ] && return 0
    done
    bad "no frame after the input within ${hang}s"
    return 1
}

# press KEY: one key or chord (ctrl+s: each part is a press) typed into the
# window, then the frame that follows it; the window's count of the keys it
# handled confirms that it had every press. A key that closes the window
# ends with its "quit" line.
press() {
    local k0=$KEYS n
    n=$(( $(printf %s "$1" | tr -cd + | wc -c) + 1 ))
    type_keys "$1" F12
    while next_line; do
        [ "$LINE" = quit ] && return 0
        [ "$KEY" = F12 ] && [ "$KEYS" -gt "$k0" ] || continue
        [ $((KEYS - k0)) -gt "$n" ] && return 0
        bad "the window handled $((KEYS - k0 - 1)) of the $n presses of $1"
        return 1
    done
    bad "no frame after $1 within ${hang}s"
    return 1
}

# reloaded: wait until the window has picked up a change of its lesson file
# (it looks twice a second), then settle.
reloaded() {
    local r0=$RELOADS
    while next_line; do
        [ "$RELOADS" -gt "$r0" ] && { settle; return; }
    done
    bad "the window did not pick up the changed file within ${hang}s"
    return 1
}

# quiet: no passing message on screen (its end draws a frame).
quiet() {
    while [ "$TOAST" = 1 ]; do
        next_line || { bad "the message did not go within ${hang}s"; return 1; }
    done
}

# key KEYS...: keys to the window one by one, each confirmed (press), then
# the frame that follows the last.
key() {
    local k
    for k in "$@"; do press "$k" || return 1; done
}

# park: the pointer off the window (the screen's top left corner is outside
# it unless it is fullscreen), then the frame without a hover.
park() { xdotool mousemove 0 0 2>/dev/null; settle; }

# geometry: the window's size as WxH.
geometry() { xdotool getwindowgeometry "$win" | awk '/Geometry/ { print $2 }'; }
# has_geometry WxH: whether the window has that size now.
has_geometry() { [ "$(geometry)" = "$1" ]; }

# shot NAME: the whole screen as it is now, in $tmp/NAME.png.
shot() { import -window root "$tmp/$1.png"; }
# differ A B: how many pixels differ between two screenshots.
differ() { compare -metric AE "$tmp/$1.png" "$tmp/$2.png" null: 2>&1 | awk '{ printf "%d", $1 }'; }

# stop NAME: where the window is (its main thread's stack, the end of its
# log), then kill it: a window that should have closed and did not.
stop() {
    command -v gdb >/dev/null && gdb -p "$app" -batch -ex "thread 1" -ex "bt" 2>/dev/null | grep "^#" | head -40
    tail -5 "$tmp/$1.log"
    kill "$app"
}

# quit NAME: Q, then exit status 0 and no sanitizer report in the log.
# Q goes with the F12 probe behind it: the window either closes (and says
# "quit") or, still open, names F12: then it did not have the Q, or had it
# and stayed open, and either fails. After "quit", a window still running
# hangs in shutting down.
quit() {
    local k0=$KEYS closed=""
    type_keys q F12
    while next_line; do
        [ "$LINE" = quit ] && { closed=yes; break; }
        [ "$KEY" = F12 ] && [ "$KEYS" -gt "$k0" ] || continue
        if [ "$KEYS" -eq $((k0 + 1)) ]; then closed="the window did not have the Q"
        else closed="the window had the Q and stayed open"; fi
        break
    done
    if [ "$closed" != yes ]; then
        bad "$1: ${closed:-no line from the window ${hang}s after Q}"
        stop "$1"
    elif ! timeout "$hang" tail -s 0.05 --pid="$app" -f /dev/null; then
        bad "$1: still running ${hang}s after it said it closed"
        stop "$1"
    fi
    wait "$app"
    code=$?
    app=""
    exec 8<&-
    if [ "$code" -eq 0 ]; then ok; else bad "$1: Q exits 0 (got $code)"; cat "$tmp/$1.log"; fi
    if grep -q 'AddressSanitizer\|runtime error' "$tmp/$1.log"; then bad "$1: sanitizer report"; cat "$tmp/$1.log"; else ok; fi
}
