#!/bin/sh
# transport.sh - transport_test on hello: its checks pass, and the program's
# output (stdout) and exit status are those of a plain run.
# Usage: transport.sh TRANSPORT_TEST HELLO WORKDIR
set -u
test=$1 hello=$2 dir=$3
"$hello" a 'b c' >"$dir/plain.out"
[ $? -eq 3 ] || { echo "FAIL: hello did not exit 3"; exit 1; }
"$test" "$hello" a 'b c' >"$dir/injected.out" 2>"$dir/injected.err"
rc=$?
cat "$dir/injected.err"
# the test's own line "N passed, N failed" goes to stdout after the program's
grep -v '^[0-9]* passed, [0-9]* failed$' "$dir/injected.out" | diff -u "$dir/plain.out" - || rc=1
[ $rc -eq 0 ] && echo "transport: ok"
exit $rc
