#!/bin/sh
# coverage.sh - `zond inject --coverage` on entries.S: the figure and every
# refusal and fallback with its reason, exactly (expected/entries.coverage);
# each address printed is the one nm gives the function; the total is nm's
# count of functions.  Bad input gets one line and status 1.
#
# Usage: coverage.sh ZOND ENTRIES SRCDIR
set -u
zond=$1 prog=$2 src=$3
out=$("$zond" inject --coverage "$prog") || { echo "FAIL: zond inject --coverage failed"; exit 1; }
status=0
echo "$out" | sed 's/ (0x[0-9a-f]*)//' | diff -u "$src/expected/entries.coverage" - || status=1
total=$(nm "$prog" | grep ' [Tt] ' | grep -vc '\.cold$') # parts gcc splits off are no functions
echo "$out" | head -1 | grep -q " of $total functions can be injected$" ||
	{ echo "FAIL: nm counts $total functions"; status=1; }
echo "$out" | sed -n 's/^[a-z]* \([a-z_]*\) (0x\([0-9a-f]*\)).*/\1 \2/p' | while read -r name addr; do
	want=$(nm "$prog" | awk -v n="$name" '$3 == n { sub(/^0+/, "", $1); print $1 }')
	[ "$want" = "$addr" ] || { echo "FAIL: $name at $addr, nm says $want"; exit 1; }
done || status=1
# Not an ELF file, and a missing one: one line each, status 1.
for bad in "$src/coverage.sh" /nonexistent/prog; do
	err=$("$zond" inject --coverage "$bad" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 1 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "^zond inject: $bad: " ||
		{ echo "FAIL: --coverage $bad: status $rc, '$err'"; status=1; }
done
[ $status -eq 0 ] && echo "coverage: ok"
exit $status
