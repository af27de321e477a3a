#!/bin/sh
# cli.sh: command-line behaviour of the attnlab binary ($ATTNLAB): exit codes,
# where output goes, and the JSON dump of every bundled lesson.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start cli
t_tmp
# expect CODE CMD...: run CMD, compare its exit code
expect() { want=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; got=$?; [ "$got" -eq "$want" ] && ok || bad "$* exited $got, expected $want"; }

expect 0 "$bin" --version
grep -q '^attnlab [0-9]' "$tmp/out" && ok || bad "--version prints the version"
expect 0 "$bin" --help
grep -q -- '--dump' "$tmp/out" && ok || bad "--help mentions --dump"
expect 2 "$bin" --no-such-flag
[ "$(cat "$tmp/err")" = "attnlab: error: unknown option '--no-such-flag' (see attnlab --help)" ] && ok || bad "unknown flag: one line on stderr, got: $(cat "$tmp/err")"
# an empty value is named, not taken for a directory; --version and --help take nothing else
for v in "--export=" "--font=" "--stage="; do
    expect 2 "$bin" "$v" lessons/01-tour.lesson
    [ "$(cat "$tmp/err")" = "attnlab: error: ${v%=} needs a value, found an empty one (see attnlab --help)" ] && ok || bad "$v: got $(cat "$tmp/err")"
done
expect 2 "$bin" --export "" lessons/01-tour.lesson
grep -qx "attnlab: error: --export needs a value, found an empty one (see attnlab --help)" "$tmp/err" && ok || bad "--export '': $(cat "$tmp/err")"
expect 2 "$bin" --version extra
[ "$(cat "$tmp/err")" = "attnlab: error: --version takes nothing else, found 'extra' (see attnlab --help)" ] && [ ! -s "$tmp/out" ] && ok || bad "--version extra: $(cat "$tmp/err")"
expect 2 "$bin" --help lessons/01-tour.lesson
grep -q "^attnlab: error: --help takes nothing else, found 'lessons/01-tour.lesson'" "$tmp/err" && ok || bad "--help FILE: $(cat "$tmp/err")"

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

# no display: say so and exit 1 (a runtime failure), writing nothing; a
# DISPLAY that cannot be reached the same, without other libraries' noise
mkdir "$tmp/nodisplay"
(cd "$tmp/nodisplay" && env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$bin" >"$tmp/out" 2>"$tmp/err"); code=$?
[ $code -eq 1 ] && ok || bad "without a display the window exits 1 (got $code)"
[ "$(cat "$tmp/err")" = "attnlab: error: no display (DISPLAY and WAYLAND_DISPLAY are not set): the window cannot open; attnlab --export DIR LESSON writes the pictures without one" ] \
    && ok || bad "without a display it says so in one line, and what works: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/nodisplay")" ] && ok || bad "without a display nothing is written: $(ls -A "$tmp/nodisplay")"
(cd "$tmp/nodisplay" && env -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER -u XDG_RUNTIME_DIR DISPLAY=:7391 "$bin" "$top/lessons/05-translation.lesson" \
    >"$tmp/out" 2>"$tmp/err"); code=$?
[ $code -eq 1 ] && [ "$(cat "$tmp/err")" = "attnlab: error: no display (cannot connect to DISPLAY=:7391): the window cannot open; attnlab --export DIR LESSON writes the pictures without one" ] \
    && ok || bad "a DISPLAY that cannot be reached: exit 1 and one line (got $code: $(cat "$tmp/err"))"
[ -z "$(ls -A "$tmp/nodisplay")" ] && ok || bad "with a broken DISPLAY nothing is written"
(cd "$tmp/nodisplay" && env -u DISPLAY -u WAYLAND_DISPLAY "$bin" --export out "$top/lessons/05-translation.lesson" >/dev/null 2>&1) \
    && [ -f "$tmp/nodisplay/out/05-translation-01-embeddings.png" ] && ok || bad "--export needs no display"

# GNU conventions: --opt=value, abbreviations, --, - for standard input
expect 0 "$bin" --export="$tmp/eq" --format=svg --theme=dark lessons/03-four-words-by-hand.lesson
[ -f "$tmp/eq/03-four-words-by-hand-01-embeddings.svg" ] && grep -q '#1' "$tmp/eq/03-four-words-by-hand-01-embeddings.svg" \
    && ok || bad "--export=DIR --format=svg --theme=dark"
