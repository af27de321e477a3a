#!/bin/sh
# core.sh: the WebAssembly command line against the native one.
#
#   sh web/test/core.sh build/attnlab build/web/attnlab-node   (from the top of the tree)
#
# 1. --dump of every bundled lesson: the same bytes as the native program.
#    One exception is allowed and bounded: a lesson that draws a `sinusoid`
#    calls sin(), one whose MLP uses GELU calls tanh() or erf(), and one
#    that loads a trained model's weights feeds exp() and the like with
#    values whose last bit shows; the C library inside
#    WebAssembly (musl) may round them differently from the native one
#    (glibc) in the last bit or two. For such a lesson the dumps must have
#    the same structure and every number must agree within 1e-12
#    absolutely (dump_diff.py measures and prints the largest difference).
#    A model's folder (tests/tiny_model.py) is such a lesson too.
# 2. The lesson figures (tests/check_lessons.py) with the wasm build.
# 3. NumPy files and archives (tests/check_npy.py) with the wasm build,
#    which reads .npz archives without libzip (src/core/io/zipread.c): the
#    same values and the same one-line errors.
# 4. The whole bad-input corpus (tests/bad_lessons.sh) with the wasm build:
#    the same one-line messages and exit codes.
set -u
native=$1 wasm=$2
case $wasm in /*) ;; *) wasm=$(pwd)/$wasm ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
for f in lessons/*.lesson; do
    "$native" --dump "$f" >"$tmp/n.json" 2>"$tmp/n.err"; ncode=$?
    "$wasm" --dump "$f" >"$tmp/w.json" 2>"$tmp/w.err"; wcode=$?
    if [ "$ncode" -ne 0 ] || [ "$wcode" -ne 0 ]; then
        echo "FAIL: $f: exit status native $ncode, wasm $wcode: $(head -c 300 "$tmp/w.err")"; fail=$((fail + 1)); continue
    fi
    if cmp -s "$tmp/n.json" "$tmp/w.json"; then
        echo "ok: $f: --dump identical ($(wc -c <"$tmp/n.json") bytes)"; pass=$((pass + 1))
    elif grep -q -e '= *sinusoid' -e '= *load ' -e '^mlp:.* gelu' "$f" && /usr/bin/python3 web/test/dump_diff.py "$tmp/n.json" "$tmp/w.json" 1e-12 "$f"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $f: --dump differs"; fail=$((fail + 1))
    fi
done
# a model's folder (lesson_model.c, cJSON compiled from Debian's source):
# the same tokens and, within the bound above, the same numbers
/usr/bin/python3 tests/tiny_model.py "$tmp/tiny" >/dev/null
printf 'title: tiny\n[setup]\nmodel: "tiny"\ntext: "The cat sat on the mat, and the dog"\n' >"$tmp/tiny.lesson"
"$native" --dump "$tmp/tiny.lesson" >"$tmp/n.json" 2>"$tmp/n.err"; ncode=$?
"$wasm" --dump "$tmp/tiny.lesson" >"$tmp/w.json" 2>"$tmp/w.err"; wcode=$?
if [ "$ncode" -ne 0 ] || [ "$wcode" -ne 0 ]; then
    echo "FAIL: a model's folder: exit status native $ncode, wasm $wcode: $(head -c 300 "$tmp/n.err" "$tmp/w.err")"; fail=$((fail + 1))
elif cmp -s "$tmp/n.json" "$tmp/w.json" || /usr/bin/python3 web/test/dump_diff.py "$tmp/n.json" "$tmp/w.json" 1e-12 "a model's folder"; then
    echo "ok: a model's folder: --dump $(wc -c <"$tmp/n.json") bytes"; pass=$((pass + 1))
else
    echo "FAIL: a model's folder: --dump differs"; fail=$((fail + 1))
fi
echo "web-core dumps: $pass passed, $fail failed"
/usr/bin/python3 tests/check_lessons.py "$wasm" lessons tests/reference || fail=$((fail + 1))
/usr/bin/python3 tests/check_npy.py "$wasm" || fail=$((fail + 1))
ATTNLAB="$wasm" sh tests/bad_lessons.sh || fail=$((fail + 1))
[ "$fail" -eq 0 ]
