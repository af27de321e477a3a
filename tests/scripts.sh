#!/bin/sh
# scripts.sh: lessons in many writing systems (tests/scripts/*.lesson) export
# without a missing-glyph warning, name their fallback fonts in SVG, and a
# character no installed font has is reported once, at its line and column,
# without changing the exit status. The emoji lesson's PDF draws its emoji
# as pictures where the PNG draws them (tmarks.py), and a damaged emoji font
# gives a warning per emoji left out. --font refuses devices and FIFOs at once.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start scripts
t_tmp

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

# The emoji lesson's PDF handout: every emoji (title, page header, tokens,
# prose) is drawn as a picture where the PNG draws it, the text around it
# stays searchable text, and no emoji goes in as an (empty) Type 3 font.
"$bin" --export "$tmp/pdf" --format pdf tests/scripts/emoji.lesson >/dev/null 2>"$tmp/err" && ok || bad "emoji PDF exits 0"
[ ! -s "$tmp/err" ] && ok || { bad "emoji PDF warns"; cat "$tmp/err"; }
for p in 1 2; do
    png=$(ls "$tmp/png"/emoji-0$p-*.png)
    convert "$png" "$tmp/want.ppm"
    pdftoppm -r 96 -f $p -l $p -singlefile "$tmp/pdf/emoji.pdf" "$tmp/page"
    /usr/bin/python3 tests/tmarks.py "$tmp/want.ppm" "$tmp/page.ppm" >"$tmp/out" \
        && ok || { bad "page $p of the PDF draws the PNG's emoji"; cat "$tmp/out"; }
done
[ "$(pdfimages -f 1 -l 1 -list "$tmp/pdf/emoji.pdf" | awk 'NR > 2 && $3 == "image"' | wc -l)" -ge 11 ] \
    && ok || { bad "page 1's eleven emoji are images"; pdfimages -list "$tmp/pdf/emoji.pdf"; }
# ten different emoji pictures (👍 and 👍🏽 are two), each one image however often drawn
[ "$(pdfimages -list "$tmp/pdf/emoji.pdf" | awk 'NR > 2 && $3 == "image" { print $11 }' | sort -u | wc -l)" -eq 10 ] \
    && ok || { bad "one image per emoji picture"; pdfimages -list "$tmp/pdf/emoji.pdf"; }
# Key labels turned a quarter turn (twenty long ones): their emoji turn with them.
printf 'title: Turned\n[setup]\nseed: 3\nquery_tokens: a b c\nkey_tokens: %s\nX = randn 3x4\nY = randn 20x4\nqueries: X\nkeys: Y\nvalues: Y\n[raw_scores]\n' \
    "$(/usr/bin/python3 -c 'print(" ".join(f"label{i:02}" + chr(0x1F34E + i) for i in range(20)))')" >"$tmp/turned.lesson"
"$bin" --export "$tmp/tpng" "$tmp/turned.lesson" >/dev/null 2>&1 && "$bin" --export "$tmp/tpdf" --format pdf "$tmp/turned.lesson" >/dev/null 2>&1
pages=$(ls "$tmp/tpng" | wc -l)
[ "$pages" -ge 1 ] && ok || bad "the turned lesson exports"
for p in $(seq 1 "$pages"); do
    convert "$(ls "$tmp"/tpng/*.png | sed -n "${p}p")" "$tmp/want.ppm"
    pdftoppm -r 96 -f "$p" -l "$p" -singlefile "$tmp/tpdf/turned.pdf" "$tmp/tpage"
    /usr/bin/python3 tests/tmarks.py "$tmp/want.ppm" "$tmp/tpage.ppm" >"$tmp/out" \
        && ok || { bad "page $p of the turned lesson draws the PNG's emoji"; cat "$tmp/out"; }