expect 0 "$bin" --exp "$tmp/abbr" --form svg lessons/03-four-words-by-hand.lesson
[ -f "$tmp/abbr/03-four-words-by-hand-01-embeddings.svg" ] && ok || bad "options shortened while unambiguous (--exp, --form)"
cp lessons/01-tour.lesson "$tmp/-dash.lesson"
(cd "$tmp" && "$bin" --check -- -dash.lesson >"$tmp/out" 2>"$tmp/err"); code=$?
[ $code -eq 0 ] && grep -qx -- '-dash.lesson: ok (10 stages)' "$tmp/out" && ok || bad "-- ends the options: a lesson named -dash.lesson (got $code: $(cat "$tmp/err"))"
"$bin" --check - <lessons/01-tour.lesson >"$tmp/out" 2>"$tmp/err" && grep -qx '<stdin>: ok (10 stages)' "$tmp/out" \
    && ok || bad "--check - reads standard input: $(cat "$tmp/out" "$tmp/err")"
cat lessons/03-four-words-by-hand.lesson | "$bin" --dump - >"$tmp/stdin.json" 2>"$tmp/err" \
    && "$bin" --dump lessons/03-four-words-by-hand.lesson | sed '1s/"lesson": "03-four-words-by-hand"/"lesson": "stdin"/' \
    | cmp -s - "$tmp/stdin.json" && ok || bad "--dump - from a pipe gives the file's dump (named stdin)"
cat lessons/03-four-words-by-hand.lesson | "$bin" --export "$tmp/stdin-out" - >/dev/null 2>"$tmp/err" \
    && [ -f "$tmp/stdin-out/stdin-01-embeddings.png" ] && ok || bad "--export DIR - names the pictures stdin-NN-...: $(ls "$tmp/stdin-out") $(cat "$tmp/err")"
printf 'title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 x\n[softmax]\n' | "$bin" --check - >"$tmp/out" 2>"$tmp/err"; code=$?
[ $code -eq 2 ] && grep -qx "<stdin>:6:5: error: expected a number, found 'x'" "$tmp/err" && ok || bad "an error on standard input is <stdin>:LINE:COL (got $code: $(cat "$tmp/err"))"
expect 2 "$bin" --check - - 
grep -q 'standard input (-) can be read only once' "$tmp/err" && ok || bad "- twice is refused"

# a mistyped option: the nearest one is named
expect 2 "$bin" --exprot "$tmp/x" lessons/01-tour.lesson
[ "$(cat "$tmp/err")" = "attnlab: error: unknown option '--exprot'; did you mean --export? (see attnlab --help)" ] && ok || bad "--exprot suggests --export: $(cat "$tmp/err")"
expect 2 "$bin" --fromat=svg --export "$tmp/x" lessons/01-tour.lesson
grep -q "did you mean --format?" "$tmp/err" && ok || bad "--fromat=svg suggests --format: $(cat "$tmp/err")"
expect 2 "$bin" -export "$tmp/x" lessons/01-tour.lesson
grep -q "unknown option '-export'; did you mean --export?" "$tmp/err" && ok || bad "-export (one dash) suggests --export: $(cat "$tmp/err")"
expect 2 "$bin" --s 2 lessons/01-tour.lesson
[ "$(cat "$tmp/err")" = "attnlab: error: option '--s' is ambiguous: --stage, --size, --scale, --shots (see attnlab --help)" ] && ok || bad "--s is ambiguous: $(cat "$tmp/err")"
expect 2 "$bin" --check=x lessons/01-tour.lesson
grep -q -- "--check takes no value" "$tmp/err" && ok || bad "--check=x: --check takes no value"

# --help and messages in the user's language, from the same catalogues
LANG=de_DE.UTF-8 LC_ALL= LANGUAGE= "$bin" --help >"$tmp/out" 2>&1
grep -q '^Aufruf: attnlab' "$tmp/out" && grep -q 'jede Stufe' "$tmp/out" && ok || bad "LANG=de_DE.UTF-8 attnlab --help is German: $(head -3 "$tmp/out")"
LC_ALL=de_DE.UTF-8 "$bin" --exprot x >"$tmp/out" 2>&1
grep -q "Meinten Sie --export" "$tmp/out" && ok || bad "a German error message: $(cat "$tmp/out")"
LC_ALL=C "$bin" --help | grep -q '^usage: attnlab' && ok || bad "LC_ALL=C attnlab --help is English"

