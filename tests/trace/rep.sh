#!/bin/sh
# rep.sh - x86-64: a rep-prefixed string instruction counts once per
# iteration, once when its count is 0 (as QEMU's -d nochain log shows it;
# callgrind counts n + 1 for a rep of n > 0 ending on its count, doc/trace.md):
# with its blocks chained QEMU runs it once more to leave,
# which zond does not count, from a trace and --online alike.  fill() is
# branchless: its instructions from objdump, the rep's iterations on top.
#
# Usage: rep.sh ZOND WORKDIR SRCDIR    (exit 77: qemu-x86_64 missing)
zond=$1 dir=$2/rep src=$3
command -v qemu-x86_64 >/dev/null || { echo "SKIP: no qemu-x86_64"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
objdump=objdump
. "$src/insns.sh"
gcc -O1 -static -o rep "$src/progs/rep.c" || { echo "FAIL: build"; exit 1; }
base=$(insns rep fill)
[ -n "$base" ] || { echo "FAIL: no fill in objdump"; exit 1; }
status=0
for n in 0 1 2 10; do
	iter=$n
	[ $n -eq 0 ] && iter=1
	want=$((5 * (base - 1 + iter)))
	"$zond" trace record -q -o r.ztrace -- ./rep $n >/dev/null
	"$zond" trace report -q -o r$n.db r.ztrace || { echo "FAIL: report (n=$n)"; status=1; }
	got=$("$zond" report -i r$n.db -m fill | awk '$NF == "fill" { print $2 }')
	[ "$got" = "$want" ] || { echo "FAIL: rep of $n: fill ran $got instructions, not $want"; status=1; }
	"$zond" trace record -q --online -o o$n.db -- ./rep $n >/dev/null
	got=$("$zond" report -i o$n.db -m fill | awk '$NF == "fill" { print $2 }')
	[ "$got" = "$want" ] || { echo "FAIL: rep of $n, --online: $got instructions, not $want"; status=1; }
done
[ $status -eq 0 ] && echo "rep: ok"
exit $status
