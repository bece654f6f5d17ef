#!/bin/sh
# repcond.sh - x86-64: rep string instructions that QEMU leaves other than by
# a last run at count 0, which it then does not make: repne scasb and repe
# cmpsb ending on their condition, and a rep movsb a SIGSEGV handler
# interrupts (it returns into the rep, which goes on).  Each function's calls
# and self cost equal QEMU's -d nochain log (one execution per iteration, the
# faulting one too), from a trace and --online alike; repe cmpsb ending on
# its count is the plain case.  copy's calls are not checked: the handler's
# return into the rep re-enters copy (QA s16 X3 F3, another fix).  Before, zond left out one run per unbroken
# run of the rep's block: one iteration short per condition and per signal.
#
# Usage: repcond.sh ZOND WORKDIR SRCDIR    (exit 77: qemu-x86_64 missing)
zond=$1 dir=$2/repcond src=$3
command -v qemu-x86_64 >/dev/null || { echo "SKIP: no qemu-x86_64"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$src/qlog.sh"
gcc -O1 -static -o r "$src/progs/repcond.c" "$src/progs/repcond.S" || { echo "FAIL: build"; exit 1; }
qlog q.log ./r >want.out || { echo "FAIL: qemu-x86_64 ./r"; exit 1; }
[ "$(cat want.out)" = "1910 10" ] || { echo "FAIL: the program printed $(cat want.out)"; exit 1; }
status=0
fail() { echo "FAIL: $*"; status=1; }
# FUNC's calls and self instructions in DB ("calls self")
stats() {
	"$zond" report -i "$1" --raw 2>/dev/null | awk -v f="$2" '$NF == f { print $1, $3 }'
}
check() {
	for f in scan same differ copy fixup main; do
		want=$(qfunc q.log r $f)
		got=$(stats "$2" $f)
		[ "${got#* }" = "$want" ] || fail "$1: $f ran '${got#* }' instructions, QEMU's log $want"
		[ $f = main ] || [ $f = copy ] || [ "${got% *}" = 10 ] || fail "$1: $f: ${got% *} calls, not 10"
	done
}
"$zond" trace record -q -o r.ztrace -- ./r >out || fail "record: status $?"
cmp -s out want.out || fail "record: the program's output differs"
"$zond" trace report -q -o r.db r.ztrace || fail "report"
check trace r.db
"$zond" trace record -q --online -o o.db -- ./r >out || fail "online: status $?"
check online o.db
[ $status -eq 0 ] && echo "repcond: ok"
exit $status
