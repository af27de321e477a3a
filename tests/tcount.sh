# tcount.sh: the counting every test script shares (POSIX sh, sourced from the top of the tree).
#
# ok and bad count a check that held and one that did not (bad prints
# "FAIL: what"); summary NAME prints the line tests/run_part.sh reads,
# "NAME: N passed, M failed", and is the script's status: true only when
# nothing failed and something was checked.

pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
summary() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}
