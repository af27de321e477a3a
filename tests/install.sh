#!/bin/sh
# install.sh: `make install` into a staging directory (DESTDIR), as a
# distribution's packaging runs it, and what it installs checked with the
# desktop's own tools: the program and its lessons, a desktop entry that
# desktop-file-validate accepts, with MimeType= and its words translated;
# the shared-mime-info type text/x-attnlab-lesson for *.lesson (read by
# update-mime-database); the manual page (man -l, without warnings); bash
# completion of options, their values and .lesson files; the docs that
# --help points to.
#
# It runs the make that runs it (MAKE, with the same build and flags: the
# program is not built again).
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start install
t_tmp
make=${MAKE:-make}

dest="$tmp/root"
prefix=/usr/local
p="$dest$prefix"
built=$(ls -l --time-style=+%s.%N "${ATTNLAB:-build/attnlab}" 2>/dev/null)
if $make -s --no-print-directory -j1 install DESTDIR="$dest" >"$tmp/log" 2>&1; then ok; else bad "make install failed"; cat "$tmp/log"; fi
[ "$(ls -l --time-style=+%s.%N "${ATTNLAB:-build/attnlab}" 2>/dev/null)" = "$built" ] && ok || bad "make install built the program again"

for f in bin/attnlab share/attnlab/lessons/01-tour.lesson share/attnlab/lessons/models/induction.npz \
         share/attnlab/lessons/models/gpt2-reads.lesson \
         share/locale/de/LC_MESSAGES/attnlab.mo share/applications/attnlab.desktop \
         share/icons/hicolor/scalable/apps/attnlab.svg share/mime/packages/attnlab.xml share/man/man1/attnlab.1 \
         share/bash-completion/completions/attnlab share/doc/attnlab/README.md share/doc/attnlab/lesson-format.md \
         share/doc/attnlab/docs/lesson-format.md share/attnlab/attnlab.html; do
    [ -e "$p/$f" ] && ok || bad "make install put $prefix/$f"
done
[ "$(ls "$p/share/attnlab/lessons"/*.lesson | wc -l)" = "$(ls lessons/*.lesson | wc -l)" ] && ok || bad "every bundled lesson is installed"
"$p/bin/attnlab" --list >"$tmp/list" 2>&1 && [ "$(grep -c '\.lesson' "$tmp/list")" = "$(ls lessons/*.lesson | wc -l)" ] \
    && ok || bad "the installed program finds the installed lessons: $(head -3 "$tmp/list")"

