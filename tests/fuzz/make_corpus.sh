#!/bin/sh
# make_corpus.sh DIR: put the fuzzer's seed inputs into DIR (created if
# missing): the bundled lessons, the bad-input corpus (with the lessons that
# must be accepted) and the extra seeds in tests/fuzz/seeds. Inputs the
# fuzzer found earlier stay in DIR. Run from the repository root.
set -eu
dir=${1:?usage: make_corpus.sh DIR}
mkdir -p "$dir"
n=0
for f in lessons/*.lesson tests/bad-lessons/*.lesson tests/bad-lessons/accept/*.lesson \
         tests/fuzz/seeds/*.lesson tests/fuzz/regressions/*; do
    [ -f "$f" ] || continue
    # one file per source, named after it, so reruns overwrite instead of piling up
    name=seed-$(printf '%s' "$f" | tr '/' '_')
    cp "$f" "$dir/$name"
    n=$((n + 1))
done
echo "make_corpus: $n seeds in $dir"
