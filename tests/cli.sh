#!/bin/sh
# cli.sh: command-line behaviour of the attnlab binary ($ATTNLAB).
set -u
bin=${ATTNLAB:-build/attnlab}
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" --version | grep -q '^attnlab [0-9]' && ok || bad "--version"
"$bin" --help | grep -q 'usage:' && ok || bad "--help"
"$bin" --no-such-flag 2>/dev/null; [ $? -eq 2 ] && ok || bad "unknown flag exits 2"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
