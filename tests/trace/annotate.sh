#!/bin/sh
# annotate.sh - zond annotate on a trace run: the instructions of each source
# line of a function equal what QEMU executed there, counted independently:
# QEMU's own log run one instruction per block (-singlestep -d exec,nochain:
# one line per executed instruction, with its PC), the function's
# instructions listed by objdump, their lines given by binutils' addr2line.
#
# Usage: annotate.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/annotate-$2 src=$4
cc=$arch-linux-gnu-gcc
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f z.db
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

$cc -O1 -g -static -o calls "$src/progs/calls.c" || exit 1
"$zond" trace record -q -o calls.ztrace -- ./calls 15 >/dev/null || fail "record"
"$zond" trace report -o z.db -n 0 calls.ztrace 2>/dev/null || fail "report"
# QEMU 8.1 renamed -singlestep to -one-insn-per-tb
one=-singlestep
"qemu-$arch" --help | grep -q -- -one-insn-per-tb && one=-one-insn-per-tb
env -i "$(command -v qemu-$arch)" $one -d exec,nochain -D q.log "$PWD/calls" 15 \
	>/dev/null || fail "qemu $one"
# executions per PC
sed -n 's/^Trace [0-9]*: [^[]*\[[0-9a-f]*\/0*\([0-9a-f]*\)\/.*/\1/p' q.log | sort | uniq -c |
	awk '{ print $2, $1 }' >pc-counts.txt

for func in loop fib main; do
	# the function's instruction addresses, their lines, their executions
	$arch-linux-gnu-objdump -d --disassemble="$func" calls |
		sed -n 's/^ *\([0-9a-f]*\):\t.*/\1/p' >addrs.txt
	[ -s addrs.txt ] || { fail "$func: objdump lists no instruction"; continue; }
	$arch-linux-gnu-addr2line -e calls $(sed 's/^/0x/' addrs.txt) |
		sed 's/.*:\([0-9?]*\).*/\1/' >lines.txt
	paste -d' ' addrs.txt lines.txt |
		awk 'NR == FNR { n[$1] = $2; next } ($1 in n) { sum[$2] += n[$1] }
			END { for (l in sum) if (sum[l]) print l, sum[l] }' pc-counts.txt - |
		sort -n >want-$func.txt
	# zond's rows "M COST SHARE LINE  SOURCE": the lines with a cost
	"$zond" annotate -i z.db --raw "$func" >annotate-$func.txt || fail "annotate $func"
	cut -c3- annotate-$func.txt | awk '$1 ~ /^[0-9]+$/ && $2 ~ /%$/ && $3 ~ /^[0-9]+$/ {
		print $3, $1 }' | sort -n >got-$func.txt
	[ -s want-$func.txt ] || fail "$func: QEMU's log has no execution of it"
	cmp -s want-$func.txt got-$func.txt ||
		fail "$func: per-line instructions differ (want: QEMU log; got: zond):
$(diff want-$func.txt got-$func.txt | head -20)"
done

# The source lines shown are calls.c's: loop's for line has its text.
grep -q '^> .* [0-9][0-9]*  	for (int i = 0; i < n; i++)$' annotate-loop.txt ||
	fail "loop's for line not shown as the hottest with its source:
$(cat annotate-loop.txt)"
# A missing source gives one clear line and still every line's cost.
cp "$src/progs/calls.c" moved.c && $cc -O1 -g -static -o moved moved.c && rm moved.c
"$zond" trace record -q -o moved.ztrace -- ./moved 15 >/dev/null &&
	"$zond" trace report -o z.db -n 0 moved.ztrace 2>/dev/null || fail "moved program"
"$zond" annotate -i z.db --raw loop >moved.txt || fail "annotate, source gone"
grep -q "^(source file $PWD/moved.c not found: lines with costs only)$" moved.txt ||
	fail "no missing-source line: $(cat moved.txt)"
cut -c3- moved.txt | awk '$1 ~ /^[0-9]+$/ && $2 ~ /%$/ { print $3, $1 }' | sort -n >moved-got.txt
cmp -s moved-got.txt got-loop.txt || fail "costs without the source differ"

[ $status -eq 0 ] && echo "ok ($arch): per-line instructions of loop, fib, main equal QEMU's log"
exit $status