# --format pdf: one PDF per lesson, a page per stage picture, real text, fonts embedded
expect 0 "$bin" --export "$tmp/pdf" --format pdf lessons/01-tour.lesson lessons/10-inference.lesson lessons/11-japanese-to-english.lesson
[ "$(ls "$tmp/pdf")" = "$(printf '01-tour.pdf\n10-inference.pdf\n11-japanese-to-english.pdf')" ] && ok || bad "--format pdf writes DIR/<lesson>.pdf: $(ls "$tmp/pdf")"
pages() { pdfinfo "$1" | awk '/^Pages:/ { print $2 }'; }
[ "$(pages "$tmp/pdf/01-tour.pdf")" = 10 ] && ok || bad "the tour's PDF has its 10 stages as pages: $(pages "$tmp/pdf/01-tour.pdf")"
n10=$("$bin" --export "$tmp/png10" lessons/10-inference.lesson | wc -l)
[ "$(pages "$tmp/pdf/10-inference.pdf")" = "$n10" ] && ok || bad "lesson 10's PDF has a page per picture --export writes ($n10, sub-steps too): $(pages "$tmp/pdf/10-inference.pdf")"
pdfinfo "$tmp/pdf/01-tour.pdf" | grep -q '^Title: *A short tour of attention$' && ok || bad "the PDF's title is the lesson's"
pdftotext -f 5 -l 5 "$tmp/pdf/01-tour.pdf" - | grep -q 'From scores to weights' && ok || bad "page 5's title is searchable text"
pdftotext -f 5 -l 5 "$tmp/pdf/01-tour.pdf" - | grep -q 'Softmax exponentiates each score' && ok || bad "the explanation is text"
pdftotext -f 1 -l 1 "$tmp/pdf/11-japanese-to-english.pdf" - | grep -q '日本語から英語へ' && ok || bad "Japanese text is searchable"
[ "$(pdffonts "$tmp/pdf/11-japanese-to-english.pdf" | awk 'NR > 2 && $(NF-4) != "yes"' | wc -l)" = 0 ] && ok || bad "every font is embedded: $(pdffonts "$tmp/pdf/11-japanese-to-english.pdf")"
pdffonts "$tmp/pdf/01-tour.pdf" | grep -q 'DejaVuSans' && ok || bad "the PDF's text is in DejaVu Sans"
"$bin" --export "$tmp/pdf2" --format pdf lessons/01-tour.lesson >/dev/null 2>&1
cmp -s "$tmp/pdf/01-tour.pdf" "$tmp/pdf2/01-tour.pdf" && ok || bad "the same lesson gives the same PDF bytes"
expect 1 "$bin" --export /proc/attnlab-no --format pdf lessons/01-tour.lesson
expect 2 "$bin" --export "$tmp/x" --format=gif lessons/01-tour.lesson
grep -q "png, svg or pdf" "$tmp/err" && ok || bad "--format names png, svg and pdf"

# --stage: the stages --dump and --export keep; --export - writes one picture to standard output
expect 0 "$bin" --dump --stage 2,4 lessons/13-a-whole-block.lesson
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit([s["index"] for s in d["stages"]] != [2, 4])' "$tmp/out" \
    && ok || bad "--dump --stage 2,4 dumps stages 2 and 4, keeping their numbers"
expect 0 "$bin" --export "$tmp/staged" --stage 3-4 lessons/13-a-whole-block.lesson
[ "$(ls "$tmp/staged" | tr '\n' ' ')" = "13-a-whole-block-03-mlp-01-part1.png 13-a-whole-block-03-mlp-02-part2.png \
13-a-whole-block-03-mlp-03-part3.png 13-a-whole-block-03-mlp-04-part4.png 13-a-whole-block-04-next_token.png " ] && ok \
    || bad "--export --stage 3-4 writes the MLP's four pages and the next token: $(ls "$tmp/staged")"
"$bin" --export - --stage 4 lessons/13-a-whole-block.lesson >"$tmp/one.png" 2>"$tmp/err" \
    && cmp -s "$tmp/one.png" "$tmp/staged/13-a-whole-block-04-next_token.png" && ok \
    || bad "--export - --stage 4 writes the same PNG to standard output: $(cat "$tmp/err")"
(cd lessons && "$bin" --export - --stage 11 --format svg - <07-induction-head.lesson) >"$tmp/one.svg" 2>"$tmp/err" \
    && xmllint --noout "$tmp/one.svg" && ok || bad "a lesson from standard input, its files found from the working directory, one SVG out: $(cat "$tmp/err")"
