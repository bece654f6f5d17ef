#!/bin/sh
# coverage.sh - `zond inject --coverage` on entries.S: the figure and every
# refusal, fallback and hop with its reason, exactly (expected/entries.coverage);
# each address printed is the one nm gives the function, a hop's slot lies
# in the fill after the function it names; the total is nm's count of
# functions.  Bad input gets one line and status 1.
#
# Usage: coverage.sh ZOND ENTRIES SRCDIR
set -u
zond=$1 prog=$2 src=$3
out=$("$zond" inject --coverage "$prog") || { echo "FAIL: zond inject --coverage failed"; exit 1; }
status=0
echo "$out" | sed 's/ (0x[0-9a-f]*)//g' | diff -u "$src/expected/entries.coverage" - || status=1
total=$(nm "$prog" | grep ' [Tt] ' | grep -vc '\.cold$') # parts gcc splits off are no functions
echo "$out" | head -1 | grep -q " of $total functions can be injected$" ||
	{ echo "FAIL: nm counts $total functions"; status=1; }
echo "$out" | sed -n 's/^[a-z]* \([a-z_]*\) (0x\([0-9a-f]*\)).*/\1 \2/p' | while read -r name addr; do
	want=$(nm "$prog" | awk -v n="$name" '$3 == n { sub(/^0+/, "", $1); print $1 }')
	[ "$want" = "$addr" ] || { echo "FAIL: $name at $addr, nm says $want"; exit 1; }
done || status=1
# A hop's slot: 5 bytes between the end of the function it names (nm's
# address and size) and the next function.
echo "$out" | sed -n 's/^hop .* after \([a-z_]*\) (0x\([0-9a-f]*\))$/\1 \2/p' | while read -r name slot; do
	set -- $(nm -nS "$prog" | awk -v n="$name" '$3 ~ /^[Tt]$/ && found { print $1; exit }
		$4 == n { print $1, $2; found = 1 }')
	[ $# -eq 3 ] && [ $((0x$slot)) -ge $((0x$1 + 0x$2)) ] && [ $((0x$slot + 5)) -le $((0x$3)) ] ||
		{ echo "FAIL: the hop slot 0x$slot is not in the fill after $name"; exit 1; }
done || status=1
# A stripped file: its figure says why it has no function.
stripped=$(mktemp)
strip -o "$stripped" "$prog"
got=$("$zond" inject --coverage "$stripped" | head -1)
rm -f "$stripped"
[ "$got" = "0 of 0 functions can be injected (no function symbols: stripped? its debug symbols give them)" ] ||
	{ echo "FAIL: --coverage of a stripped file: $got"; status=1; }
# Not an ELF file, and a missing one: one line each, status 1.
for bad in "$src/coverage.sh" /nonexistent/prog; do
	err=$("$zond" inject --coverage "$bad" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 1 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "^zond inject: $bad: " ||
		{ echo "FAIL: --coverage $bad: status $rc, '$err'"; status=1; }
done
[ $status -eq 0 ] && echo "coverage: ok"
exit $status
