#!/bin/sh
# sigloop.sh - zond trace on a loop of calls interrupted by timer signals
# (sigloop.c), for ARCH: every call of leaf counted under main's loop
# (a handler's sigreturn to a function's first instruction was taken for a
# new call from the signal trampoline), and handler and hfn called as many
# times as the program handled signals.
#
# Usage: sigloop.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
zond=$1 arch=$2 dir=$3/sigloop-$2 src=$4
cc=$arch-linux-gnu-gcc
command -v $cc >/dev/null && command -v qemu-$arch >/dev/null ||
	{ echo "SKIP: no $cc or qemu-$arch"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
$cc -O2 -static -o sigloop "$src/progs/sigloop.c" || { echo "FAIL: build"; exit 1; }
"$zond" trace record -q -o s.ztrace -- ./sigloop 300000 >out.txt || { echo "FAIL: record"; exit 1; }
"$zond" trace report -q -o s.db s.ztrace || { echo "FAIL: report"; exit 1; }
"$zond" export -i s.db -f folded -e calls >folded.txt
status=0
leaf=$(grep ';main;loop;leaf [0-9]*$' folded.txt | awk '{ print $2 }')
[ "$leaf" = 300000 ] || { echo "FAIL: main;loop;leaf $leaf, not 300000"; grep leaf folded.txt; status=1; }
hits=$(sed -n 's/^signals handled: //p' out.txt)
for f in handler hfn; do
	n=$(awk -v f="$f" '{ k = split($1, p, ";"); if (p[k] == f) s += $2 } END { print s + 0 }' folded.txt)
	[ "$n" = "$hits" ] || { echo "FAIL: $f called $n times, the program handled $hits signals"; status=1; }
done
[ "${hits:-0}" -gt 0 ] || { echo "FAIL: no signal came"; status=1; }
[ $status -eq 0 ] && echo "sigloop ($arch): ok, $hits signals"
exit $status
