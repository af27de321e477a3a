#!/bin/sh
# faults.sh: what attnlab ($ATTNLAB) does with files that are not lessons,
# with file-system faults while writing, and with a full standard output.
#
#   ATTNLAB=build/attnlab sh tests/faults.sh      (from the repository root)
#
# Every case runs under `timeout`, so a hang fails the case instead of
# blocking the test run. The promise checked each time: the exact exit status
# (1 for I/O, 2 for usage or invalid input), exactly one line on stderr, no
# temporary file left behind, and no existing good file changed.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start faults lessons
t_tmp
chmod 755 "$tmp"            # the read-only case runs as another user
# Time limits catch hangs only: a refusal takes a few tens of milliseconds and
# gets 10 s, an export of the tour well under a second and gets 60 s, both
# times TIME_SCALE (the Makefile's: the machine's load, and 10 for the
# sanitizer build).
scale=${TIME_SCALE:-1}
quick=$((10 * scale))
slow=$((60 * scale))
tour=lessons/01-tour.lesson

# run SECONDS CODE CMD...: run CMD under a timeout, stdout/stderr to files,
# and check its exit status (124 means it hung).
run() {
    secs=$1 want=$2; shift 2
    timeout -s KILL "$secs" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then bad "$* exited $got, expected $want: $(head -c 300 "$tmp/err")"; return 1; fi
    ok
}
# one_line TEXT: stderr is exactly the line TEXT.
one_line() {
    if [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(cat "$tmp/err")" = "$1" ]; then ok
    else bad "stderr should be the one line '$1', got: $(head -c 400 "$tmp/err")"; fi
}
# no_temps DIR: no temporary (.NAME.attnlab-XXXXXX) in DIR.
no_temps() {
    if ls -A "$1" | grep -q '\.attnlab-......$'; then bad "a temporary was left in $1: $(ls -A "$1")"; else ok; fi
}

# same_png A B: the two PNG files are the same bytes (an export is byte for
# byte the same on every run); when they are not, say whether the pixels at
# least agree, and keep both for a look.
same_png() {
    cmp -s "$1" "$2" && return 0
    keep=$(mktemp -d /tmp/attnlab-faults-XXXXXX)
    cp "$1" "$keep/a.png"; cp "$2" "$keep/b.png"
    px=$(compare -metric AE "$1" "$2" null: 2>&1 | awk '{ printf "%d", $1 }')
    echo "faults: $(basename "$2") differs from $(basename "$1") in its bytes ($px pixels differ; both kept in $keep)"
    return 1
}

# ---------------------------------------------------------------- reading
mkfifo "$tmp/pipe.lesson"
ln -s "$tmp/pipe.lesson" "$tmp/link.lesson"
fifo_msg="$tmp/pipe.lesson: error: cannot read: a named pipe (FIFO), not a regular file"
run "$quick" 1 "$bin" --check "$tmp/pipe.lesson" && one_line "$fifo_msg"
run "$quick" 1 "$bin" --dump "$tmp/pipe.lesson" && one_line "$fifo_msg"
run "$quick" 1 "$bin" --export "$tmp/x1" "$tmp/pipe.lesson" && one_line "$fifo_msg"
run "$quick" 1 env -u DISPLAY -u WAYLAND_DISPLAY "$bin" "$tmp/pipe.lesson" && one_line "$fifo_msg"
run "$quick" 1 "$bin" --check "$tmp/link.lesson" \
    && one_line "$tmp/link.lesson: error: cannot read: a named pipe (FIFO), not a regular file"
run "$quick" 1 "$bin" --check /dev/zero && one_line "/dev/zero: error: cannot read: a character device, not a regular file"

# a directory as a lesson: the same I/O error for every command
mkdir "$tmp/dir.lesson"
dir_msg="$tmp/dir.lesson: error: cannot read: a directory, not a regular file"
run "$quick" 1 "$bin" --check "$tmp/dir.lesson" && one_line "$dir_msg"
run "$quick" 1 "$bin" --dump "$tmp/dir.lesson" && one_line "$dir_msg"
run "$quick" 1 env -u DISPLAY -u WAYLAND_DISPLAY "$bin" "$tmp/dir.lesson" && one_line "$dir_msg"

# --list over a directory holding a good lesson, a pipe and a device
mkdir "$tmp/list"
cp "$tour" "$tmp/list/a-good.lesson"
mkfifo "$tmp/list/b-pipe.lesson"
ln -s /dev/zero "$tmp/list/c-zero.lesson"
run "$quick" 1 "$bin" --list "$tmp/list"
[ "$(grep -c . "$tmp/err")" -eq 2 ] \
    && grep -qx "$tmp/list/b-pipe.lesson: error: cannot read: a named pipe (FIFO), not a regular file" "$tmp/err" \
    && grep -qx "$tmp/list/c-zero.lesson: error: cannot read: a character device, not a regular file" "$tmp/err" \
    && ok || bad "--list reports the pipe and the device, one line each: $(cat "$tmp/err")"
grep -q '^a-good.lesson  *A short tour of attention' "$tmp/out" && ok || bad "--list still lists the good lesson"

# fonts: a pipe, /dev/zero and a directory are refused without reading them
hint="; omit --font to use DejaVu Sans (package fonts-dejavu-core)"
run "$quick" 1 "$bin" --export "$tmp/x2" --font "$tmp/pipe.lesson" "$tour" \
    && one_line "attnlab: error: font: $tmp/pipe.lesson: cannot read: a named pipe (FIFO), not a regular file$hint"
run "$quick" 1 "$bin" --export "$tmp/x3" --font /dev/zero "$tour" \
    && one_line "attnlab: error: font: /dev/zero: cannot read: a character device, not a regular file$hint"
run "$quick" 1 "$bin" --export "$tmp/x4" --font "$tmp/dir.lesson" "$tour" \
    && one_line "attnlab: error: font: $tmp/dir.lesson: cannot read: a directory, not a regular file$hint"
for d in x1 x2 x3 x4; do [ -e "$tmp/$d" ] && [ -n "$(ls -A "$tmp/$d")" ] && bad "$d: files were written"; done

# ---------------------------------------------------------------- writing
# The reference: the tour exported normally (first stage only compared).
run "$slow" 0 "$bin" --export "$tmp/ref" "$tour"
first=01-tour-01-embeddings.png

# a file-size limit: exit 1 with one line, the old file kept, no temporary
for fmt in png svg; do
    mkdir "$tmp/lim-$fmt"
    echo old >"$tmp/lim-$fmt/01-tour-01-embeddings.$fmt"
    run "$slow" 1 sh -c "ulimit -f 8; exec \"\$0\" --export \"\$1\" --format $fmt \"\$2\"" "$bin" "$tmp/lim-$fmt" "$tour"
    one_line "$tmp/lim-$fmt/01-tour-01-embeddings.$fmt: error: cannot write: File too large"
    [ "$(cat "$tmp/lim-$fmt/01-tour-01-embeddings.$fmt")" = old ] && ok || bad "ulimit -f ($fmt): the old file changed"
    no_temps "$tmp/lim-$fmt"
done

# a full file system, where a small tmpfs can be mounted (root with unshare)
mkdir "$tmp/full"
if unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$tmp/full'" 2>/dev/null; then
    unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$tmp/full' && echo old >'$tmp/full/$first' &&
        timeout -s KILL $slow '$bin' --export '$tmp/full' '$tour' >'$tmp/out' 2>'$tmp/err'; echo \$? >'$tmp/code';
        cat '$tmp/full/$first' >'$tmp/kept'; ls -A '$tmp/full' >'$tmp/left'"
    [ "$(cat "$tmp/code")" = 1 ] && ok || bad "full file system: exit $(cat "$tmp/code"), expected 1"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q ': error: cannot write: No space left on device$' "$tmp/err" \
        && ok || bad "full file system: one line, got $(cat "$tmp/err")"
    grep -q '\.attnlab-......$' "$tmp/left" && bad "full file system: a temporary was left" || ok
else
    echo "faults: cannot mount a tmpfs here; the full file system case is skipped (ulimit -f covers the same path)"
fi

# a read-only directory: root ignores permissions, so run as nobody when we can
mkdir "$tmp/ro"
cp "$tmp/ref/$first" "$tmp/ro/$first"
chmod 555 "$tmp/ro"
as_user=""
if [ "$(id -u)" -ne 0 ]; then as_user=" "
elif setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ -n "$as_user" ] && $as_user test -r "$tour" -a -x "$bin"; then
    run "$slow" 1 $as_user "$bin" --export "$tmp/ro" --theme dark "$tour" \
        && one_line "$tmp/ro/$first: error: cannot write: Permission denied"
    cmp -s "$tmp/ref/$first" "$tmp/ro/$first" && ok || bad "read-only directory: the existing file changed"
    [ "$(ls -A "$tmp/ro")" = "$first" ] && ok || bad "read-only directory got files: $(ls -A "$tmp/ro")"