done
pdffonts "$tmp/pdf/emoji.pdf" | grep -q 'Type 3' && { bad "an emoji went into the PDF as a Type 3 font"; pdffonts "$tmp/pdf/emoji.pdf"; } || ok
pdftotext -f 1 -l 1 "$tmp/pdf/emoji.pdf" "$tmp/text"
for s in 'Emoji' 'on a' 'X: one row per token, 4 numbers per row' 'Every picture' 'gets a vector of its own' \
         'X (query sentence)' 'chair'; do
    grep -qF "$s" "$tmp/text" && ok || { bad "page 1 has the text '$s'"; cat "$tmp/text"; }
done
"$bin" --export "$tmp/pdf2" --format pdf tests/scripts/emoji.lesson >/dev/null 2>&1
cmp -s "$tmp/pdf/emoji.pdf" "$tmp/pdf2/emoji.pdf" && ok || bad "the emoji PDF is the same bytes every time"

# A damaged emoji font (every picture's PNG data fails its check): the PDF
# is still written, with its text, and says at each emoji's first place
# that it was left out; eight such lines, then one for the rest.
mkdir -p "$tmp/broken"
/usr/bin/python3 - "$tmp/broken/NotoColorEmoji.ttf" <<'EOF'
import sys
d = bytearray(open("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "rb").read())
i = d.find(b"IDAT")
while i >= 0:
    d[i + 4] ^= 0xFF
    i = d.find(b"IDAT", i + 4)
open(sys.argv[1], "wb").write(d)
EOF
cat >"$tmp/broken.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><dir>$tmp/broken</dir><cachedir>$tmp/fccache</cachedir></fontconfig>
EOF
printf 'title: Cat \360\237\220\261\n[setup]\nseed: 1\ntokens: a \360\237\214\231\nX = randn 2x2\n[softmax]\n\nA \360\237\220\261 here.\n' >"$tmp/cat.lesson"
FONTCONFIG_FILE="$tmp/broken.conf" "$bin" --export "$tmp/bp" --format pdf "$tmp/cat.lesson" >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "a PDF with a damaged emoji font exits 0"
printf '%s\n' "$tmp/cat.lesson:1:12: warning: U+1F431 is left out of the PDF: Noto Color Emoji cannot read its picture" \
    "$tmp/cat.lesson:4:11: warning: U+1F319 is left out of the PDF: Noto Color Emoji cannot read its picture" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/err" && ok || { bad "each left-out emoji is warned about once, at its first place"; cat "$tmp/err"; }
pdftotext "$tmp/bp/cat.pdf" - 2>/dev/null | grep -q '^Cat' && ok || bad "the PDF with left-out emoji keeps its text"
/usr/bin/python3 -c 'import sys; sys.stdout.write("title: Fruit\n[setup]\nseed: 1\ntokens: a b\nX = randn 2x2\n[softmax]\n\n"
    + " ".join(chr(0x1F34E + i) for i in range(12)) + "\n")' >"$tmp/fruit.lesson"
FONTCONFIG_FILE="$tmp/broken.conf" "$bin" --export "$tmp/bp" --format pdf "$tmp/fruit.lesson" >/dev/null 2>"$tmp/err"
[ "$(wc -l <"$tmp/err")" -eq 9 ] && ok || { bad "12 left-out emoji give 9 lines"; cat "$tmp/err"; }
[ "$(tail -1 "$tmp/err")" = "$tmp/fruit.lesson:8:17: warning: U+1F356 is left out of the PDF, and 3 more characters after it: their fonts cannot read their pictures" ] \
    && ok || { bad "the left-out summary line"; tail -1 "$tmp/err"; }
# The emoji lesson's nine emoji (bold titles and regular text alike) are nine lines.
FONTCONFIG_FILE="$tmp/broken.conf" "$bin" --export "$tmp/bp" --format pdf tests/scripts/emoji.lesson >/dev/null 2>"$tmp/err"
[ "$(grep -c 'is left out of the PDF: Noto Color Emoji' "$tmp/err")" -eq 9 ] \
    && [ "$(grep -o 'U+[0-9A-F]*' "$tmp/err" | sort -u | wc -l)" -eq 9 ] && ok || { bad "each emoji is warned about once"; cat "$tmp/err"; }

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
