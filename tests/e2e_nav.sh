#!/bin/bash
# e2e_nav.sh: the real window under Xvfb steered as a lecturer steers a
# stage in pages: . and , from head to head of the induction lesson's four
# heads (stage 2, which opens with the heads side by side), Shift+→ and
# Shift+← from stage to stage whatever pages are left, J and Shift+J from
# token to token of the inference lesson's K/V cache, the slide sorter (G)
# picked from with the arrows and with the mouse, and a click on head 3 of
# the comparison page (the pointer over it says so first).
#
# Where the window is comes from the window itself: S saves the slide it
# shows, and the file's name says the stage and the page
# (LESSON-NN-STAGE-SS-PAGE.png). The names the pages should have come from
# `--export` of the same stage, which cuts them as the window does. The
# screen with the sorter open is kept as $SHOTS/window-sorter.png when
# SHOTS is set, to be looked at.
set -u
. ./tests/tlib.sh                       # t_start, t_tmp, ok, bad, summary (run from the top of the tree)
t_start e2e_nav
t_tmp KEEP
. "$top/tests/e2e_lib.sh"             # adds its cleanup to t_on_exit

e2e_display 1600x1000
mkdir "$tmp/shots" "$tmp/export"
cd "$tmp"

# the pages of stage 2 of the induction lesson, in order, as --export names them
mapfile -t pages < <("$bin" --export "$tmp/export" --stage 2 "$top/lessons/07-induction-head.lesson" | sed 's,.*/,,')
[ "${#pages[@]}" -ge 10 ] && ok || bad "stage 2 of the induction lesson is in pages (${#pages[@]})"
page_of() {            # page_of WORD: the file name of the first page whose name has WORD ("-h3-1")
    local p
    for p in "${pages[@]}"; do case $p in *"$1"*) echo "$p"; return ;; esac; done
}

# at FILE WHAT: the slide shown is FILE (S saves it under its name, and
# says so in a passing message: a check of the messages comes before it)
at() {
    rm -f "$tmp/shots"/*.png
    key s || return
    local got
    got=$(cd "$tmp/shots" && ls -- *.png 2>/dev/null | tr '\n' ' ')
    [ "$got" = "$1 " ] && ok || bad "$2: the window shows ${got:-nothing} (expected $1)"
}

e2e_start induction "$top/lessons/07-induction-head.lesson" 1280x800 --shots "$tmp/shots"
park
key 2
at "${pages[0]}" "2: the comparison page first"
key period
at "$(page_of -h1-1)" ". on the comparison page: head 1's first page"
key period
at "$(page_of -h2-1)" ". again: head 2's first page"
key Right
at "$(page_of -h2-2)" "→: head 2's second page"
key comma
at "$(page_of -h1-1)" ", : back to head 1's first page"
quiet
key comma
[ "$TOAST" = 1 ] && ok || bad ", on head 1 says there is no head before it"
at "$(page_of -h1-1)" ", on head 1: stays"
key shift+Right
at "$(cd "$tmp/export" && "$bin" --export . --stage 3 "$top/lessons/07-induction-head.lesson" | head -1 | sed 's,.*/,,')" \
    "Shift+→ from a page of stage 2: stage 3's first page"
key shift+Left
at "${pages[0]}" "Shift+←: stage 2's first page"

# the pointer over head 3's title on the comparison page says where a click
# goes; the click goes there (its place: the same page as an SVG at the
# window's size, the title's baseline)
"$bin" --export "$tmp/svg" --format svg --size 1280x800 --stage 2 "$top/lessons/07-induction-head.lesson" >/dev/null
xy=$(grep -o '<text x="[0-9.]*" y="[0-9.]*"[^>]*>head 3: weights</text>' "$tmp/svg/${pages[0]%.png}.svg" \
     | head -1 | sed 's/<text x="\([0-9.]*\)" y="\([0-9.]*\)".*/\1 \2/')
[ -n "$xy" ] && ok || bad "the comparison page has head 3's title"
hx=$(echo "$xy" | awk '{ printf "%d", $1 + 30 }'); hy=$(echo "$xy" | awk '{ printf "%d", $2 - 8 }')
quiet
xdotool mousemove --window "$win" "$hx" "$hy"; settle
[ "$TOAST" = 1 ] && ok || bad "the pointer over head 3's panel says a click shows it"
xdotool click 1; settle
park
at "$(page_of -h3-1)" "a click on head 3 of the comparison page: head 3's first page"

# the slide sorter: G on head 3's page selects it; → → and Enter go two
# pages on; G again and a click on the sixth picture goes to the sixth page
key g
shot sorter
[ -n "${SHOTS:-}" ] && cp "$tmp/sorter.png" "$SHOTS/window-sorter.png"
key Right Right Return
h3=$(page_of -h3-1)
for i in "${!pages[@]}"; do [ "${pages[$i]}" = "$h3" ] && n3=$i; done
at "${pages[$((n3 + 2))]}" "the sorter: → → Enter, two pages after head 3's first"
key g
# the sixth picture (row 2, column 2 of 4 x 3): the sorter's places at
# 1280x800, text 16.67 px (src/app/sorter.c: places)
xdotool mousemove --window "$win" 482 386; settle
xdotool click 1; settle
park
at "${pages[5]}" "the sorter: a click on the sixth picture, the sixth page"
key g Escape
at "${pages[5]}" "the sorter: Esc leaves the page as it was"
quit induction

# the K/V cache of the inference lesson: J, Shift+J
e2e_start inference "$top/lessons/10-inference.lesson" 1280x800 --shots "$tmp/shots"
park
mapfile -t kv < <("$bin" --export "$tmp/export" --stage 2 "$top/lessons/10-inference.lesson" | sed 's,.*/,,')
tok() {                # tok N: the first page of token N
    local p
    for p in "${kv[@]}"; do case $p in *"-t$1"|*"-t$1-"*|*"-t$1.png") echo "$p"; return ;; esac; done
}
quiet
key j
[ "$TOAST" = 1 ] && ok || bad "J on a stage without tokens says so"
at "10-inference-01-softmax.png" "J on a stage without tokens: stays"
key 2
at "$(tok 1)" "the K/V cache opens on token 1"
key j j j
at "$(tok 4)" "J J J: token 4"
key shift+j
at "$(tok 3)" "Shift+J: token 3"
key j j j j
at "$(tok 6)" "J past the last token: stays on token 6"
i6=0; ia=0                 # where token 6's pages and the comparison's start among the exported pages
for i in "${!kv[@]}"; do
    [ "${kv[$i]}" = "$(tok 6)" ] && i6=$i
    case ${kv[$i]} in *-all*) [ "$ia" = 0 ] && ia=$i ;; esac
done
for ((i = i6; i < ia; i++)); do key Right; done
at "${kv[$ia]}" "→ after the last token's pages: the comparison"
key shift+j
at "$(tok 6)" "Shift+J on the comparison: token 6"
quit inference

summary "e2e_nav"