# the Python module: where Debian's Python looks under the prefix, told where the program is
site=$p/lib/$(/usr/bin/python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')/dist-packages
[ -f "$site/attnlab/__init__.py" ] && [ -f "$site/attnlab/_torch.py" ] && ok || bad "make install put the Python module in $site"
got=$(cd "$tmp" && PYTHONPATH="$site" /usr/bin/python3 -c 'import attnlab, attnlab._installed as i; print(attnlab.__file__, i.PROGRAM)' 2>&1)
[ "$got" = "$site/attnlab/__init__.py $prefix/bin/attnlab" ] && ok || bad "the installed module imports and names the installed program: $got"
/usr/bin/python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "/usr/local/lib/$(basename "$(dirname "$site")")/dist-packages" \
    && ok || bad "Debian's Python reads /usr/local's site directory"

# the browser edition, where the installed module looks for it (its interactive view)
cmp -s "$p/share/attnlab/attnlab.html" "$(dirname "${ATTNLAB:-build/attnlab}")/web/attnlab.html" && ok || bad "make install puts the browser edition"
got=$(cd "$tmp" && PYTHONPATH="$site" /usr/bin/python3 -c 'import os, attnlab._installed as i; print(os.path.join(i.DATADIR, "attnlab.html"))' 2>&1)
[ "$got" = "$prefix/share/attnlab/attnlab.html" ] && ok || bad "the installed module looks for the browser edition where it is installed: $got"

# libattnlab: the library, its header and pkg-config file; the C example in docs/ builds against them and
# runs, and the installed Python module draws through the installed library
for f in lib/libattnlab.so lib/libattnlab.so.0 include/attnlab.h lib/pkgconfig/attnlab.pc \
         share/doc/attnlab/docs/examples/attnlab-example.c; do
    [ -e "$p/$f" ] && ok || bad "make install put $prefix/$f"
done
soname=$(objdump -p "$p/lib/libattnlab.so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libattnlab.so.0 ] && ok || bad "the library's soname is libattnlab.so.0: '$soname'"
exported=$(nm -D --defined-only "$p/lib/libattnlab.so" | awk '$2 == "T" { print $3 }' | grep -cv '^attnlab_')
[ "$exported" = 0 ] && ok || bad "the library exports only attnlab_* functions ($exported others)"
pc() { PKG_CONFIG_PATH="$p/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config "$@" attnlab; }
# the sanitizer build's library runs only in a sanitized process: the example is built like it
san=""
nm -D "$p/lib/libattnlab.so" 2>/dev/null | grep -q ' __asan_init' && san="-fsanitize=address,undefined"
[ "$(pc --modversion)" = "$($make -s --no-print-directory print-version)" ] && ok || bad "pkg-config says the version: $(pc --modversion)"
if cc -std=c11 -Wall -Wextra -Werror $san "$p/share/doc/attnlab/docs/examples/attnlab-example.c" $(pc --cflags --libs) \
      -Wl,-rpath,"$p/lib" -o "$tmp/example" 2>"$tmp/cc"; then ok; else bad "the C example builds against the installed library: $(cat "$tmp/cc")"; fi
(cd "$tmp" && ./example out.png) >"$tmp/example.out" 2>&1 && ok || bad "the C example runs: $(cat "$tmp/example.out")"
grep -q '^weights are 3x3; row 2 = 0.3333 0.3333 0.3333$' "$tmp/example.out" && ok || bad "the C example reads the weights: $(cat "$tmp/example.out")"
grep -q 'exp(0.3536 − 0.3536) / Σ = 1 / 3 = 0.3333' "$tmp/example.out" && ok || bad "the C example explains a weight"
[ "$(head -c 8 "$tmp/out.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] && ok || bad "the C example writes a PNG"
[ -n "$san" ] || got=$(cd "$tmp" && ATTNLAB_LIB="$p/lib/libattnlab.so.0" PYTHONPATH="$site" /usr/bin/python3 -c '
import os, attnlab, attnlab._installed as i, attnlab._library as l, numpy as np
lib = l.library()
print(i.LIBDIR, os.path.realpath(lib._name) if lib else None, len(attnlab.show(np.eye(2), ["a", "b"]).picture(1)) > 1000)' 2>&1)
[ -n "$san" ] || [ "$got" = "$prefix/lib $p/lib/libattnlab.so.$($make -s --no-print-directory print-version) True" ] && ok \
    || bad "the installed module knows where the library goes, and draws through the staged one: $got"

# the desktop entry
desktop-file-validate "$p/share/applications/attnlab.desktop" >"$tmp/dfv" 2>&1 && [ ! -s "$tmp/dfv" ] \
    && ok || bad "desktop-file-validate accepts the desktop entry without a word: $(cat "$tmp/dfv")"
grep -qx 'MimeType=text/x-attnlab-lesson;' "$p/share/applications/attnlab.desktop" && ok || bad "the desktop entry says MimeType=text/x-attnlab-lesson;"
grep -qx 'Categories=Education;ComputerScience;' "$p/share/applications/attnlab.desktop" && ok || bad "the desktop entry names one main category"
grep -q '^Comment\[de\]=' "$p/share/applications/attnlab.desktop" && grep -q '^Keywords\[ja\]=' "$p/share/applications/attnlab.desktop" \
    && ok || bad "the desktop entry's words are translated from po/"
grep -q '^Exec=attnlab %f$' "$p/share/applications/attnlab.desktop" && ok || bad "the desktop entry opens the file it is given"

# the file type: shared-mime-info's own compiler reads it
xmllint --noout "$p/share/mime/packages/attnlab.xml" && ok || bad "the file type is well-formed XML"
grep -q 'xml:lang="de"' "$p/share/mime/packages/attnlab.xml" && ok || bad "the file type's comment is translated"
XDG_DATA_DIRS="$p/share:/usr/share" update-mime-database "$p/share/mime" >"$tmp/umd" 2>&1 && [ ! -s "$tmp/umd" ] && ok || bad "update-mime-database reads the file type: $(cat "$tmp/umd")"
grep -q ':text/x-attnlab-lesson:\*\.lesson$' "$p/share/mime/globs2" && ok || bad "*.lesson is text/x-attnlab-lesson: $(cat "$p/share/mime/globs2")"
grep -q '^text/x-attnlab-lesson text/plain$' "$p/share/mime/subclasses" && ok || bad "a lesson is a kind of text/plain"

# the manual page
MANWIDTH=300 man --warnings -l "$p/share/man/man1/attnlab.1" >"$tmp/man" 2>"$tmp/man.err"
[ $? -eq 0 ] && [ ! -s "$tmp/man.err" ] && ok || bad "man -l shows the page without warnings: $(cat "$tmp/man.err")"
grep -q '^NAME' "$tmp/man" && grep -Eq 'attnlab +- +step through how attention' "$tmp/man" && ok || bad "the page has its NAME line"
grep -q "$prefix/share/doc/attnlab/lesson-format.md" "$tmp/man" && ok || bad "the page names the installed lesson format"
options() { "$p/bin/attnlab" --help | sed -n 's/^ *\(--[a-z]*\).*/\1/p' | sort -u; }
for opt in $(options); do
    grep -q -- "$opt" "$tmp/man" || bad "the manual page describes $opt"
done
ok
LC_ALL=C "$p/bin/attnlab" --help | grep -q "lesson-format.md in $prefix/share/doc/attnlab" && ok || bad "--help points to the installed docs"

# bash completion
comp="$p/share/bash-completion/completions/attnlab"
mkdir -p "$tmp/w/sub" && touch "$tmp/w/week3.lesson" "$tmp/w/notes.txt" "$tmp/w/with space.lesson"
complete_words() { (cd "$tmp/w" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _attnlab; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort' x "$comp" "$@"); }
[ "$(complete_words attnlab --fo | tr '\n' ' ')" = "--font --format " ] && ok || bad "completion of --fo: $(complete_words attnlab --fo)"
[ "$(complete_words attnlab --format '' | tr '\n' ' ')" = "pdf png svg " ] && ok || bad "completion of --format's value: $(complete_words attnlab --format '')"
[ "$(complete_words attnlab --format = p | tr '\n' ' ')" = "pdf png " ] && ok || bad "completion of --format=p"
[ "$(complete_words attnlab '' | tr '\n' ' ')" = "sub week3.lesson with space.lesson " ] && ok || bad "completion of a lesson: folders and .lesson files: $(complete_words attnlab '')"
[ "$(complete_words attnlab --export '' | tr '\n' ' ')" = "sub " ] && ok || bad "completion of --export's folder"
[ "$(complete_words attnlab --mo | tr '\n' ' ')" = "--model " ] && ok || bad "completion of --mo: $(complete_words attnlab --mo)"
[ -z "$(complete_words attnlab --model "$tmp/w" the '')" ] && ok || bad "after --model FOLDER the words are a sentence: nothing completed"
opts=$(options | tr '\n' ' ')
[ "$(complete_words attnlab -- -- | tr '\n' ' ')" = "" ] && ok || bad "after --, no options"
[ "$(complete_words attnlab - | tr '\n' ' ')" = "$opts" ] && ok || bad "completion knows every option of --help: $(complete_words attnlab - | tr '\n' ' ') / $opts"
maps=$("$p/bin/attnlab" --help | sed -n 's/^ *--cmap NAME *//p' | sed 's/ for every panel//; s/,//g; s/ or / /' | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$(complete_words attnlab --cmap '' | tr '\n' ' ')" = "$maps" ] && ok || bad "completion knows every colormap: $(complete_words attnlab --cmap '' | tr '\n' ' ') / $maps"

summary "install"
