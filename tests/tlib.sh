# tlib.sh: what every test script starts with (POSIX sh). Sourced from the
# top of the tree, so it is its own guard: `. ./tests/tlib.sh` finds it only
# there.
#
#   t_start NAME [DIR...]  NAME is the script's name in its messages. Sets
#                          bin (the program under test: $ATTNLAB, else
#                          build/attnlab, as an absolute path) and top (the
#                          top of the tree); stops with status 2 and one line
#                          when bin is not a program or a DIR is missing,
#                          which is what running from elsewhere looks like.
#   t_tmp [KEEPVAR]        Sets tmp, a new directory removed when the script
#                          exits, after the functions named in t_on_exit (a
#                          library's cleanup, e2e_lib.sh's). When the
#                          variable called KEEPVAR is set, it is kept and
#                          the script says where.
#   ok, bad WHAT           Count a check that held, or one that did not
#                          (bad prints "FAIL: WHAT").
#   summary NAME           Prints the line tests/run_part.sh reads,
#                          "NAME: N passed, M failed", and is the script's
#                          status: true only when nothing failed and
#                          something was checked.

t_name=test
t_keep=
t_on_exit=

t_start() {
    t_name=$1
    shift
    bin=${ATTNLAB:-build/attnlab}
    case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
    bin=$(readlink -f "$bin" || echo "$bin")
    top=$(pwd)
    t_found=1
    [ -x "$bin" ] || t_found=0
    for t_dir in "$@"; do [ -d "$t_dir" ] || t_found=0; done
    if [ "$t_found" = 0 ]; then
        echo "$t_name: run from the repository root with ATTNLAB=path/to/attnlab (got '$bin')" >&2
        exit 2
    fi
}

t_tmp() {
    t_keep=${1:-}
    tmp=$(mktemp -d)
    trap t_exit EXIT
}

# The exit trap of t_tmp.
t_exit() {
    for t_fn in $t_on_exit; do "$t_fn"; done
    if [ -n "$t_keep" ] && eval "[ -n \"\${$t_keep:-}\" ]"; then
        echo "$t_name: kept $tmp"
    else
        rm -rf "$tmp"
    fi
}

pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
summary() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}
