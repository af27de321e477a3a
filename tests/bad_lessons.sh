#!/bin/sh
# bad_lessons.sh: every bad lesson in tests/bad-lessons/ is rejected with
# exactly the error line in its .expected file, and the lessons in
# tests/bad-lessons/accept/ are accepted.
#
#   ATTNLAB=build/attnlab sh tests/bad_lessons.sh      (from the repository root)
#
# For each NN-what.lesson: `attnlab --check` exits 2 (1 when the expected
# line is an I/O error, "cannot open" or "cannot read"), prints nothing on
# stdout and exactly the one line of NN-what.expected on stderr. Lessons too
# big to keep in git are NN-what.gen: a sh script that writes the lesson on
# stdout; it is generated into a temporary tests/bad-lessons/ and checked
# from there, so its error names the same relative path. Decisions about
# what each kind of bad input gives: tests/bad-lessons/README.md.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
dir=tests/bad-lessons
t_start bad-lessons "$dir"
t_tmp
mkdir -p "$tmp/$dir"

# check NAME ROOT: run --check on $dir/NAME.lesson from directory ROOT and
# compare with $dir/NAME.expected.
check() {
    name=$1 root=$2
    expected=$dir/$name.expected
    if [ ! -f "$expected" ]; then bad "$name: no $expected"; return; fi
    want=2
    grep -q -e ': error: cannot open' -e ': error: cannot read' "$expected" && want=1
    (cd "$root" && "$bin" --check "$dir/$name.lesson") >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then bad "$name: exit status $got, expected $want"; return; fi
    if [ -s "$tmp/out" ]; then bad "$name: wrote to stdout: $(head -c 200 "$tmp/out")"; return; fi
    if ! cmp -s "$expected" "$tmp/err"; then
        bad "$name: stderr differs"
        echo "  expected: $(cat "$expected")"
        echo "  got:      $(head -c 600 "$tmp/err")"
        return
    fi
    ok
}

for f in "$dir"/*.lesson; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .lesson)
    check "$name" .
done
for g in "$dir"/*.gen; do
    [ -f "$g" ] || continue
    name=$(basename "$g" .gen)
    if ! sh "$g" >"$tmp/$dir/$name.lesson"; then bad "$name: $g failed"; continue; fi
    check "$name" "$tmp"
    rm -f "$tmp/$dir/$name.lesson"
done
# an .expected with no lesson is a test that silently stopped running
for e in "$dir"/*.expected; do
    [ -f "$e" ] || continue
    name=$(basename "$e" .expected)
    [ -f "$dir/$name.lesson" ] || [ -f "$dir/$name.gen" ] || bad "$e: no $name.lesson or $name.gen"
done

# Windows line endings and a byte-order mark are accepted.
for f in "$dir"/accept/*.lesson; do
    [ -f "$f" ] || continue
    "$bin" --check "$f" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 0 ]; then bad "$f: exit status $got, expected 0: $(head -c 300 "$tmp/err")"; continue; fi
    if [ -s "$tmp/err" ]; then bad "$f: wrote to stderr: $(head -c 300 "$tmp/err")"; continue; fi
    grep -q "^$f: ok" "$tmp/out" && ok || bad "$f: stdout does not say ok"
done

summary "bad-lessons"