else
    echo "faults: no unprivileged user to run as; the read-only directory case is skipped"
fi
chmod 755 "$tmp/ro"

# a parent that is a file, and an output directory that is a file
echo keep >"$tmp/plain"
run "$slow" 1 "$bin" --export "$tmp/plain/sub" "$tour" \
    && one_line "$tmp/plain/sub: error: cannot create the directory: Not a directory"
run "$slow" 1 "$bin" --export "$tmp/plain" "$tour" && one_line "$tmp/plain: error: exists and is not a directory"
[ "$(cat "$tmp/plain")" = keep ] && ok || bad "a file in the way was changed"

# an output name taken by a directory
mkdir -p "$tmp/clash/$first"
run "$slow" 1 "$bin" --export "$tmp/clash" "$tour" && one_line "$tmp/clash/$first: error: cannot write: Is a directory"
[ -d "$tmp/clash/$first" ] && ok || bad "the directory in the way was replaced"
no_temps "$tmp/clash"

# a 251-byte output name is written (its temporary's name is shortened)
long=$(printf '%0233d' 0 | tr 0 n)
printf 'title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 4\n[embeddings]\n' >"$tmp/$long.lesson"
run "$slow" 0 "$bin" --export "$tmp/long" "$tmp/$long.lesson"
name=$(ls -A "$tmp/long")
[ ${#name} -eq 251 ] && [ "$name" = "$long-01-embeddings.png" ] && ok || bad "251-byte output name: got '$name'"

# temp_name BASE RAND: the name fileio gives a temporary of BASE with the
# four random characters RAND (two check characters follow: FNV-1a of the
# name so far, as two of the 62 letters and digits).
temp_name() {
    /usr/bin/python3 -c 'import sys
d = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
n = "." + sys.argv[1] + ".attnlab-" + sys.argv[2]
h = 2166136261
for b in n.encode():
    h = ((h ^ b) * 16777619) & 0xffffffff
print(n + d[h % 62] + d[h // 62 % 62])' "$1" "$2"
}

# stale temporaries: one left by a run killed an hour ago is removed by the
# next export into that directory; a fresh one (a live writer's) is not, nor
# a user's file whose name only looks like ours, nor another user's
mkdir "$tmp/stale"
dead=$(temp_name "$first" Dead) live=$(temp_name other.png Live) mine=$(temp_name notes.txt Mine)
mine=$(echo "$mine" | sed 's/.$/-/; s/-$/0/')
[ "$mine" != "$(temp_name notes.txt Mine)" ] || mine=$(echo "$mine" | sed 's/.$/1/')
theirs=$(temp_name theirs.png Othr)
: >"$tmp/stale/$dead"
touch -d '1 hour ago' "$tmp/stale/$dead"
: >"$tmp/stale/$live"
: >"$tmp/stale/.other.png.tmp-123"
touch -d '1 hour ago' "$tmp/stale/.other.png.tmp-123"
echo "my notes" >"$tmp/stale/$mine"
touch -d '1 hour ago' "$tmp/stale/$mine"
gave=0
if [ "$(id -u)" -eq 0 ]; then
    : >"$tmp/stale/$theirs"
    touch -d '1 hour ago' "$tmp/stale/$theirs"
    chown nobody "$tmp/stale/$theirs" 2>/dev/null && gave=1
fi
run "$slow" 0 "$bin" --export "$tmp/stale" "$tour"
[ ! -e "$tmp/stale/$dead" ] && ok || bad "a stale temporary was not removed"
[ -e "$tmp/stale/$live" ] && ok || bad "a fresh temporary was removed"
[ -e "$tmp/stale/.other.png.tmp-123" ] && ok || bad "a file not named like ours was removed"
[ -e "$tmp/stale/$mine" ] && ok || bad "a user's file whose name only looks like a temporary was removed"
[ $gave = 0 ] || { [ -e "$tmp/stale/$theirs" ] && ok || bad "another user's file named like a temporary was removed"; }

# SIGTERM, SIGINT and SIGHUP mid-export remove the temporary being written
# before the program dies of the signal (strace delivers the signal as the
# temporary's data is written, or as a finished one is renamed): nothing
# is left behind, and the files already written are complete.
if strace -o /dev/null -e trace=none true 2>/dev/null; then
    for case in "TERM write 1 143" "INT write 3 130" "HUP write 2 129" "TERM rename 2 143" "INT rename 4 130"; do
        set -- $case
        rm -rf "$tmp/sig"; mkdir "$tmp/sig"
        strace -f -o /dev/null -e trace="$2" -e inject="$2":signal="$1":when="$3" \
            "$bin" --export "$tmp/sig" "$tour" >/dev/null 2>&1
        got=$?
        [ $got -eq "$4" ] && ok || bad "SIG$1 at $2 $3: exit status $got, expected $4"
        no_temps "$tmp/sig"
        for f in "$tmp"/sig/*.png; do
            [ -e "$f" ] || continue
            same_png "$tmp/ref/$(basename "$f")" "$f" || bad "SIG$1 at $2 $3: $(basename "$f") is not complete"
        done
    done
fi

# SIGKILL mid-export, at the worst instant: the third stage's temporary is
# complete but not yet renamed (strace kills the process as it calls
# rename). Stages 1-2 are new, 3 and later still the old files, and the next
# export removes the orphaned temporary.
mkdir "$tmp/kill"
run "$slow" 0 "$bin" --export "$tmp/kill" --theme dark "$tour"
cp -r "$tmp/kill" "$tmp/kill-old"
if strace -o /dev/null -e trace=none true 2>/dev/null; then
    strace -f -o /dev/null -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:signal=KILL:when=3 \
        "$bin" --export "$tmp/kill" "$tour" >/dev/null 2>&1
    n=0
    for f in "$tmp"/kill-old/*.png; do
        b=$(basename "$f"); n=$((n + 1))
        if [ $n -le 2 ]; then want="$tmp/ref/$b"; else want=$f; fi
        same_png "$want" "$tmp/kill/$b" || bad "SIGKILL: $b is neither as before nor complete"
    done
    ok
    left=$(ls -A "$tmp/kill" | grep '\.attnlab-......$')
    third=$(ls "$tmp/kill-old" | sed -n 3p)
    case $left in ".$third.attnlab-"??????) ok ;; *) bad "SIGKILL before rename should leave one temporary of stage 3, found '$left'" ;; esac
    [ -n "$left" ] && same_png "$tmp/kill/$left" "$tmp/ref/$third" && ok || bad "the orphaned temporary is not the complete stage 3"
    sleep 1.2       # the orphan is now older than the next run by more than FILEIO_STALE_MARGIN
    run "$slow" 0 "$bin" --export "$tmp/kill" "$tour"
    no_temps "$tmp/kill"
    run "$slow" 0 "$bin" --export "$tmp/ref-after" "$tour"
    after_ok=1
    [ "$(ls -A "$tmp/ref-after")" = "$(ls -A "$tmp/kill")" ] || after_ok=0
    for f in "$tmp"/ref-after/*.png; do
        same_png "$f" "$tmp/kill/$(basename "$f")" || after_ok=0
    done
    [ $after_ok = 1 ] && ok || bad "the export after the kill is not complete: $(diff -rq "$tmp/ref-after" "$tmp/kill" 2>&1 | head -3)"
else
    echo "faults: strace cannot trace here; the SIGKILL case is skipped (stale temporaries are still checked above)"
fi

# a dangling symbolic link as the export directory is named as one
ln -s "$tmp/nowhere" "$tmp/dangling"
run "$quick" 1 "$bin" --export "$tmp/dangling" "$tour"
one_line "$tmp/dangling: error: is a symbolic link to $tmp/nowhere, which does not exist: create that directory, or remove the link"
[ ! -e "$tmp/nowhere" ] && ok || bad "the link's target was created"

# a newline in a file name is written \n: every message stays one line
nl='
'
printf 'title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 x\n[softmax]\n' >"$tmp/two${nl}lines.lesson"
run "$quick" 2 "$bin" --check "$tmp/two${nl}lines.lesson"
one_line "$tmp/two\\nlines.lesson:6:5: error: expected a number, found 'x'"
run "$quick" 1 "$bin" --check "$tmp/no${nl}such.lesson"
one_line "$tmp/no\\nsuch.lesson: error: cannot open: No such file or directory"
printf 'title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 4\n[softmax]\n' >"$tmp/ok${nl}name.lesson"
run 60 0 "$bin" --export "$tmp/nl-out" "$tmp/ok${nl}name.lesson"
[ "$(cat "$tmp/out")" = "$tmp/nl-out/ok\\nname-01-softmax.png" ] && ok || bad "an exported file with a newline in its name is listed on one line: $(cat "$tmp/out")"
[ -f "$tmp/nl-out/ok${nl}name-01-softmax.png" ] && ok || bad "the file keeps its real name"

# ---------------------------------------------------------------- stdout
full_msg="attnlab: error: cannot write to standard output: No space left on device"
for args in "--check $tour" "--list" "--list lessons" "--export $tmp/out-full $tour" "--dump $tour" "--help" "--version"; do
    timeout -s KILL "$slow" "$bin" $args >/dev/full 2>"$tmp/err"
    got=$?
    [ $got -eq 1 ] && ok || bad "$args >/dev/full exited $got, expected 1"
    one_line "$full_msg"
done

# ---------------------------------------------------------------- usage
run "$quick" 2 "$bin" --export "$tmp/big" --size 8192x8192 --scale 4 "$tour"
big_msg="attnlab: error: --size 8192x8192 at --scale 4 makes a 32768x32768 canvas, over the limit of 16384 pixels a side (see attnlab --help)"
one_line "$big_msg"
run "$quick" 2 "$bin" --export "$tmp/big" --format svg --size 8192x8192 --scale 4 "$tour" && one_line "$big_msg"
[ ! -e "$tmp/big" ] && ok || bad "a refused canvas still created the directory"
run "$quick" 2 "$bin" --dump && one_line "attnlab: error: --dump takes exactly one lesson (see attnlab --help)"

summary "faults"
