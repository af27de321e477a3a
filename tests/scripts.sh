#!/bin/sh
# scripts.sh: lessons in many writing systems (tests/scripts/*.lesson) export
# without a missing-glyph warning, name their fallback fonts in SVG, and a
# character no installed font has is reported once, at its line and column,
# without changing the exit status. --font refuses devices and FIFOs at once.
set -u
bin=$(readlink -f "${ATTNLAB:-build/attnlab}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. ./tests/tcount.sh                     # ok, bad, summary (run from the top of the tree)

for f in tests/scripts/*.lesson; do
    name=$(basename "$f" .lesson)
    "$bin" --check "$f" >"$tmp/out" 2>"$tmp/err" && ok || bad "$f: --check exits 0"
    [ ! -s "$tmp/err" ] && ok || { bad "$f: --check warns"; cat "$tmp/err"; }
    "$bin" --export "$tmp/png" "$f" >/dev/null 2>"$tmp/err" && ok || bad "$f: PNG export exits 0"
    [ ! -s "$tmp/err" ] && ok || { bad "$f: PNG export warns"; cat "$tmp/err"; }
    "$bin" --export "$tmp/svg" --format svg "$f" >/dev/null 2>"$tmp/err" && ok || bad "$f: SVG export exits 0"
    fam=$(grep -o '<g font-family="[^"]*"' "$tmp/svg/$name-01-embeddings.svg" | head -1)
    case "$name" in
        zh|ja|ko) want="Noto Sans CJK" ;;
        hi) want="Noto Sans Devanagari" ;;
        th) want="Noto Sans Thai" ;;
        emoji) want="Noto Color Emoji" ;;
        *) want="DejaVu Sans, sans-serif\"" ;;
    esac
    case "$fam" in *"\"DejaVu Sans, "*) ok ;; *) bad "$name: SVG fonts start with DejaVu Sans: $fam" ;; esac
    case "$fam" in *"$want"*) ok ;; *) bad "$name: SVG fonts name $want: $fam" ;; esac
done
# A Latin lesson's SVG keeps the plain list.
"$bin" --export "$tmp/latin" --format svg lessons/01-tour.lesson >/dev/null 2>&1
grep -q '<g font-family="DejaVu Sans, sans-serif">' "$tmp/latin/tour-01-embeddings.svg" 2>/dev/null \
    || grep -q '<g font-family="DejaVu Sans, sans-serif">' "$tmp"/latin/*-01-*.svg && ok || bad "Latin SVG font list"

# Nag Mundari (U+1E4D0): no font in the Debian packages draws it.
printf 'title: Missing \360\236\223\220 here\n[setup]\nseed: 1\ntokens: a \360\236\223\220b \360\236\223\220\nX = randn 3x2\n[softmax]\n' >"$tmp/miss.lesson"
"$bin" --check "$tmp/miss.lesson" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "--check with a missing glyph still exits 0"
# fonts-noto-core is installed and lacks it: no package would bring it
[ "$(cat "$tmp/err")" = "$tmp/miss.lesson:1:16: warning: no installed font has U+1E4D0" ] \
    && ok || { bad "one warning at the first place"; cat "$tmp/err"; }
"$bin" --export "$tmp/m" "$tmp/miss.lesson" >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "--export with a missing glyph still exits 0"
[ "$(grep -c 'warning: no installed font has U+1E4D0' "$tmp/err")" -eq 1 ] && ok || bad "--export warns once"

# With only DejaVu Sans visible to fontconfig, the warning names the package
# of the character's script; never one for a code point no package brings
# (U+0378, unassigned).
cat >"$tmp/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>$tmp/fccache</cachedir></fontconfig>
EOF
printf 'title: x \347\214\253 \315\270 \360\236\223\220\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x2\n[softmax]\n' >"$tmp/pkg.lesson"
FONTCONFIG_FILE="$tmp/fonts.conf" "$bin" --check "$tmp/pkg.lesson" >"$tmp/out" 2>"$tmp/err"
printf '%s\n' "$tmp/pkg.lesson:1:10: warning: no installed font has U+732B; install fonts-noto-cjk" \
    "$tmp/pkg.lesson:1:12: warning: no installed font has U+0378" \
    "$tmp/pkg.lesson:1:14: warning: no installed font has U+1E4D0; install fonts-noto-core" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/err" && ok || { bad "packages named only when they would bring the glyph"; cat "$tmp/err"; }
# Thousands of characters no font has: eight warnings and one line for the rest.
/usr/bin/python3 -c 'import sys; sys.stdout.write("title: many\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x2\n[softmax]\n\n"
    + " ".join(chr(0xF0000 + i) for i in range(2000)) + "\n")' >"$tmp/many.lesson"
"$bin" --check "$tmp/many.lesson" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "--check with 2000 missing characters exits 0"
[ "$(wc -l <"$tmp/err")" -eq 9 ] && ok || bad "2000 missing characters give 9 lines, got $(wc -l <"$tmp/err")"
[ "$(tail -1 "$tmp/err")" = "$tmp/many.lesson:8:17: warning: no installed font has U+F0008, nor 1991 more characters after it; they show as boxes" ] \
    && ok || { bad "the summary line"; tail -1 "$tmp/err"; }

# --font: devices, directories and FIFOs are refused at once, never read.
# (The limits catch a hang: these take well under a second; TIME_SCALE is
# the Makefile's factor for a busy machine or a sanitizer build.)
scale=${TIME_SCALE:-1}
for f in /dev/zero /tmp; do
    timeout $((20 * scale)) "$bin" --export "$tmp/z" --font "$f" lessons/01-tour.lesson >/dev/null 2>"$tmp/err"
    [ $? -eq 1 ] && ok || bad "--font $f exits 1"
    grep -q "$f" "$tmp/err" && ok || bad "--font $f names the file"
done
mkfifo "$tmp/fifo"
timeout $((20 * scale)) "$bin" --export "$tmp/z" --font "$tmp/fifo" lessons/01-tour.lesson >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && ok || bad "--font FIFO exits 1 without hanging"
timeout $((60 * scale)) "$bin" --export "$tmp/f" --font /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf tests/scripts/ja.lesson >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "--font with a Latin font still falls back for Japanese"

summary "scripts.sh"
