#!/bin/sh
# cli.sh: command-line behaviour of the attnlab binary ($ATTNLAB): exit codes,
# where output goes, and the JSON dump of every bundled lesson.
set -u
bin=$(readlink -f "${ATTNLAB:-build/attnlab}")
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
[ "$(cat "$tmp/err")" = "attnlab: error: unknown option '--no-such-flag' (see attnlab --help)" ] && ok || bad "unknown flag: one line on stderr, got: $(cat "$tmp/err")"

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

# --export: every stage, headless, deterministic, atomic
expect 0 "$bin" --export "$tmp/png1" lessons/01-tour.lesson lessons/04-heads-entropy-causal.lesson
[ "$(ls "$tmp/png1" | sed -E 's/^(.*-[0-9]{2}-[a-z_]+)-[0-9]{2,}(-[a-z0-9-]+)?\.png$/\1/; s/\.png$//' | sort -u | wc -l)" -eq 17 ] && ok \
    || bad "--export writes a PNG for every stage (17), one for each sub-step of those that have them"
[ -f "$tmp/png1/01-tour-05-softmax.png" ] && ok || bad "export file name DIR/<lesson>-<NN>-<stage>.png"
"$bin" --export "$tmp/png2" lessons/01-tour.lesson lessons/04-heads-entropy-causal.lesson >/dev/null 2>&1
diff -r "$tmp/png1" "$tmp/png2" >/dev/null && ok || bad "exporting twice gives identical bytes"
[ "$(identify -format '%wx%h' "$tmp/png1/01-tour-05-softmax.png")" = 1280x720 ] && ok || bad "default size 1280x720"
expect 0 "$bin" --export "$tmp/big" --scale 2 --theme dark --cmap magma lessons/03-four-words-by-hand.lesson
[ "$(identify -format '%wx%h' "$tmp/big/03-four-words-by-hand-01-embeddings.png")" = 2560x1440 ] && ok || bad "--scale 2 doubles every dimension"
expect 0 "$bin" --export "$tmp/svg" --format svg lessons/*.lesson
n=0; for f in "$tmp"/svg/*.svg; do xmllint --noout "$f" 2>/dev/null || { bad "$f is not valid XML"; n=1; }; done; [ $n -eq 0 ] && ok
grep -q '<text' "$tmp/svg/01-tour-05-softmax.svg" && ok || bad "SVG has real <text> elements"
mkdir "$tmp/ro"; chmod 500 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
    expect 1 "$bin" --export "$tmp/ro" lessons/01-tour.lesson
else
    expect 1 "$bin" --export /proc/attnlab-cannot-write lessons/01-tour.lesson
fi
grep -q 'error' "$tmp/err" && ok || bad "an unwritable directory says why"
ls "$tmp/ro" | grep -q . && bad "an unwritable directory got files" || ok
expect 2 "$bin" --export "$tmp/bad-out" "$tmp/bad.lesson"
expect 2 "$bin" --export "$tmp/x" --format gif lessons/01-tour.lesson
expect 2 "$bin" --export "$tmp/x" --size 10x10 lessons/01-tour.lesson
expect 1 "$bin" --export "$tmp/x" --font /nonexistent.ttf lessons/01-tour.lesson
grep -q 'fonts-dejavu-core' "$tmp/err" && ok || bad "a missing font names the package to install"

# no display: say so, export the tour to ./attnlab-export instead
mkdir "$tmp/nodisplay"
(cd "$tmp/nodisplay" && env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$bin" >"$tmp/out" 2>"$tmp/err"); code=$?
[ $code -eq 0 ] && ok || bad "without a display the program exits 0 (got $code)"
grep -q 'no display available' "$tmp/err" && grep -q 'attnlab-export' "$tmp/err" && ok || bad "without a display it says so and where the files went"
[ -f "$tmp/nodisplay/attnlab-export/01-tour-01-embeddings.png" ] && ok || bad "without a display the tour is exported"
[ "$(identify -format %wx%h "$tmp/nodisplay/attnlab-export/01-tour-01-embeddings.png")" = 1280x720 ] \
    && ok || bad "exports are 16:9 slides (1280x720) by default"
# no display with a lesson: that lesson is exported, not the tour
mkdir "$tmp/nodisplay2"
cp lessons/05-translation.lesson "$tmp/nodisplay2/mine.lesson"
(cd "$tmp/nodisplay2" && env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$bin" mine.lesson >"$tmp/out" 2>"$tmp/err"); code=$?
[ $code -eq 0 ] && [ -f "$tmp/nodisplay2/attnlab-export/mine-01-embeddings.png" ] && [ ! -e "$tmp/nodisplay2/attnlab-export/01-tour-01-embeddings.png" ] \
    && ok || bad "without a display, attnlab FILE exports FILE (got $code: $(cat "$tmp/err"))"

# Catalogues come from the build's own locale/ beside the program and the
# installed LOCALEDIR only: never from a share/locale above the program
# (which anyone may create in /tmp), nor from a directory others can write.
de=$(dirname "$bin")/locale/de/LC_MESSAGES/attnlab.mo
printf 'title: T\nlanguage: de\n[setup]\ntokens: a b\nX =\n  1 2\n  3 4\n[softmax]\n' >"$tmp/de.lesson"
# title TREE: the softmax slide's title exported by TREE/bin/attnlab
title() { rm -rf "$tmp/lang-out"; "$1/bin/attnlab" --export "$tmp/lang-out" --format svg "$tmp/de.lesson" >/dev/null 2>&1
          grep -o 'Softmax: [^<]*' "$tmp/lang-out/de-01-softmax.svg" | head -1; }
mkdir -p "$tmp/own/bin/locale/de/LC_MESSAGES" "$tmp/up/bin" "$tmp/up/share/locale/de/LC_MESSAGES" "$tmp/ww/bin/locale/de/LC_MESSAGES"
for t in own up ww; do cp "$bin" "$tmp/$t/bin/attnlab"; done
cp "$de" "$tmp/own/bin/locale/de/LC_MESSAGES/"
cp "$de" "$tmp/up/share/locale/de/LC_MESSAGES/"
cp "$de" "$tmp/ww/bin/locale/de/LC_MESSAGES/"
chmod o+w "$tmp/ww/bin/locale/de"
[ "$(title "$tmp/own")" = "Softmax: aus Scores werden Gewichte" ] && ok || bad "the build's own catalogue is read: $(title "$tmp/own")"
[ "$(title "$tmp/up")" = "Softmax: scores become weights" ] && ok || bad "a share/locale above the program is not read: $(title "$tmp/up")"
[ "$(title "$tmp/ww")" = "Softmax: scores become weights" ] && ok || bad "a catalogue others can write is not read: $(title "$tmp/ww")"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
