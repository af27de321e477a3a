#!/bin/sh
# cli.sh: command-line behaviour of the attnlab binary ($ATTNLAB): exit codes,
# where output goes, and the JSON dump of every bundled lesson.
set -u
bin=${ATTNLAB:-build/attnlab}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect CODE CMD...: run CMD, compare its exit code
expect() { want=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; got=$?; [ "$got" -eq "$want" ] && ok || bad "$* exited $got, expected $want"; }

expect 0 "$bin" --version
grep -q '^attnlab [0-9]' "$tmp/out" && ok || bad "--version prints the version"
expect 0 "$bin" --help
grep -q -- '--dump' "$tmp/out" && ok || bad "--help mentions --dump"
expect 2 "$bin" --no-such-flag
grep -q '^usage:' "$tmp/err" && ok || bad "unknown flag prints usage on stderr"

expect 0 "$bin" --check lessons/*.lesson
[ "$(grep -c ': ok' "$tmp/out")" -eq "$(ls lessons/*.lesson | wc -l)" ] && ok || bad "--check reports every lesson ok"

printf 'title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 x\n[softmax]\n' >"$tmp/bad.lesson"
expect 2 "$bin" --check "$tmp/bad.lesson"
grep -qx "$tmp/bad.lesson:6:5: error: expected a number, found 'x'" "$tmp/err" && ok || bad "error line FILE:LINE:COL: error: ..."
[ ! -s "$tmp/out" ] && ok || bad "nothing on stdout for an invalid lesson"
expect 2 "$bin" --check lessons/01-tour.lesson "$tmp/bad.lesson"
expect 1 "$bin" --check "$tmp/missing.lesson"
grep -q 'cannot open' "$tmp/err" && ok || bad "missing file says cannot open"
expect 2 "$bin" --dump "$tmp/bad.lesson"

for f in lessons/*.lesson; do
    expect 0 "$bin" --dump "$f"
    python3 -m json.tool "$tmp/out" >/dev/null 2>&1 && ok || bad "$f: --dump is valid JSON"
done
"$bin" --dump lessons/04-heads-entropy-causal.lesson | grep -q 'null' && ok || bad "masked scores dump as null"

expect 0 "$bin" --list
[ "$(grep -c '\.lesson' "$tmp/out")" -eq "$(ls lessons/*.lesson | wc -l)" ] && ok || bad "--list shows every bundled lesson"
grep -q 'A short tour of attention' "$tmp/out" && ok || bad "--list shows titles"
mkdir "$tmp/empty"; expect 0 "$bin" --list "$tmp/empty"
expect 2 "$bin" --list "$tmp"
expect 1 "$bin" --list "$tmp/nowhere"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
