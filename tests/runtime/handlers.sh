#!/bin/sh
# handlers.sh ZOND PROG MODE - a signal handler's calls are all counted,
# those made while a probe of zond's ran too (the thread busy), in time
# mode MODE (sampled, exact, none): zond's calls per function equal the
# program's own counts (handlers.c).
set -u
zond=$1 prog=$2 mode=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
case $mode in
none) opt=--no-time ;;
*) opt="--time $mode" ;;
esac
# shellcheck disable=SC2086
"$zond" record -q $opt -o h.db -- "$prog" >out.txt || { echo "FAIL: zond record: status $?"; exit 1; }
"$zond" dump -i h.db >dump.txt || { echo "FAIL: zond dump"; exit 1; }
[ "$(grep -c '^count ' out.txt)" -eq 4 ] || { echo "FAIL: the program printed no counts"; exit 1; }
grep -qx 'count handler 0' out.txt && { echo "FAIL: no signal came"; exit 1; }
status=0
while read -r _ f n; do
	grep -qx "function $f calls=$n" dump.txt ||
		{ echo "FAIL: $f: the program counted $n, zond $(grep " $f " dump.txt)"; status=1; }
done <<EOT
$(grep '^count ' out.txt)
EOT
# Every call is on a calling context or counted as unstacked (the dump's line, the report's
# warning): none goes unsaid.
sum() { sed -n "s/^$1.* calls=\([0-9]*\)$/\1/p" dump.txt | awk '{s += $1} END {print s + 0}'; }
unstacked=$(sed -n 's/^unstacked_calls //p' dump.txt)
calls=$(sum function) in_contexts=$(sum context)
[ "$calls" -eq $((in_contexts + ${unstacked:-0})) ] ||
	{ echo "FAIL: $calls calls, $in_contexts on contexts, ${unstacked:-no} unstacked line"; status=1; }
if [ -n "$unstacked" ]; then
	"$zond" report -i h.db | grep -q "^warning: *unstacked_calls = $unstacked " ||
		{ echo "FAIL: the report does not say unstacked_calls = $unstacked"; status=1; }
fi
exit $status
