#!/bin/sh
# tests/po.sh: every message catalogue is complete and current.
#
#   XGETTEXT_FLAGS="..." XGETTEXT_DATA_FLAGS="..." I18N_DATA="FILES" sh tests/po.sh SOURCES...
#   (the Makefile passes them all)
#
# 1. po/attnlab.pot holds exactly the strings the sources mark _() / N_()
#    and the words of the desktop's files (I18N_DATA: the desktop entry,
#    the file type), xgettext run again now, so none is missing from it.
# 2. Every po/LANG.po has every one of them, translated: msgfmt --check
#    (format strings included) --statistics reports no untranslated and no
#    fuzzy message, and msgcmp finds no msgid of the sources missing.
set -u
fail=0
. ./tests/tlib.sh                       # t_tmp (run from the top of the tree)
t_tmp
# shellcheck disable=SC2086
xgettext $XGETTEXT_FLAGS -o "$tmp/now.pot" "$@" || { echo "po: xgettext failed"; exit 1; }
# shellcheck disable=SC2086
xgettext $XGETTEXT_DATA_FLAGS -j -o "$tmp/now.pot" ${I18N_DATA:-} || { echo "po: xgettext failed on $I18N_DATA"; exit 1; }
if ! msgcmp --use-untranslated po/attnlab.pot "$tmp/now.pot" 2>"$tmp/err" \
   || ! msgcmp --use-untranslated "$tmp/now.pot" po/attnlab.pot 2>>"$tmp/err"; then
    cat "$tmp/err"
    echo "po: po/attnlab.pot is out of date with the sources: run make po-update"
    fail=1
fi
want=$(grep -c '^msgid ' "$tmp/now.pot")
want=$((want - 1))          # the header
n=0
for f in po/*.po; do
    n=$((n + 1))
    stats=$(LC_ALL=C msgfmt --check --statistics -o /dev/null "$f" 2>&1) || { echo "$stats"; echo "po: $f: msgfmt --check failed"; fail=1; continue; }
    case "$stats" in
        *untranslated*|*fuzzy*) echo "po: $f: $stats"; fail=1; continue;;
    esac
    got=$(echo "$stats" | sed -n 's/^\([0-9]*\) translated message.*/\1/p')
    if [ "$got" != "$want" ]; then echo "po: $f: $got translated messages, the sources mark $want"; fail=1; continue; fi
    if ! msgcmp "$f" "$tmp/now.pot" 2>"$tmp/err"; then cat "$tmp/err"; echo "po: $f: misses messages of the sources"; fail=1; fi
done
[ "$n" -ge 8 ] || { echo "po: expected at least 8 catalogues in po/, found $n"; fail=1; }
[ "$fail" = 0 ] && echo "po: $n catalogues complete ($want messages each)"
exit "$fail"
