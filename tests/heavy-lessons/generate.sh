#!/bin/sh
# generate.sh DIR: the heavy lessons too big to keep in git, written to DIR.
# Each is just under the 1 MiB file limit and valid; parsing one must cost
# time linear in its size (tests/heavy_lessons.sh runs them with a budget).
#   summary-continuations.lesson   a summary of 349,000 one-character lines
#   title-continuations.lesson     the same under title:
#   paragraphs-349k.lesson          349,000 paragraphs of one word
#   long-lines.lesson               31 prose lines of 32,768 bytes
#   long-japanese-lines.lesson      31 prose lines of 32,760 bytes of Japanese,
#                                   no spaces: a break opportunity every character
#   unclosed-overrides.lesson       33 prose lines of 2,800 words, each after a
#                                   right-to-left override (U+202E) no one closes
#   unbroken-lines.lesson           31 prose lines of 32,768 letters: no break
#                                   opportunity in a whole line
set -eu
dir=$1
mkdir -p "$dir"
tail='[setup]
tokens: a b
X =
  1 0
  0 1
[softmax]'
awk -v tail="$tail" 'BEGIN {
    printf "title: A long summary\nsummary: s\n"
    for (i = 0; i < 349000; i++) printf " x\n"
    print tail
}' >"$dir/summary-continuations.lesson"
awk -v tail="$tail" 'BEGIN {
    printf "title: t\n"
    for (i = 0; i < 349000; i++) printf " x\n"
    print tail
}' >"$dir/title-continuations.lesson"
awk -v tail="$tail" 'BEGIN {
    printf "title: Many paragraphs\n%s\n\n", tail
    for (i = 0; i < 349000; i++) printf "a\n\n"
}' >"$dir/paragraphs-349k.lesson"
awk -v tail="$tail" 'BEGIN {
    printf "title: Long lines\n%s\n\n", tail
    w = "attention "
    for (l = 0; l < 31; l++) {
        line = ""
        while (length(line) + length(w) <= 32768) line = line w
        printf "%s\n", substr(line, 1, length(line) - 1)
    }
}' >"$dir/long-lines.lesson"
awk -v tail="$tail" 'BEGIN {
    printf "title: Long Japanese lines\n%s\n\n", tail
    w = "猫が魚を食べた。"
    for (l = 0; l < 31; l++) {
        line = ""
        for (k = 0; k < 1365; k++) line = line w
        printf "%s\n", line
    }
}' >"$dir/long-japanese-lines.lesson"
awk -v tail="$tail" 'BEGIN {
    printf "title: Overrides no one closes\n%s\n\n", tail
    for (l = 0; l < 33; l++) {
        for (k = 0; k < 2800; k++) printf "%s\342\200\256w%d", k ? " " : "", l * 2800 + k
        printf "\n"
    }
}' >"$dir/unclosed-overrides.lesson"
awk -v tail="$tail" 'BEGIN {
    printf "title: Lines without a break\n%s\n\n", tail
    line = "a"
    while (length(line) < 32768) line = line line
    for (l = 0; l < 31; l++) printf "%s\n", substr(line, 1, 32768)
}' >"$dir/unbroken-lines.lesson"