expect 2 "$bin" --export - --stage 2 lessons/13-a-whole-block.lesson
grep -q "unfolds into 4 pictures" "$tmp/err" && ok || bad "--export - of a stage of several pages is refused: $(cat "$tmp/err")"
expect 2 "$bin" --export - lessons/13-a-whole-block.lesson
grep -qx "lessons/13-a-whole-block.lesson: error: --export - writes one picture to standard output, but the lesson has several stages; choose one stage with --stage N" "$tmp/err" \
    && ok || bad "--export - of several stages is refused: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] && ok || bad "nothing on standard output when --export - is refused"
expect 2 "$bin" --dump --stage 9 lessons/13-a-whole-block.lesson
grep -qx "lessons/13-a-whole-block.lesson: error: --stage 9: the lesson has 4 stages" "$tmp/err" && ok || bad "a stage past the last: $(cat "$tmp/err")"
expect 2 "$bin" --check --stage 1 lessons/13-a-whole-block.lesson
expect 2 "$bin" --dump --stage 0 lessons/13-a-whole-block.lesson
expect 2 "$bin" --export - --format pdf --stage 1 lessons/13-a-whole-block.lesson

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

# --model FOLDER [SENTENCE...]: a model folder as a lesson (tests/tiny_model.py's GPT-2 of two layers)
/usr/bin/python3 tests/tiny_model.py "$tmp/gpt2"
expect 0 "$bin" --model "$tmp/gpt2" --check The cat sat
[ "$(cat "$tmp/out")" = "<stdin>: ok (6 stages)" ] && ok || bad "--model --check: every layer's heads and MLP, the next token, the model view: $(cat "$tmp/out") $(cat "$tmp/err")"
expect 0 "$bin" --model "$tmp/gpt2" --dump --stage 1 "The cat sat"
grep -q '"row_labels": \["The", "\\u0120cat", "\\u0120sat"\]\|"row_labels": \["The", "Ġcat", "Ġsat"\]' "$tmp/out" && ok ||
    bad "--model --dump: the tokens as GPT-2's tokenizer writes them: $(head -c 300 "$tmp/out")"
expect 0 "$bin" --model "$tmp/gpt2" --export "$tmp/model-png" --stage 3 "the cat"
ls "$tmp"/model-png/gpt2-03-*.png >/dev/null 2>&1 && ok || bad "--model --export names the pictures after the folder: $(ls "$tmp/model-png")"
expect 1 "$bin" --model "$tmp/nowhere" --check
[ "$(cat "$tmp/err")" = "$tmp/nowhere/config.json: error: cannot open: No such file or directory" ] && ok || bad "--model of a missing folder: $(cat "$tmp/err")"
expect 1 env HOME="$tmp/home" XDG_DATA_HOME= "$bin" --model gpt3 --check
[ "$(cat "$tmp/err")" = "attnlab: error: no model gpt3: not a folder here, nor in $tmp/home/.local/share/attnlab/models (the README says how to download one)" ] && ok ||
    bad "--model of a name found nowhere: $(cat "$tmp/err")"
mkdir -p "$tmp/home/.local/share/attnlab/models" && cp -r "$tmp/gpt2" "$tmp/home/.local/share/attnlab/models/small"
expect 0 env HOME="$tmp/home" XDG_DATA_HOME= "$bin" --model small --check the cat
expect 2 "$bin" --model "$tmp/gpt2" --list
[ "$(cat "$tmp/err")" = "attnlab: error: --model cannot be combined with --list (see attnlab --help)" ] && ok || bad "--model --list: $(cat "$tmp/err")"
expect 2 "$bin" --model "$tmp/gpt2" --check -
[ "$(cat "$tmp/err")" = "attnlab: error: --model reads its sentence from the arguments, not from standard input (see attnlab --help)" ] && ok ||
    bad "--model -: $(cat "$tmp/err")"
expect 2 "$bin" --model "$tmp/gpt2" --check "$(printf ' the%.0s' $(seq 70))"
[ "$(cat "$tmp/err")" = "attnlab: error: the text is 70 tokens, over the model's limit of 64" ] && ok || bad "a sentence past the positions: $(cat "$tmp/err")"
# the browser's lesson of a folder it was given (its first line marks it): its messages name neither it nor a line of it
printf '# the lesson of attnlab --model\ntitle: t\n[setup]\nmodel: "gpt2"\ntext: "%s"\n' "$(printf ' the%.0s' $(seq 70))" >"$tmp/marked.lesson"
expect 2 "$bin" --check "$tmp/marked.lesson"
[ "$(cat "$tmp/err")" = "attnlab: error: the text is 70 tokens, over the model's limit of 64" ] && ok || bad "a marked lesson's message: $(cat "$tmp/err")"

summary "cli"
